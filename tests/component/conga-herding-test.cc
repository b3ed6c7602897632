// CONGA under short line-rate flows (Alizadeh et al., SIGCOMM 2014, section 3.3: the DRE,
// X += bytes per packet, X <- X (1 - alpha) every Tdre). Two leaves, four spines, eight hosts
// per leaf at 100 Gb/s (2:1); 300 flows of 32 KiB from leaf 0's hosts to leaf 1's, Poisson
// arrivals offering about 60 % of leaf 0's uplinks. Each flow is one flowlet that starts at
// line rate and ends within a few RTTs, so every new flowlet reads the same metrics.
//
// With the DRE counting the bytes a port transmits (the paper's "sent over the link", tusk's
// default), an uplink the flowlets herd onto reads at most its line rate and takes about
// tau = 100 us to show it; meanwhile every new flowlet takes it and its queue grows. Counted as
// the bytes join the queue (ns3::SwitchPort::DreAtEnqueue, as the public ns-3 CONGA
// implementations count them), the herd's offered load shows at once and the flowlets spread.

#include "run-helpers.h"

#include <map>
#include <random>
#include <set>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

struct HerdResult
{
    double meanSlowdown = 0;
    uint64_t maxUplinkQueue = 0; //!< largest queue of leaf 0's uplinks, bytes
};

HerdResult
RunShortFlows(const std::string& policy, bool dreAtEnqueue, uint64_t seed)
{
    tusk::ScenarioSpec s = LeafSpine(2, 4, 8);
    s.seed = seed;
    s.lb.policy = policy;
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::exponential_distribution<double> gapUs(1.0 / 1.1); // 32 KiB per 1.1 us: 240 Gb/s
    std::uniform_int_distribution<uint32_t> host(0, 7);
    double t = 0;
    for (int i = 0; i < 300; ++i)
    {
        t += gapUs(rng);
        AddFlow(s, host(rng), 8 + host(rng), 32 * 1024, static_cast<uint64_t>(t * 1e6));
    }
    if (dreAtEnqueue)
    {
        s.ns3Defaults["ns3::SwitchPort::DreAtEnqueue"] = "true"; // as [ns3] sets it
    }
    const tusk::RunResult r = Run(s);
    REQUIRE(r.finished);
    HerdResult out;
    for (const auto& f : r.flows)
    {
        out.meanSlowdown += f.slowdown / static_cast<double>(r.flows.size());
    }
    for (const auto& l : r.links)
    {
        if (l.from == "leaf0" && l.uplink)
        {
            out.maxUplinkQueue = std::max(out.maxUplinkQueue, l.maxQueueBytes);
        }
    }
    return out;
}

} // namespace

TEST_CASE("CONGA: short line-rate flowlets herd onto one uplink while the DRE counts only "
          "transmitted bytes, counted at enqueue they spread (DreAtEnqueue)",
          "[component][conga]")
{
    // Measured (mean slowdown, largest queue of leaf 0's uplinks), seeds 1-3:
    //   ECMP                      1.57 / 141 KB, 1.65 / 333 KB, 1.48 / 116 KB
    //   CONGA                     2.34 / 532 KB, 2.86 / 861 KB, 2.44 / 495 KB
    //   CONGA with DreAtEnqueue   1.69 / 166 KB, 1.75 / 249 KB, 1.57 / 158 KB
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        const HerdResult e = RunShortFlows("ecmp", false, seed);
        const HerdResult tx = RunShortFlows("conga", false, seed);
        const HerdResult enq = RunShortFlows("conga", true, seed);
        INFO("seed " << seed << ": mean slowdown / largest uplink queue (B): ECMP "
                     << e.meanSlowdown << " / " << e.maxUplinkQueue << ", CONGA "
                     << tx.meanSlowdown << " / " << tx.maxUplinkQueue
                     << ", CONGA with DreAtEnqueue " << enq.meanSlowdown << " / "
                     << enq.maxUplinkQueue);
        // The paper's DRE (transmitted bytes): CONGA herds, well above ECMP.
        CHECK(tx.meanSlowdown > 1.3 * e.meanSlowdown);
        CHECK(tx.maxUplinkQueue > 2 * e.maxUplinkQueue);
        // Counted at enqueue: the herd shows at once, CONGA close to ECMP.
        CHECK(enq.meanSlowdown < 0.8 * tx.meanSlowdown);
        CHECK(enq.meanSlowdown < 1.15 * e.meanSlowdown);
        CHECK(enq.maxUplinkQueue < tx.maxUplinkQueue / 2);
    }
}

namespace
{

/** Per iteration (collective) and source leaf: the uplink (links.csv link_id of the leaf's
 *  link to a spine, the second link of the path) each of the leaf's step-0 transfers took,
 *  keyed by (source host, channel). */
using Uplinks = std::map<std::pair<int32_t, uint32_t>, std::map<std::pair<uint32_t, int32_t>, uint32_t>>;

Uplinks
RingUplinks(const std::string& policy, uint64_t computeUs, uint64_t seed, double* cctUs)
{
    // A ring all-reduce over the 8 hosts of a 2-leaf, 4-spine leaf-spine, ranks alternating
    // leaves (as bench/iterations.toml's), 2 channels: at the start of every iteration each
    // leaf opens 8 transfers to the other leaf within a few hundred nanoseconds.
    tusk::ScenarioSpec s = LeafSpine(2, 4, 4, 100);
    s.seed = seed;
    s.lb.policy = policy;
    s.nic.receiver = "selective-repeat";
    s.workload.kind = "jobs";
    tusk::JobEntry j;
    j.name = "ring";
    j.placement = "explicit";
    j.hosts = {0, 4, 1, 5, 2, 6, 3, 7};
    j.iterations = 6;
    j.channels = 2;
    j.computePs = computeUs * 1'000'000;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 1 << 20;
    j.collectives.push_back(c);
    s.jobs.push_back(j);
    const tusk::RunResult r = Run(s);
    REQUIRE(r.finished);
    Uplinks out;
    *cctUs = 0;
    for (const auto& f : r.flows)
    {
        if (f.step != 0 || f.paths.empty() || f.paths[0].first.size() < 2)
        {
            continue;
        }
        out[{f.collective, f.src / 4}][{f.src, f.channel}] = f.paths[0].first[1];
    }
    for (const auto& col : r.collectives)
    {
        *cctUs += static_cast<double>(col.finishPs - col.startPs) / 1e6 / 6;
    }
    return out;
}

/** Of the (iteration > 0, leaf) pairs, how many sent all their step-0 transfers on one uplink. */
uint32_t
AllOnOneUplink(const Uplinks& u)
{
    uint32_t n = 0;
    for (const auto& [key, byConn] : u)
    {
        std::set<uint32_t> ports;
        for (const auto& [conn, link] : byConn)
        {
            ports.insert(link);
        }
        n += key.first > 0 && ports.size() == 1 ? 1 : 0;
    }
    return n;
}

} // namespace

TEST_CASE("CONGA: flowlets that start together after an idle gap longer than the flowlet gap "
          "all take the one uplink with the least metric",
          "[component][conga]")
{
    // CONGA's decision (Alizadeh et al., SIGCOMM 2014, section 3.4): a new flowlet takes the
    // uplink minimising max(local DRE, remote metric), random only among ties; the DRE
    // counts bytes as they are sent (section 3.3) and the remote metric changes only when
    // feedback returns, an RTT later. Flowlets that start within the same few hundred
    // nanoseconds (a collective's first step after compute) therefore read the same metrics,
    // and when one uplink is strictly least they all take it. Compute time longer than the
    // flowlet gap (50 us) makes every iteration's transfers new flowlets; shorter, most of
    // them continue the previous iteration's flowlets and keep their uplinks. LetFlow, random per
    // flowlet, puts 8 flowlets on one of 4 uplinks with probability 4^-7.
    // Measured 2026-12-06, seeds 1-5, (iteration, leaf) pairs of 10 with every step-0
    // transfer on one uplink: CONGA with 100 us of compute 9, 7, 10, 9, 8 (mean CCT 505-553
    // us); with 20 us 0, 0, 0, 0, 3 (237-407 us); LetFlow with 100 us 0 in all (270-327 us).
    for (uint64_t seed = 1; seed <= 4; ++seed)
    {
        double congaUs = 0;
        double congaShortUs = 0;
        double letflowUs = 0;
        const Uplinks gap = RingUplinks("conga", 100, seed, &congaUs);
        const Uplinks shortGap = RingUplinks("conga", 20, seed, &congaShortUs);
        const Uplinks letflow = RingUplinks("letflow", 100, seed, &letflowUs);
        INFO("seed " << seed << ": (iteration, leaf) pairs with every step-0 transfer on one "
                     << "uplink, of 10: CONGA compute 100 us " << AllOnOneUplink(gap)
                     << ", compute 20 us " << AllOnOneUplink(shortGap) << ", LetFlow "
                     << AllOnOneUplink(letflow) << "; mean CCT (us) " << congaUs << ", "
                     << congaShortUs << ", " << letflowUs);
        REQUIRE(gap.size() == 12);
        REQUIRE(shortGap.size() == 12);
        // After the gap: the leaf's new flowlets herd (ties, which split them, are rare).
        CHECK(AllOnOneUplink(gap) >= 7);
        CHECK(AllOnOneUplink(letflow) <= 1);
        // Compute shorter than the flowlet gap: most transfers continue the previous
        // iteration's flowlets and keep their uplinks, no synchronised decision, no herd.
        // (A connection idle longer than the flowlet gap while its rank waits still starts
        // a new flowlet, so a few herds remain.)
        CHECK(AllOnOneUplink(shortGap) < AllOnOneUplink(gap) / 2);
    }
}

} // namespace TUSK_TEST_FILE
