// A scenario program with a switch policy of one's own, outside tusk's tree
// (docs/scripting.md): min-queue.cc, linked in, registers "min-queue" (join the shortest
// queue), which runs here by that name next to ECMP.
//
// Usage: own-policy [SCENARIO.toml]   (default: a permutation on a 2x4 leaf-spine)
// Exit 0 if min-queue ran as ns3::MinQueueLoadBalancer and every flow ended within 1.2 x its
// ideal FCT (four flows per leaf over four spines: no collisions; ECMP's hash collides), else 1.

// [run]
#include <tusk/api/scripting.h>

#include <cstdio>

int
main(int argc, char** argv)
{
    try
    {
        tusk::Scenario s = argc > 1 ? tusk::Scenario::Load(argv[1]) : tusk::Scenario::FromString(R"(
name = "own-policy"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
receiver = "selective-repeat"   # per-packet choices reorder: IRN-style receivers
[workload]
kind = "permutation"
bytes = "1MB"
)");
        std::printf("%-10s %-28s %12s %10s\n", "policy", "switch TypeId", "max_fct_us", "max_slow");
        tusk::RunResult r;
        for (const char* policy : {"ecmp", "min-queue"})
        {
            r = s.Set("lb.policy", policy).Run();
            std::printf("%-10s %-28s %12.1f %10.2f\n", policy, r.policyTypeId.c_str(),
                        r.summary.maxFctUs, r.summary.maxSlowdown);
            if (!r.failure.empty())
            {
                std::fprintf(stderr, "own-policy: run failed: %s\n", r.failure.c_str());
                return 1;
            }
        }
        return r.policyTypeId == "ns3::MinQueueLoadBalancer" && r.summary.maxSlowdown < 1.2 ? 0 : 1;
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}
// [/run]
