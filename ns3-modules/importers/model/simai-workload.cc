/*
 * tusk: SimAI / AICB workload importer. See simai-workload.h.
 */
#include "simai-workload.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/input-text-reader.h"

#include <algorithm>
#include <limits>
#include <map>

namespace ns3
{

namespace
{

/** Largest compute time of a layer column, ns (see the reader). */
constexpr uint64_t kMaxComputeNs = 1'000'000'000'000'000;

/** Parse a non-negative decimal integer (the whole token). */
bool
ParseUnsigned(const std::string& s, uint64_t& v)
{
    if (s.empty() || s.size() > 19)
    {
        return false;
    }
    v = 0;
    for (char c : s)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
}

bool
ParseSigned(const std::string& s, int64_t& v)
{
    uint64_t u = 0;
    if (!s.empty() && s[0] == '-')
    {
        if (!ParseUnsigned(s.substr(1), u) || u > uint64_t(std::numeric_limits<int64_t>::max()))
        {
            return false;
        }
        v = -static_cast<int64_t>(u);
        return true;
    }
    if (!ParseUnsigned(s, u) || u > uint64_t(std::numeric_limits<int64_t>::max()))
    {
        return false;
    }
    v = static_cast<int64_t>(u);
    return true;
}

} // namespace

SimAiComm
MapSimAiComm(const std::string& comm, const std::string& phase)
{
    SimAiComm out;
    if (comm == "NONE")
    {
        return out;
    }
    static const std::vector<std::pair<std::string, std::string>> kBases = {
        {"ALLREDUCE", "all-reduce"},
        {"ALLGATHER", "all-gather"},
        {"REDUCESCATTER", "reduce-scatter"},
        {"ALLTOALL", "all-to-all"},
    };
    for (const auto& [base, kind] : kBases)
    {
        std::string suffix;
        if (comm == base)
        {
            suffix = "";
        }
        else if (comm == base + "_EP")
        {
            suffix = "_EP";
        }
        else if (comm == base + "_DP_EP")
        {
            suffix = "_DP_EP";
        }
        else
        {
            continue;
        }
        out.kind = kind;
        if (suffix == "_EP")
        {
            out.group = "ep";
        }
        else if (suffix == "_DP_EP")
        {
            out.group = "dp";
        }
        else
        {
            out.group = phase == "wg" ? "dpep" : "tp";
        }
        return out;
    }
    throw InputError("",
                     0,
                     phase + "_comm",
                     "unknown comm type \"" + comm +
                         "\"; expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL, "
                         "optionally with _EP or _DP_EP (ALLREDUCEALLTOALL is not supported)");
}

SimAiWorkload
ReadSimAiWorkload(const std::string& path)
{
    // Blank lines are skipped (SimAI reads the file as a stream of words).
    InputTextReader in(path, "SimAI workload file");
    SimAiWorkload w;
    w.file = path;
    if (!in.NextLine())
    {
        in.FailAt(1, "header", "empty file; expected the parallelism header");
    }
    const unsigned headLine = in.Line();
    const std::vector<std::string> head = in.Tokens();
    w.policy = head[0];
    if (w.policy != "HYBRID_TRANSFORMER_FWD_IN_BCKWD" && w.policy != "HYBRID_TRANSFORMER")
    {
        throw InputError(path, headLine, "header",
                         "expected the parallelism HYBRID_TRANSFORMER_FWD_IN_BCKWD or "
                         "HYBRID_TRANSFORMER; got " + QuoteExcerpt(w.policy));
    }
    std::map<std::string, uint64_t> values;
    for (size_t i = 1; i + 1 < head.size(); ++i)
    {
        const std::string& key = head[i];
        static const std::vector<std::string> kKeys = {"model_parallel_NPU_group:", "ep:", "pp:",
                                                       "vpp:", "ga:", "all_gpus:", "pp_comm",
                                                       "pp_comm:"};
        if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
        {
            continue; // checkpoints lists and unknown keys are not needed
        }
        uint64_t v = 0;
        if (!ParseUnsigned(head[i + 1], v) || v > std::numeric_limits<uint32_t>::max())
        {
            throw InputError(path, headLine, "header",
                             "expected a non-negative integer after \"" + key + "\"; got " +
                                 QuoteExcerpt(head[i + 1]));
        }
        values[key.back() == ':' ? key.substr(0, key.size() - 1) : key] = v;
        ++i;
    }
    auto need = [&](const char* key, uint32_t& field) {
        auto it = values.find(key);
        if (it == values.end() || it->second == 0)
        {
            throw InputError(path, headLine, "header",
                             std::string("expected \"") + key + ": N\" with N >= 1 in the header" +
                                 (it == values.end() ? "" : "; got 0"));
        }
        field = static_cast<uint32_t>(it->second);
    };
    need("model_parallel_NPU_group", w.tp);
    need("ep", w.ep);
    need("pp", w.pp);
    need("all_gpus", w.allGpus);
    if (values.count("vpp"))
    {
        w.vpp = static_cast<uint32_t>(values["vpp"]);
    }
    if (values.count("ga"))
    {
        w.ga = static_cast<uint32_t>(values["ga"]);
    }
    if (values.count("pp_comm"))
    {
        w.ppCommBytes = values["pp_comm"];
    }
    const std::string at = path + ":" + std::to_string(headLine) + ": ";
    if (w.vpp > 1 && w.pp > 1) // without a pipeline (pp 1) virtual stages change nothing
    {
        w.warnings.push_back(at + "vpp: " + std::to_string(w.vpp) +
                             ": virtual pipeline stages are not modelled; the iteration is "
                             "imported as with vpp: 1");
    }
    if (w.ga > 1)
    {
        w.warnings.push_back(at + "ga: " + std::to_string(w.ga) +
                             ": gradient accumulation is not modelled; an iteration is one "
                             "forward and backward pass, as with ga: 1");
    }
    const uint64_t model = uint64_t(w.tp) * w.pp;
    if (w.allGpus % model != 0 || (w.allGpus / model) % w.ep != 0)
    {
        throw InputError(path, headLine, "header",
                         "inconsistent parallelism: all_gpus " + std::to_string(w.allGpus) +
                             " is not a multiple of TP * PP * EP = " + std::to_string(w.tp) +
                             " * " + std::to_string(w.pp) + " * " + std::to_string(w.ep) +
                             " = " + std::to_string(model * w.ep) +
                             " (SimAI's DP = all_gpus / (TP * PP) must be a multiple of EP)");
    }

    if (!in.NextLine())
    {
        in.FailAt(headLine + 1, "layers", "expected the number of layer lines");
    }
    const unsigned countLine = in.Line();
    uint64_t count = 0;
    const std::vector<std::string>& countTok = in.Tokens();
    if (countTok.size() != 1 || !ParseUnsigned(countTok[0], count))
    {
        in.Fail("layers",
                         "expected the number of layer lines; got " +
                             (countTok.size() == 1 ? QuoteExcerpt(countTok[0])
                                                   : std::to_string(countTok.size()) + " words"));
    }
    unsigned lineNo = countLine;
    while (in.NextLine())
    {
        lineNo = in.Line();
        const std::vector<std::string>& t = in.Tokens();
        if (w.layers.size() == count)
        {
            throw InputError(path, lineNo, "layers",
                             "more layer lines than the " + std::to_string(count) +
                                 " announced on line " + std::to_string(countLine));
        }
        if (t.size() != 12)
        {
            throw InputError(path, lineNo, "layers",
                             "expected 12 columns (name dependency fwd_compute fwd_comm "
                             "fwd_bytes ig_compute ig_comm ig_bytes wg_compute wg_comm wg_bytes "
                             "wg_update); got " + std::to_string(t.size()));
        }
        SimAiLayer l;
        l.line = lineNo;
        l.name = t[0];
        if (!ParseSigned(t[1], l.dependency))
        {
            throw InputError(path, lineNo, "dependency", "expected an integer; got " + QuoteExcerpt(t[1]));
        }
        auto num = [&](size_t col, const char* key, uint64_t& v) {
            if (!ParseUnsigned(t[col], v))
            {
                throw InputError(path, lineNo, key,
                                 "expected a non-negative integer; got " + QuoteExcerpt(t[col]));
            }
        };
        // Compute times become ps (x 1000) and wg_compute + wg_update is one step: at most
        // 1e15 ns (11.6 days) each keeps that within 64 bits.
        auto computeNs = [&](size_t col, const char* key, uint64_t& v) {
            num(col, key, v);
            if (v > kMaxComputeNs)
            {
                throw InputError(path, lineNo, key,
                                 "expected a compute time of at most 1e15 ns; got " + t[col]);
            }
        };
        computeNs(2, "fwd_compute", l.fwdComputeNs);
        l.fwdComm = t[3];
        num(4, "fwd_bytes", l.fwdBytes);
        computeNs(5, "ig_compute", l.igComputeNs);
        l.igComm = t[6];
        num(7, "ig_bytes", l.igBytes);
        computeNs(8, "wg_compute", l.wgComputeNs);
        l.wgComm = t[9];
        num(10, "wg_bytes", l.wgBytes);
        computeNs(11, "wg_update", l.wgUpdateNs);
        for (const auto& [comm, phase] : {std::pair<std::string, std::string>{l.fwdComm, "fwd"},
                                          {l.igComm, "ig"},
                                          {l.wgComm, "wg"}})
        {
            try
            {
                MapSimAiComm(comm, phase);
            }
            catch (const InputError& e)
            {
                throw InputError(path, lineNo, e.Key(), e.Message());
            }
        }
        w.layers.push_back(l);
    }
    if (w.layers.size() != count)
    {
        throw InputError(path, lineNo, "layers",
                         "line 2 announces " + std::to_string(count) + " layer lines; the file has " +
                             std::to_string(w.layers.size()));
    }
    return w;
}

ParallelDegrees
SimAiDegrees(const SimAiWorkload& w, uint32_t ranks, std::string* note)
{
    const uint64_t model = uint64_t(w.tp) * w.pp * w.ep;
    if (ranks == 0 || ranks % model != 0)
    {
        throw InputError("", 0, "ranks",
                         "the SimAI workload needs a multiple of TP * PP * EP = " +
                             std::to_string(w.tp) + " * " + std::to_string(w.pp) + " * " +
                             std::to_string(w.ep) + " = " + std::to_string(model) +
                             " ranks (DP is scaled to fit); got " + std::to_string(ranks));
    }
    ParallelDegrees d;
    d.tp = w.tp;
    d.pp = w.pp;
    d.ep = w.ep;
    d.dp = static_cast<uint32_t>(ranks / model);
    if (note != nullptr && d.dp != w.Dp())
    {
        *note = "SimAI workload " + w.file + " (all_gpus " + std::to_string(w.allGpus) + ": TP " +
                std::to_string(w.tp) + ", PP " + std::to_string(w.pp) + ", EP " +
                std::to_string(w.ep) + ", DP " + std::to_string(w.Dp()) + ") mapped onto " +
                std::to_string(ranks) + " ranks by scaling DP " + std::to_string(w.Dp()) +
                " -> " + std::to_string(d.dp) +
                "; group sizes other than DP and every per-rank collective size are unchanged";
    }
    return d;
}

std::vector<JobCollective>
SimAiIteration(const SimAiWorkload& w)
{
    std::vector<JobCollective> out;
    auto add = [&](const std::string& name, uint64_t computeNs, const std::string& comm,
                   uint64_t bytes, const std::string& phase, bool blocking) {
        const SimAiComm c = MapSimAiComm(comm, phase);
        JobCollective jc;
        jc.name = name;
        jc.computePs = computeNs * 1000;
        jc.blocking = blocking;
        if (c.kind.empty() || bytes == 0)
        {
            jc.kind = "all-reduce"; // placeholder: no bytes, only the compute time
            jc.group = "world";
            jc.bytes = 0;
        }
        else
        {
            jc.kind = c.kind;
            jc.group = c.group;
            jc.bytes = bytes;
        }
        out.push_back(jc);
    };
    auto pipelineSend = [&](const std::string& name) {
        if (w.pp > 1 && w.ppCommBytes > 0)
        {
            JobCollective jc;
            jc.name = name;
            jc.kind = "send-recv";
            jc.group = "pp";
            jc.bytes = w.ppCommBytes;
            jc.shift = true;
            out.push_back(jc);
        }
    };
    for (const auto& l : w.layers)
    {
        add(l.name + ".fwd", l.fwdComputeNs, l.fwdComm, l.fwdBytes, "fwd", true);
    }
    pipelineSend("pp.fwd");
    for (auto it = w.layers.rbegin(); it != w.layers.rend(); ++it)
    {
        add(it->name + ".ig", it->igComputeNs, it->igComm, it->igBytes, "ig", true);
        add(it->name + ".wg", it->wgComputeNs + it->wgUpdateNs, it->wgComm, it->wgBytes, "wg",
            false);
    }
    pipelineSend("pp.bwd");
    return out;
}

} // namespace ns3
