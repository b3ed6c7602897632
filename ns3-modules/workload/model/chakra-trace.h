/*
 * tusk: reader for Chakra execution traces (MLCommons Chakra; the workload format of ASTRA-sim).
 *
 * Format (schema/protobuf/et_def.proto of mlcommons/chakra, declared in chakra-et.proto beside
 * this file): one file per rank, each a sequence of messages, every message preceded by its
 * length as a base-128 varint: first a GlobalMetadata (the schema version, attributes), then
 * Node messages. A node has an id unique in its file, a name, a NodeType, control and data
 * dependencies (ids of nodes of the same file), duration_micros (the compute time of a
 * COMP_NODE) and attributes. Communication nodes carry the attributes ASTRA-sim reads
 * (astra-sim/workload/Workload.cc): comm_type (a CollectiveCommType), comm_size (bytes),
 * comm_src, comm_dst, comm_tag (point-to-point), pg_name (the communicator group: "" or "0"
 * is every rank; any other name is a group the scenario lists, as ASTRA-sim's
 * --comm-group-configuration file does).
 *
 * Pure: no ns-3 objects. Errors are ns3::InputError naming the file, key "node <id>" (or
 * "file") and what was expected.
 */
#ifndef TUSK_CHAKRA_TRACE_H
#define TUSK_CHAKRA_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One node of a trace, with the attributes tusk reads. */
struct ChakraNode
{
    /** Chakra's NodeType values (et_def.proto). */
    enum Type : int32_t
    {
        INVALID = 0,
        METADATA = 1,
        MEM_LOAD = 2,
        MEM_STORE = 3,
        COMP = 4,
        COMM_SEND = 5,
        COMM_RECV = 6,
        COMM_COLL = 7,
        STORAGE = 8,
        BATCH = 9,
        CHECKPOINT = 10,
    };
    uint64_t id = 0;
    std::string name;
    int32_t type = INVALID;
    std::vector<uint64_t> deps;  //!< control and data dependencies, each once, in file order
    uint64_t durationMicros = 0; //!< duration_micros
    int64_t commType = -1;       //!< comm_type attribute (CollectiveCommType), -1 if absent
    int64_t commSize = -1;       //!< comm_size attribute, bytes, -1 if absent
    int64_t commSrc = -1;        //!< comm_src attribute, -1 if absent
    int64_t commDst = -1;        //!< comm_dst attribute, -1 if absent
    int64_t commTag = 0;         //!< comm_tag attribute, 0 if absent
    std::string pgName;          //!< pg_name attribute, "" if absent
};

/** The nodes of one rank's file, in file order. */
struct ChakraRankTrace
{
    std::string file;
    std::string version; //!< GlobalMetadata.version
    std::vector<ChakraNode> nodes;
};

/** The name of a NodeType value ("COMP_NODE"), or "type <v>" for an unknown value. */
std::string ChakraNodeTypeName(int32_t type);

/** The name of a CollectiveCommType value ("ALL_REDUCE"), or "comm_type <v>". */
std::string ChakraCollectiveName(int64_t commType);

/**
 * \brief Parse one rank's trace from its bytes.
 * \param file named in errors
 * \throws InputError key "file" (no GlobalMetadata, a truncated or malformed message),
 *         "node <id>" (an id used twice, an attribute of the wrong type, a negative size)
 */
ChakraRankTrace ParseChakraTrace(const std::string& bytes, const std::string& file);

/** \brief Read and parse one file. \throws InputError key "file" if it cannot be read */
ChakraRankTrace ReadChakraTrace(const std::string& file);

/**
 * \brief The files of a trace set, rank order: `path` is a folder holding `<prefix>.<r>.et`
 * for r = 0 .. n-1 (one prefix, every rank present, nothing else ending in .et), or a pattern
 * with one `%d` replaced by 0, 1, ... until a file is missing.
 * \throws InputError key "workload.trace" (no file, a missing rank, two prefixes)
 */
std::vector<std::string> ChakraTraceFiles(const std::string& path);

} // namespace ns3

#endif
