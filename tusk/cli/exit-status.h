/*
 * tusk: the command line's exit statuses (README, docs/results-format.md "Results folders"):
 * 0 success; 1 the run itself failed (transfers unfinished at the stop time, broken packet
 * conservation, an internal error); 2 bad input (the message names the file, line and key and
 * what was expected) or a destination tusk refuses to replace or that another tusk is writing;
 * 3 the results could not be written (kExitWriteFailed, results/results-dir.h).
 */
#ifndef TUSK_EXIT_STATUS_H
#define TUSK_EXIT_STATUS_H

namespace tusk
{

constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;

} // namespace tusk

#endif // TUSK_EXIT_STATUS_H
