/*
 * `tusk locate RESULTS_DIR`: rank the links most likely to be faulty from what an operator sees
 * end to end (docs/locate.md).
 */
#ifndef TUSK_LOCATE_LOCATE_COMMAND_H
#define TUSK_LOCATE_LOCATE_COMMAND_H

#include "locate/tomography.h"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

namespace tusk
{
namespace locate
{

struct CommandOptions
{
    std::string resultsDir;
    uint32_t top = 10;
    bool json = false;
    std::string method = "bayes";
    /** "auto": per-path telemetry when RESULTS_DIR/paths.csv exists, else completion times;
     *  "paths" (paths.csv required) or "flows" (completion times only). */
    std::string evidence = "auto";
    TomographyOptions tomography;
};

/** Register `locate` on the application; its options fill `o`. */
CLI::App* AddCommand(CLI::App& app, CommandOptions& o);

/**
 * \brief Run it: the table (or JSON with --json) on `out`. Returns the exit status (0).
 * \throws ns3::InputError for bad input (exit 2 in the caller).
 */
int RunCommand(const CommandOptions& o, std::ostream& out);

/** The table and the JSON document of a result (what RunCommand prints). */
void PrintTable(const Observations& obs, const LocateResult& r, const CommandOptions& o,
                std::ostream& out);
std::string ToJson(const Observations& obs, const LocateResult& r, const CommandOptions& o);

} // namespace locate
} // namespace tusk

#endif
