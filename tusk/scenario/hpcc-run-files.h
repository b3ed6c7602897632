/*
 * tusk: the run an HPCC simulator config.txt describes (alibaba-edu/High-Precision-Congestion-
 * Control, simulation/scratch/third.cc): its TOPOLOGY_FILE, FLOW_FILE, SIMULATOR_STOP_TIME and
 * output files, used when `tusk run --hpcc-config config.txt` is given no scenario file.
 */
#ifndef TUSK_HPCC_RUN_FILES_H
#define TUSK_HPCC_RUN_FILES_H

#include <string>
#include <vector>

namespace tusk
{

/** The run keys of one config.txt, paths resolved. */
struct HpccRunFiles
{
    std::string topology;     //!< TOPOLOGY_FILE, absolute
    std::string flow;         //!< FLOW_FILE, absolute
    double stopTimeS = 3.01;  //!< SIMULATOR_STOP_TIME, s (third.cc's default when absent)
    bool fctOutput = false;   //!< FCT_OUTPUT_FILE given: write fct.txt
    bool pfcOutput = false;   //!< PFC_OUTPUT_FILE given: write pfc.txt
    /** The flow file's earliest start, ps: the run keeps the file's times (workload.start_us),
     *  so that results and fct.txt show them as the simulator does. */
    uint64_t firstStartPs = 0;
    /** Where each value came from, "scenario key" -> "file:line KEY value" (the manifest's
     *  "imported"). */
    std::vector<std::pair<std::string, std::string>> sources;
};

/**
 * \brief Read the run keys of the config at `path`. A relative TOPOLOGY_FILE or FLOW_FILE is
 * looked up, in this order, (1) in the config's folder, (2) in that folder's parent when the
 * path starts with the folder's own name (the simulator runs from simulation/ with
 * `mix/config.txt`, so its configs say `mix/topology.txt`), (3) as the bare file name in the
 * config's folder (a config kept next to its files); the first that exists is used.
 * \throws ns3::InputError (file, line, key) for a missing TOPOLOGY_FILE or FLOW_FILE key, a
 *         file found at none of those places (the places tried are named), or a malformed
 *         SIMULATOR_STOP_TIME.
 */
HpccRunFiles ReadHpccRunFiles(const std::string& path);

/** The `--set` overrides that make that run: topology and workload of kind "hpcc" on those
 *  files, their flows at the file's times (workload.start_us), stop_time_ms, and [output]
 *  formats = ["hpcc"] when FCT or PFC output is asked for. */
std::vector<std::string> HpccRunSets(const HpccRunFiles& files);

} // namespace tusk

#endif
