/*
 * tusk: summary statistics, computed in one place and shared by the printed comparison
 * table, the results files and the report.
 */
#ifndef TUSK_STATS_H
#define TUSK_STATS_H

#include <vector>

namespace tusk
{

/**
 * \brief The q-quantile (0 <= q <= 1) with linear interpolation between order statistics
 * (Hyndman & Fan type 7, the default of numpy and pandas). NaN for an empty sample.
 */
double Quantile(std::vector<double> values, double q);
double Mean(const std::vector<double>& values);
double Max(const std::vector<double>& values);
/** Jain's fairness index (sum x)^2 / (n sum x^2), in (0, 1]; 1 for an empty or all-zero set. */
double JainIndex(const std::vector<double>& values);

} // namespace tusk

#endif
