/*
 * flows.csv's row text: the `path` and `paths` columns written in place into the row's buffer
 * are the text of PathField / PathsField (locate::FormatPaths, which `tusk locate` reads
 * back), and reorder_mean's +0 shortcut gives fmt's "{:.3f}" text (and -0 still fmt's).
 */
#include "results/results-writer.h"
#include "locate/observations.h"

#include <catch2/catch.hpp>

#include <sstream>

namespace
{

std::vector<std::string>
Split(const std::string& line)
{
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ','))
    {
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == ',')
    {
        out.emplace_back();
    }
    return out;
}

/** The value of column `name` in `f`'s flows.csv line. */
std::string
Column(const tusk::FlowRow& f, const std::string& name)
{
    std::string header = tusk::FlowsCsvHeader(false);
    header.pop_back(); // '\n'
    std::string line;
    tusk::AppendFlowCsvRow(line, f, "ecmp", {});
    REQUIRE(line.back() == '\n');
    line.pop_back();
    const auto names = Split(header);
    const auto cells = Split(line);
    REQUIRE(names.size() == cells.size());
    for (size_t k = 0; k < names.size(); ++k)
    {
        if (names[k] == name)
        {
            return cells[k];
        }
    }
    FAIL("no column " << name);
    return "";
}

} // namespace

TEST_CASE("flows.csv's path and paths columns are PathField's and FormatPaths's text, for no, one and several paths")
{
    tusk::FlowRow f;
    CHECK(Column(f, "path").empty());
    CHECK(Column(f, "paths").empty());
    f.paths = {{{0, 12, 345, 1}, 120}};
    CHECK(Column(f, "path") == "0>12>345>1");
    CHECK(Column(f, "paths") == "0>12>345>1:120");
    CHECK(Column(f, "path") == tusk::PathField(f));
    f.paths = {{{0, 2, 3, 1}, 120}, {{0, 4, 5, 1}, 98}, {{7}, 18446744073709551615ULL}};
    CHECK(Column(f, "path").empty());
    CHECK(Column(f, "paths") == "0>2>3>1:120|0>4>5>1:98|7:18446744073709551615");
    CHECK(Column(f, "paths") == tusk::locate::FormatPaths(f.paths));
    CHECK(Column(f, "paths") == tusk::PathsField(f));
}

TEST_CASE("flows.csv's reorder_mean: +0 is 0.000 as fmt prints it, -0 and other values still fmt's")
{
    tusk::FlowRow f;
    f.reorderMean = 0.0;
    CHECK(Column(f, "reorder_mean") == "0.000");
    f.reorderMean = -0.0;
    CHECK(Column(f, "reorder_mean") == "-0.000");
    f.reorderMean = 1.0 / 3.0;
    CHECK(Column(f, "reorder_mean") == "0.333");
    f.reorderMean = 2.5e-4;
    CHECK(Column(f, "reorder_mean") == "0.000");
    // fair_slowdown (9 decimals) of a finished row with a fair ideal: +0 is not reachable
    // there (fct > 0), a value is fmt's.
    f.finished = true;
    f.fctPs = 3;
    f.fairIdealPs = 2;
    f.fairSlowdown = 1.5;
    CHECK(Column(f, "fair_slowdown") == "1.500000000");
}
