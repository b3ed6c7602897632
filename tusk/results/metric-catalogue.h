/*
 * tusk: the metric catalogue, one row per summary metric of a run. The run summary's outputs
 * read it: the manifest's "summary" (results-writer.cc), comparison.csv and the table `tusk run`
 * and `tusk compare` print (comparison-table.cc), the metrics `tusk regress` checks and the
 * direction it calls better (regress.cc), the column names a sweep axis cannot take
 * (sweep-plan.cc) and the Python module's `RunResult.summary` (python/tusk-python.cc).
 * A new metric is a member of RunSummary (runner.h), its computation in Summarize
 * (run-summary.cc) and one row here.
 */
#ifndef TUSK_METRIC_CATALOGUE_H
#define TUSK_METRIC_CATALOGUE_H

#include "run/runner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tusk
{

/** Which way a metric improves: what `tusk regress` calls a regression by default. */
enum class Better
{
    LOWER,
    HIGHER,
    NONE, //!< two-sided: a change either way is a regression
};

/** "lower", "higher" or "none" (the spelling of regression suites' `better`). */
const char* BetterName(Better b);

/**
 * One metric's value: a count (an integer in every output) or a real (NaN when the run has no
 * value, e.g. no finished collective: null in the manifest, an empty CSV cell, "-" in the
 * printed table, NaN in Python).
 */
struct MetricValue
{
    bool isCount = false;
    uint64_t count = 0;
    double real = 0;
};

/** Where a metric appears in the printed comparison table (`tusk run`, `tusk compare`). */
struct TableColumn
{
    const char* header = nullptr; //!< nullptr: not printed
    int width = 0;                //!< right-aligned in this many characters
    int decimals = 0;             //!< of a real value (counts print as integers)
    int position = 0;             //!< 1-based column after `policy`
    bool onlyWithCollectives = false; //!< printed only when some run has a collective
    bool onlyWithValues = false;      //!< printed only when some run has a value (not NaN)
};

/** One metric of the run summary. */
struct MetricInfo
{
    const char* name;    //!< the manifest's "summary" key, comparison.csv's column, Python's key
    const char* unit;    //!< "us" (µs), "GB/s" (10⁹ B/s), "ratio", "packets", "frames", ...
    Better better;       //!< the default direction of `tusk regress`
    const char* meaning; //!< how it is computed, from which table and field
    MetricValue (*value)(const RunSummary&); //!< reads it from a RunSummary
    int csvColumn;       //!< 1-based position among comparison.csv's metric columns; 0: absent
    TableColumn table;   //!< its column in the printed table (header nullptr: none)
    bool onlyCredits = false; //!< written only for a run on a fabric kind with VL credits
};

/**
 * \brief Every summary metric, in the manifest's order. Positions in comparison.csv and the
 * printed table are the rows' own (each a permutation of 1..n, checked by the unit test);
 * a new metric takes the next free position of each view it appears in.
 */
const std::vector<MetricInfo>& MetricCatalogue();

/** \brief The row of `name`, or nullptr. */
const MetricInfo* FindMetric(const std::string& name);

/** \brief The names of every metric, in catalogue order (`tusk regress` lists them so). */
std::vector<std::string> MetricNames();

/** \brief Whether a run on `spec` has `m` (manifest, Python): every metric but the
 *  InfiniBand-only ones on other fabrics. */
bool HasMetric(const MetricInfo& m, const ScenarioSpec& spec);

/** \brief The rows of one view, comparison.csv's metric columns or the printed table's, ordered
 *  by their position there; rows absent from the view are left out. */
std::vector<const MetricInfo*> MetricsInCsvOrder();
std::vector<const MetricInfo*> MetricsInTableOrder();

} // namespace tusk

#endif // TUSK_METRIC_CATALOGUE_H
