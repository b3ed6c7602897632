/*
 * tusk: reader for Chakra execution traces. See chakra-trace.h.
 */
#include "chakra-trace.h"

#include "chakra-et.pb.h"

#include "fabric/model/input-error.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

namespace pb = ChakraProtoMsg;

std::string
NodeKey(uint64_t id)
{
    return "node " + std::to_string(id);
}

/** An integer attribute of any integer encoding Chakra's tools write. */
int64_t
IntegerOf(const pb::AttributeProto& a, const std::string& file, uint64_t node)
{
    using A = pb::AttributeProto;
    switch (a.value_case())
    {
    case A::kInt32Val: return a.int32_val();
    case A::kInt64Val: return a.int64_val();
    case A::kUint32Val: return a.uint32_val();
    case A::kUint64Val:
        if (a.uint64_val() > static_cast<uint64_t>(INT64_MAX))
        {
            break;
        }
        return static_cast<int64_t>(a.uint64_val());
    case A::kSint32Val: return a.sint32_val();
    case A::kSint64Val: return a.sint64_val();
    case A::kFixed32Val: return a.fixed32_val();
    case A::kFixed64Val:
        if (a.fixed64_val() > static_cast<uint64_t>(INT64_MAX))
        {
            break;
        }
        return static_cast<int64_t>(a.fixed64_val());
    case A::kSfixed32Val: return a.sfixed32_val();
    case A::kSfixed64Val: return a.sfixed64_val();
    default: break;
    }
    throw InputError(file, 0, NodeKey(node),
                     "attribute " + a.name() + ": expected an integer below 2^63");
}

int64_t
NonNegative(const pb::AttributeProto& a, const std::string& file, uint64_t node)
{
    const int64_t v = IntegerOf(a, file, node);
    if (v < 0)
    {
        throw InputError(file, 0, NodeKey(node),
                         "attribute " + a.name() + ": expected a value >= 0; got " +
                             std::to_string(v));
    }
    return v;
}

} // namespace

std::string
ChakraNodeTypeName(int32_t type)
{
    if (pb::NodeType_IsValid(type))
    {
        return pb::NodeType_Name(static_cast<pb::NodeType>(type));
    }
    return "type " + std::to_string(type);
}

std::string
ChakraCollectiveName(int64_t commType)
{
    if (commType >= 0 && commType <= INT32_MAX &&
        pb::CollectiveCommType_IsValid(static_cast<int>(commType)))
    {
        return pb::CollectiveCommType_Name(static_cast<pb::CollectiveCommType>(commType));
    }
    return "comm_type " + std::to_string(commType);
}

ChakraRankTrace
ParseChakraTrace(const std::string& bytes, const std::string& file)
{
    ChakraRankTrace out;
    out.file = file;
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    // Read one length-prefixed message; false at a clean end of the input.
    auto next = [&](google::protobuf::Message& m, const std::string& what) {
        if (in.ExpectAtEnd())
        {
            return false;
        }
        uint64_t length = 0;
        if (!in.ReadVarint64(&length) ||
            length > bytes.size() - static_cast<uint64_t>(in.CurrentPosition()))
        {
            throw InputError(file, 0, "file",
                             "a truncated length prefix, or a length beyond the end of the file, before " +
                                 what);
        }
        const auto limit = in.PushLimit(static_cast<int>(length));
        if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() ||
            in.BytesUntilLimit() != 0)
        {
            throw InputError(file, 0, "file",
                             "expected a " + std::string(m.GetTypeName()) + " message of " +
                                 std::to_string(length) + " bytes for " + what +
                                 "; it does not parse (not a Chakra execution trace, or truncated)");
        }
        in.PopLimit(limit);
        return true;
    };
    pb::GlobalMetadata meta;
    if (!next(meta, "the GlobalMetadata"))
    {
        throw InputError(file, 0, "file",
                         "empty: expected a GlobalMetadata message and then Node messages");
    }
    out.version = meta.version();
    std::set<uint64_t> ids;
    pb::Node n;
    while (next(n, "node " + std::to_string(out.nodes.size() + 1) + " of the file"))
    {
        ChakraNode c;
        c.id = n.id();
        c.name = n.name();
        c.type = n.type();
        c.durationMicros = n.duration_micros();
        if (!ids.insert(c.id).second)
        {
            throw InputError(file, 0, NodeKey(c.id), "a node id used twice in one file");
        }
        std::set<uint64_t> seen;
        for (const auto* deps : {&n.ctrl_deps(), &n.data_deps()})
        {
            for (uint64_t d : *deps)
            {
                if (seen.insert(d).second)
                {
                    c.deps.push_back(d);
                }
            }
        }
        for (const auto& a : n.attr())
        {
            const std::string& key = a.name();
            if (key == "comm_type")
            {
                c.commType = NonNegative(a, file, c.id);
            }
            else if (key == "comm_size")
            {
                c.commSize = NonNegative(a, file, c.id);
            }
            else if (key == "comm_src")
            {
                c.commSrc = NonNegative(a, file, c.id);
            }
            else if (key == "comm_dst")
            {
                c.commDst = NonNegative(a, file, c.id);
            }
            else if (key == "comm_tag")
            {
                c.commTag = IntegerOf(a, file, c.id);
            }
            else if (key == "pg_name")
            {
                if (a.value_case() == pb::AttributeProto::kStringVal)
                {
                    c.pgName = a.string_val();
                }
                else
                {
                    c.pgName = std::to_string(IntegerOf(a, file, c.id));
                }
            }
        }
        out.nodes.push_back(std::move(c));
        n.Clear();
    }
    return out;
}

ChakraRankTrace
ReadChakraTrace(const std::string& file)
{
    std::ifstream f(file, std::ios::binary);
    if (!f)
    {
        throw InputError(file, 0, "file", "cannot open the Chakra trace");
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    return ParseChakraTrace(ss.str(), file);
}

std::vector<std::string>
ChakraTraceFiles(const std::string& path)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    const auto pct = path.find("%d");
    if (pct != std::string::npos)
    {
        for (uint32_t r = 0;; ++r)
        {
            const std::string f = path.substr(0, pct) + std::to_string(r) + path.substr(pct + 2);
            if (!fs::is_regular_file(f))
            {
                break;
            }
            files.push_back(f);
        }
        if (files.empty())
        {
            throw InputError(path, 0, "workload.trace",
                             "no file for rank 0 (the pattern's %d replaced by 0)");
        }
        return files;
    }
    std::error_code ec;
    if (!fs::is_directory(path, ec))
    {
        throw InputError(path, 0, "workload.trace",
                         "expected a folder of <prefix>.<rank>.et files or a pattern with %d");
    }
    // <prefix>.<rank>.et -> rank, one prefix.
    std::map<uint64_t, std::string> byRank;
    std::string prefix;
    for (const auto& e : fs::directory_iterator(path))
    {
        const std::string name = e.path().filename().string();
        if (name.size() < 4 || name.substr(name.size() - 3) != ".et")
        {
            continue;
        }
        const std::string stem = name.substr(0, name.size() - 3);
        const auto dot = stem.rfind('.');
        const std::string digits = dot == std::string::npos ? "" : stem.substr(dot + 1);
        if (digits.empty() || digits.size() > 9 ||
            !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        {
            throw InputError(e.path().string(), 0, "workload.trace",
                             "expected a name <prefix>.<rank>.et");
        }
        const std::string p = stem.substr(0, dot);
        if (!prefix.empty() && p != prefix)
        {
            throw InputError(e.path().string(), 0, "workload.trace",
                             "two trace prefixes in one folder: \"" + prefix + "\" and \"" + p +
                                 "\"");
        }
        prefix = p;
        byRank[std::stoull(digits)] = e.path().string();
    }
    if (byRank.empty())
    {
        throw InputError(path, 0, "workload.trace", "no <prefix>.<rank>.et file in the folder");
    }
    uint64_t expect = 0;
    for (const auto& [rank, f] : byRank)
    {
        if (rank != expect)
        {
            throw InputError(path, 0, "workload.trace",
                             "rank " + std::to_string(expect) + " has no file (" + prefix + "." +
                                 std::to_string(expect) + ".et)");
        }
        files.push_back(f);
        ++expect;
    }
    return files;
}

} // namespace ns3
