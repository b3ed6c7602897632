// Shared helpers for component tests: small scenarios built in code, run through the same
// Runner as `tusk run`, with packet conservation asserted on every run.
#ifndef TUSK_TEST_RUN_HELPERS_H
#define TUSK_TEST_RUN_HELPERS_H

#include "run/runner.h"
#include "scenario/scenario-spec.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace tusk_test
{

/** A leaf-spine spec with `flows` kind workload and no flows yet. Rates in Gb/s. */
inline tusk::ScenarioSpec
LeafSpine(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf, uint64_t gbps = 100,
          uint64_t delayNs = 1000)
{
    tusk::ScenarioSpec s;
    s.name = "test";
    s.topology.kind = "leaf-spine";
    s.topology.leafSpine.leaves = leaves;
    s.topology.leafSpine.spines = spines;
    s.topology.leafSpine.hostsPerLeaf = hostsPerLeaf;
    s.topology.leafSpine.hostRateBps = gbps * 1'000'000'000ULL;
    s.topology.leafSpine.fabricRateBps = gbps * 1'000'000'000ULL;
    s.topology.leafSpine.linkDelayPs = delayNs * 1000;
    s.workload.kind = "flows";
    s.buffer.totalBytes = 64ULL << 20;
    return s;
}

/** A k-ary fat-tree spec (1:1) with `flows` kind workload and no flows yet. Rates in Gb/s. */
inline tusk::ScenarioSpec
FatTree(uint32_t k, uint64_t hostGbps = 100, uint64_t fabricGbps = 100)
{
    tusk::ScenarioSpec s;
    s.name = "test";
    s.topology.kind = "fat-tree";
    s.topology.fatTree.k = k;
    s.topology.fatTree.hostRateBps = hostGbps * 1'000'000'000ULL;
    s.topology.fatTree.fabricRateBps = fabricGbps * 1'000'000'000ULL;
    s.workload.kind = "flows";
    s.buffer.totalBytes = 32ULL << 20;
    return s;
}

inline void
AddFlow(tusk::ScenarioSpec& s, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t startPs = 0)
{
    tusk::FlowEntry f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.startPs = startPs;
    s.workload.flows.push_back(f);
}

/** The longest flow completion time of a run, µs. */
inline double
MaxFctUs(const tusk::RunResult& r)
{
    double fct = 0;
    for (const auto& f : r.flows)
    {
        fct = std::max(fct, static_cast<double>(f.fctPs) / 1e6);
    }
    return fct;
}

/** Run quietly; every run of the suite checks packet conservation. */
inline tusk::RunResult
Run(const tusk::ScenarioSpec& s, tusk::RunOptions o = tusk::RunOptions())
{
    o.progress = false;
    tusk::RunResult r = tusk::RunScenario(s, o);
    INFO("conservation: sent " << r.conservation.sent << " received " << r.conservation.received
                               << " dropped " << r.conservation.dropped << " in flight "
                               << r.conservation.inFlight);
    REQUIRE(r.conservation.Holds());
    return r;
}

} // namespace tusk_test

#endif
