/*
 * tusk: "did you mean" suggestions for readers of user input (scenario keys, htsim files).
 */
#ifndef TUSK_CLOSEST_NAME_H
#define TUSK_CLOSEST_NAME_H

#include <cstddef>
#include <string>
#include <vector>

namespace ns3
{

/** Whether letters compare case-insensitively (ASCII) in EditDistance and ClosestName. */
enum class LetterCase
{
    SENSITIVE,
    INSENSITIVE,
};

/**
 * \brief Levenshtein edit distance between `a` and `b`: the fewest single-character
 * insertions, deletions and substitutions (each cost 1) that turn one into the other
 * (V. I. Levenshtein, 1966). O(|a| |b|) time, O(|b|) memory.
 */
size_t EditDistance(const std::string& a,
                    const std::string& b,
                    LetterCase letterCase = LetterCase::SENSITIVE);

/**
 * \brief The candidate nearest to `word` by EditDistance; ties go to the earlier candidate.
 * \return "" when `candidates` is empty
 */
std::string ClosestName(const std::string& word,
                        const std::vector<std::string>& candidates,
                        LetterCase letterCase = LetterCase::SENSITIVE);

/**
 * \brief As ClosestName, but only a candidate close enough to be a plausible typo: at most 1
 * edit from a word of up to 2 characters, 2 from one of up to 5, |word| / 3 from a longer one.
 * \return "" when no candidate is that close (a suggestion would mislead: "foo" is not a
 *         misspelt "id")
 */
std::string CloseName(const std::string& word,
                      const std::vector<std::string>& candidates,
                      LetterCase letterCase = LetterCase::SENSITIVE);

} // namespace ns3

#endif
