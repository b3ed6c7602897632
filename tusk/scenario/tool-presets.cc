/*
 * tusk: other tools' defaults as presets, and the note imports print. See tool-presets.h.
 */
#include "scenario/tool-presets.h"

#include "results/comparison-table.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tusk
{

namespace
{

/** htsim's whole data packet of main_uec.cpp (`packet_size`) and its UEC header
 *  (uec.cpp `UecSrc::_hdr_size`): the payload per packet is the difference. */
constexpr uint64_t kHtsimUecPacket = 4150;
constexpr uint64_t kHtsimUecHeader = 64;
/** htsim's ACK size used in its RTT estimate (UecBasePacket::get_ack_size()). */
constexpr uint64_t kHtsimAck = 64;
/** main_roce.cpp: packet_size 4000, PFC thresholds high 15 / low 12 packets, min RTO 1 ms. */
constexpr uint64_t kHtsimRocePacket = 4000;

/** The farthest host from host 0 by hops: (links, one-way propagation + switch latency, ps). */
std::pair<uint32_t, uint64_t>
Diameter(const ns3::TopologyGraph& g)
{
    std::vector<std::vector<std::pair<uint32_t, uint64_t>>> adj(g.vertices.size());
    for (const auto& l : g.links)
    {
        adj[l.a].emplace_back(l.b, l.delayPs);
        adj[l.b].emplace_back(l.a, l.delayPs);
    }
    constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> hops(g.vertices.size(), kUnseen);
    std::vector<uint64_t> delay(g.vertices.size(), 0);
    std::vector<uint32_t> queue{0};
    hops[0] = 0;
    for (size_t i = 0; i < queue.size(); ++i)
    {
        const uint32_t v = queue[i];
        if (v != 0 && g.vertices[v].kind == ns3::TopoVertex::HOST)
        {
            continue; // hosts do not forward
        }
        for (const auto& [w, d] : adj[v])
        {
            if (hops[w] == kUnseen)
            {
                hops[w] = hops[v] + 1;
                delay[w] = delay[v] + d + (w >= g.numHosts ? g.switchLatencyPs : 0);
                queue.push_back(w);
            }
        }
    }
    std::pair<uint32_t, uint64_t> best{0, 0};
    for (uint32_t h = 1; h < g.numHosts; ++h)
    {
        if (hops[h] != kUnseen && std::make_pair(hops[h], delay[h]) > best)
        {
            best = {hops[h], delay[h]};
        }
    }
    return best;
}

uint64_t
HostRateBps(const ns3::TopologyGraph& g)
{
    for (const auto& l : g.links)
    {
        if (l.a < g.numHosts || l.b < g.numHosts)
        {
            return l.rateBps;
        }
    }
    return 100'000'000'000ULL;
}

// The simulator's simulation/mix/config.txt without its files, tracing and stop time (a
// preset is settings, not a run); byte for byte otherwise (data/hpcc/config.txt).
const char* const kHpccConfig = R"(ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 1000
CC_MODE 3
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 900
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 50Mb/s
RATE_HAI 100Mb/s
MIN_RATE 100Mb/s
DCTCP_RATE_AI 1000Mb/s
ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN 1
GLOBAL_T 1
VAR_WIN 1
FAST_REACT 1
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
RATE_BOUND 1
ACK_HIGH_PRIO 0
KMAX_MAP 3 25000000000 400 50000000000 800 100000000000 1600
KMIN_MAP 3 25000000000 100 50000000000 200 100000000000 400
PMAX_MAP 3 25000000000 0.2 50000000000 0.2 100000000000 0.2
BUFFER_SIZE 32
)";

} // namespace

const std::vector<std::string>&
ToolPresetNames()
{
    static const std::vector<std::string> names = {"htsim-uec", "htsim-roce", "hpcc"};
    return names;
}

const std::string&
HpccDefaultConfigText()
{
    static const std::string text = kHpccConfig;
    return text;
}

std::vector<std::string>
ToolPresetSets(const std::string& name, const ns3::TopologyGraph& graph)
{
    if (name == "htsim-uec")
    {
        // main_uec.cpp calculate_rtt / calculate_bdp_pkt: 2 x the diameter's latency plus a
        // data packet and an ACK serialised at the host rate on every hop of the diameter;
        // queues of one BDP (DEFAULT_TRIMMING_QUEUESIZE_FACTOR 1), ECN at ceil(0.2 BDP) and
        // ceil(0.8 BDP) packets, min RTO 15 µs + queue x 6 x 8 / rate.
        const auto [hops, delayPs] = Diameter(graph);
        const uint64_t rate = HostRateBps(graph);
        const double rttPs = 2.0 * static_cast<double>(delayPs) +
                             static_cast<double>((kHtsimUecPacket + kHtsimAck) * 8 * hops) * 1e12 /
                                 static_cast<double>(rate);
        const auto bdpPkts = static_cast<uint64_t>(
            std::ceil(rttPs / 1e12 * static_cast<double>(rate) / 8 / kHtsimUecPacket));
        const uint64_t queue = bdpPkts * kHtsimUecPacket;
        const auto pkts = [&](double f) {
            return static_cast<uint64_t>(std::ceil(static_cast<double>(bdpPkts) * f)) *
                   kHtsimUecPacket;
        };
        const double rtoUs = 15 + static_cast<double>(queue) * 6 * 8 * 1e6 / static_cast<double>(rate);
        return {"nic.transport=\"uec-rud\"",
                "nic.congestion_control=\"nscc\"",
                fmt::format("nic.mtu_bytes={}", kHtsimUecPacket - kHtsimUecHeader),
                fmt::format("nic.rto_us={:.3f}", rtoUs),
                "pfc.enabled=false",
                "ecn.enabled=true",
                fmt::format("ecn.kmin_bytes={}", pkts(0.2)),
                fmt::format("ecn.kmax_bytes={}", pkts(0.8)),
                "ecn.pmax=1",
                fmt::format("ns3.ns3::SwitchNode::TrimThresholdBytes={}", queue)};
    }
    if (name == "htsim-roce")
    {
        return {"nic.transport=\"roce\"",
                "nic.receiver=\"go-back-n\"",
                "nic.congestion_control=\"none\"",
                fmt::format("nic.mtu_bytes={}", kHtsimRocePacket),
                "nic.rto_us=1000",
                "ecn.enabled=false",
                "pfc.enabled=true",
                "buffer.threshold=\"static\"",
                fmt::format("buffer.static_threshold_bytes={}", 15 * kHtsimRocePacket),
                fmt::format("buffer.xon_offset_bytes={}", 3 * kHtsimRocePacket)};
    }
    if (name == "hpcc")
    {
        return {}; // applied as a config file (HpccDefaultConfigText)
    }
    std::string list;
    for (const auto& n : ToolPresetNames())
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    throw ns3::InputError("<command line>", 0, "--preset",
                          "unknown preset \"" + name + "\"; expected one of " + list);
}

std::string
ImportNote(const std::string& tool, const ScenarioSpec& spec, const std::string& preset)
{
    std::string s = SettingsLine(spec);
    s = s.substr(std::string("settings: ").size());
    if (!s.empty() && s.back() == '\n')
    {
        s.pop_back();
    }
    const std::string recovery = spec.nic.transport == "uec-rud"   ? "selective repeat, SACK bitmaps"
                                 : spec.nic.transport == "uec-rod" ? "go-back-N"
                                 : spec.nic.receiver == "go-back-n" ? "go-back-N"
                                                                    : "selective repeat";
    std::string hint;
    if (preset.empty())
    {
        hint = tool == "htsim" ? "; htsim's own defaults: --preset htsim-uec (main_uec) or "
                                 "--preset htsim-roce (main_roce)"
                               : "; the HPCC simulator's own defaults: --preset hpcc";
    }
    else
    {
        hint = "; --preset " + preset;
    }
    return tool + " import: the run uses " + s + "; loss recovery " + recovery + hint;
}

} // namespace tusk
