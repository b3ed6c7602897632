// What a run shows of its models' internals: the per-QP
// congestion-control trace (cc_trace.csv) checked against DCQCN's update rules (Zhu et al.,
// SIGCOMM 2015, section 3 and its Figure 8 rate-increase stages), and the switch MMU's pools
// (switches.csv, switch_timeseries.csv) checked against the queues and against PFC.

#include "results/results-writer.h"
#include "run-helpers.h"
#include "run/run-stages.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/shared-buffer-mmu.h"
#include "fabric/model/switch-node.h"
#include "rdma/model/cc/dcqcn.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/simulator.h"

#include <cmath>
#include <functional>
#include <map>
#include <tuple>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

bool
Same(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

} // namespace

TEST_CASE("cc_trace: two DCQCN flows, every row a cut, a fast-recovery, additive or hyper step "
          "or an alpha decay, as the rules say",
          "[component][dcqcn][observability]")
{
    // A 10 MB and a 20 MB flow into one 100 G host port: ECN marks, CNPs, cuts and recovery
    // (the second flow alone at the end, the first one's timers still raising its rate). The paper
    // preset (g = 1/256, K = T = 55 us, F = 5, R_AI = 40 Mb/s, R_HAI = 200 Mb/s) without the
    // byte counter, so that every rate increase is a timer event and the timer alone counts
    // the stages (as a Mellanox NIC and the HPCC simulator): stage i <= F is fast recovery,
    // i = F + 1 additive increase, later ones hyper increase by R_HAI.
    auto spec = LeafSpine(1, 1, 3, 100, 1000);
    spec.nic.congestionControl = "dcqcn";
    spec.ecn.enabled = true;
    spec.dcqcn.preset = "paper";
    spec.dcqcn.byteCounterBytes = 0;
    spec.output.ccTrace = true;
    AddFlow(spec, 0, 2, 10'000'000);
    AddFlow(spec, 1, 2, 20'000'000);
    std::map<uint32_t, uint64_t> cnpsReacted; // by source host
    tusk::RunOptions o;
    o.afterRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        for (uint32_t h : {0u, 1u})
        {
            auto cc = DynamicCast<DcqcnCongestionControl>(
                nics[h]->GetQp(RdmaNic::kFirstQpn)->GetCongestionControl());
            REQUIRE(cc);
            cnpsReacted[h] = cc->GetCnpsReacted();
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    REQUIRE(!r.ccTrace.empty());

    const double line = 100e9;
    const double g = 1.0 / 256;
    const double rai = 40e6;
    const double rhai = 200e6;
    const uint32_t f = 5;
    struct Qp
    {
        double rc = 100e9, rt = 100e9, alpha = 1; // the state before the first row
        uint32_t stage = 0;                        // rate increases since the last cut
        uint64_t cuts = 0, fast = 0, additive = 0, hyper = 0, decays = 0;
        uint64_t lastPs = 0;
    };
    std::map<uint32_t, Qp> qps;
    for (const auto& row : r.ccTrace)
    {
        INFO("t " << row.timePs * 1e-6 << " us, host " << row.src << ": Rc " << row.rateBps
                  << " Rt " << row.targetRateBps << " alpha " << row.alpha);
        REQUIRE(row.dst == 2);
        REQUIRE(row.cc == "dcqcn");
        REQUIRE(std::isnan(row.windowBytes));
        CHECK(row.alpha >= 0);
        CHECK(row.alpha <= 1);
        Qp& q = qps[row.src];
        CHECK(row.timePs >= q.lastPs); // in time order
        q.lastPs = row.timePs;
        if (row.rateBps < q.rc)
        {
            // A CNP: Rt <- Rc, Rc <- Rc (1 - alpha / 2), alpha <- (1 - g) alpha + g.
            CHECK(Same(row.targetRateBps, q.rc));
            CHECK(Same(row.rateBps, std::max(100e6, q.rc * (1 - q.alpha / 2))));
            CHECK(Same(row.alpha, (1 - g) * q.alpha + g));
            ++q.cuts;
            q.stage = 0;
        }
        else if (row.alpha < q.alpha)
        {
            // No CNP for K: alpha <- (1 - g) alpha, the rates stay.
            CHECK(Same(row.alpha, (1 - g) * q.alpha));
            CHECK(row.rateBps == q.rc);
            CHECK(row.targetRateBps == q.rt);
            ++q.decays;
        }
        else
        {
            // A rate-increase event: stages 1..F fast recovery (Rt stays), F + 1 additive,
            // then hyper.
            ++q.stage;
            const double step = q.stage <= f ? 0 : q.stage == f + 1 ? rai : rhai;
            const double rt = std::min(line, q.rt + step);
            CHECK(Same(row.targetRateBps, rt));
            CHECK(Same(row.rateBps, std::min(line, (rt + q.rc) / 2)));
            ++(q.stage <= f ? q.fast : q.stage == f + 1 ? q.additive : q.hyper);
        }
        q.rc = row.rateBps;
        q.rt = row.targetRateBps;
        q.alpha = row.alpha;
    }
    REQUIRE(qps.size() == 2);
    for (const auto& [host, q] : qps)
    {
        INFO("host " << host << ": " << q.cuts << " cuts, " << q.fast << " fast-recovery, "
                     << q.additive << " additive and " << q.hyper << " hyper steps, " << q.decays
                     << " alpha decays");
        CHECK(q.cuts > 0);
        CHECK(q.cuts == cnpsReacted[host]); // one cut row per CNP the RP reacted to
        CHECK(q.fast > 0);
        CHECK(q.additive > 0);
        CHECK(q.hyper > 0);
        CHECK(q.decays > 0);
    }

    // The file: header, one line per row, empty cells for what DCQCN has not (the window).
    const std::string csv = tusk::CcTraceCsv(r);
    CHECK(csv.rfind("time_us,src,dst,qpn,cc,rate_gbps,target_gbps,alpha,window_bytes\n", 0) == 0);
    CHECK(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) == r.ccTrace.size() + 1);

    // Off by default: nothing is connected and nothing recorded.
    spec.output.ccTrace = false;
    CHECK(Run(spec).ccTrace.empty());
}

TEST_CASE("MMU pools over time: reserved + shared + headroom = the queued bytes, and headroom "
          "is used only while the ingress is paused (lossless incast)",
          "[component][pfc][observability]")
{
    // 8:1 incast of 1 MiB flows into one 100 G port, PFC on priority 3, a 4 MiB buffer: the
    // dynamic threshold (1/8 of the free shared buffer) is reached, XOFF goes out, and the
    // frames in flight during the pause reaction land in headroom.
    auto spec = LeafSpine(1, 1, 9, 100, 1000);
    spec.buffer.totalBytes = 4ULL << 20;
    for (uint32_t h = 0; h < 8; ++h)
    {
        AddFlow(spec, h, 8, 1ULL << 20);
    }
    spec.output.samplePs = 5'000'000; // 5 us
    uint64_t checks = 0;
    uint64_t headroomSeen = 0;
    std::vector<std::string> violations;
    std::function<void()> check;
    Fabric* fabric = nullptr;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric& fab, const std::vector<Ptr<RdmaNic>>&) {
        fabric = &fab;
        check = [&]() {
            ++checks;
            // The end-of-run invariants (run-invariants.cc), here at every 100 ns: each queue's
            // MMU count equals its bytes, the total equals the queues' sum, and the pools add up.
            for (const auto& v : tusk::InvariantViolations(tusk::RunResult{}, *fabric, ""))
            {
                violations.push_back(v);
            }
            for (const auto& sw : fabric->switches)
            {
                const auto mmu = sw->GetMmu();
                for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
                {
                    for (uint8_t pg = 0; pg < SharedBufferMmu::kPgs; ++pg)
                    {
                        if (mmu->GetHeadroomUsed(p, pg) > 0)
                        {
                            ++headroomSeen;
                            if (!sw->IsPausingIngress(p, pg))
                            {
                                violations.push_back("headroom used on port " + std::to_string(p) +
                                                     " without a pause");
                            }
                        }
                    }
                }
            }
            if (checks < 40'000)
            {
                Simulator::Schedule(NanoSeconds(100), check);
            }
        };
        Simulator::Schedule(NanoSeconds(100), check);
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    CHECK(r.summary.drops == 0);
    CHECK(r.summary.pfcPauses > 0);
    CHECK(checks > 6'000); // 8 MiB at 100 Gb/s: the incast lasts ~0.7 ms
    CHECK(headroomSeen > 0);
    CHECK(violations.empty());
    for (size_t i = 0; i < violations.size() && i < 5; ++i)
    {
        INFO(violations[i]);
        CHECK(false);
    }

    // switches.csv: the pools partition the buffer, each maximum within its pool and the total.
    REQUIRE(r.switchRows.size() == 2);
    const tusk::SwitchRow& leaf = r.switchRows[0];
    CHECK(leaf.name == "leaf0");
    CHECK(leaf.bufferBytes == 4ULL << 20);
    CHECK(leaf.reservedPoolBytes + leaf.headroomPoolBytes + leaf.sharedPoolBytes == leaf.bufferBytes);
    CHECK(leaf.maxHeadroomBytes > 0);
    CHECK(leaf.maxHeadroomBytes <= leaf.headroomPoolBytes);
    CHECK(leaf.maxSharedBytes <= leaf.sharedPoolBytes);
    CHECK(leaf.maxSharedBytes > 0);
    CHECK(leaf.maxTotalBytes >= leaf.maxSharedBytes);
    CHECK(leaf.maxTotalBytes <= leaf.maxReservedBytes + leaf.maxSharedBytes + leaf.maxHeadroomBytes);
    CHECK(r.switchRows[1].maxTotalBytes == 0); // the spine carries nothing

    // switch_timeseries.csv against timeseries.csv: at each instant a switch's pools add up to
    // its total, and the total is the sum of its ports' queue bytes; headroom only with a pause.
    const auto& ts = r.timeSeries;
    REQUIRE(ts.switches.size() == 2);
    std::map<std::pair<uint64_t, std::string>, uint64_t> queued; // (time, switch) -> bytes
    for (const auto& row : ts.rows)
    {
        queued[{row.timePs, ts.ports[row.port].from}] += row.queueBytes;
    }
    uint64_t withHeadroom = 0;
    REQUIRE(ts.switchRows.size() == 2 * (ts.rows.size() / ts.ports.size()));
    for (const auto& row : ts.switchRows)
    {
        INFO("t " << row.timePs * 1e-6 << " us " << ts.switches[row.sw]);
        CHECK(row.reservedBytes + row.sharedBytes + row.headroomBytes == row.totalBytes);
        CHECK(row.totalBytes == queued[{row.timePs, ts.switches[row.sw]}]);
        if (row.headroomBytes > 0)
        {
            ++withHeadroom;
            CHECK(row.pausedIngress > 0);
        }
    }
    CHECK(withHeadroom > 0);
    const std::string csv = tusk::SwitchTimeSeriesCsv(r);
    CHECK(csv.rfind("time_us,switch,total_bytes,reserved_bytes,shared_bytes,headroom_bytes,"
                    "paused_ingress\n",
                    0) == 0);
}

} // namespace TUSK_TEST_FILE
