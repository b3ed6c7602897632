// A topology built in code (docs/scripting.md): a leaf-spine of 4 leaves x 4 spines with 2
// hosts per leaf in which spine 3's links run at a quarter of the others' rate. ECMP hashes as
// many flows onto the slow spine as onto the fast ones; DRILL (per packet, the shorter of two
// sampled queues, with IRN-style selective-repeat receivers that tolerate the reordering) sends
// it less. Prints the bytes each spine carried and the slowest flow per policy; exit 1 if
// DRILL did not send the slow spine fewer bytes than every fast one.
//
// Usage: asymmetric-spine [OUT_DIR]   (OUT_DIR receives the topology file)
#include <tusk/api/scripting.h>

#include <cstdio>
#include <map>
#include <string>

int
main(int argc, char** argv)
{
    const std::string dir = argc > 1 ? argv[1] : ".";
    try
    {
        // [topology]
        const int leaves = 4, spines = 4, hostsPerLeaf = 2;
        tusk::Topology t;
        std::vector<uint32_t> leaf, spine;
        for (int h = 0; h < leaves * hostsPerLeaf; ++h)
        {
            t.AddHost(); // hosts first: host h is node h
        }
        for (int l = 0; l < leaves; ++l)
        {
            leaf.push_back(t.AddSwitch());
        }
        for (int s = 0; s < spines; ++s)
        {
            spine.push_back(t.AddSwitch());
        }
        for (int h = 0; h < leaves * hostsPerLeaf; ++h)
        {
            t.AddLink(h, leaf[h / hostsPerLeaf], 100, 1000); // 100 Gb/s, 1 µs
        }
        for (int l = 0; l < leaves; ++l)
        {
            for (int s = 0; s < spines; ++s)
            {
                t.AddLink(leaf[l], spine[s], s == spines - 1 ? 25 : 100, 1000); // the slow spine
            }
        }
        tusk::Scenario sc = tusk::Scenario::FromString(R"(
name = "asymmetric-spine"
[nic]
receiver = "selective-repeat"
[workload]
kind = "permutation"
bytes = "2MB"
)");
        sc.UseTopology(t, dir + "/asymmetric-spine.topology.txt");
        // [/topology]

        // Switch vertex names of an HPCC-format topology are "node<id>".
        std::printf("%-8s %12s", "policy", "max_fct_us");
        for (int s = 0; s < spines; ++s)
        {
            std::printf(" %9s", ("spine" + std::to_string(s) + "_MB").c_str());
        }
        std::printf("\n");
        bool slowSpineAvoided = false;
        for (const char* policy : {"ecmp", "drill"})
        {
            const tusk::RunResult r = sc.Set("lb.policy", policy).Run();
            if (!r.failure.empty())
            {
                std::fprintf(stderr, "asymmetric-spine: %s failed: %s\n", policy, r.failure.c_str());
                return 1;
            }
            std::map<std::string, uint64_t> bytesInto; // bytes sent up into each spine
            for (const tusk::LinkRow& l : r.links)
            {
                bytesInto[l.to] += l.txBytes;
            }
            std::printf("%-8s %12.1f", policy, r.summary.maxFctUs);
            for (int s = 0; s < spines; ++s)
            {
                std::printf(" %9.2f", bytesInto["node" + std::to_string(spine[s])] / 1e6);
            }
            std::printf("\n");
            const uint64_t slow = bytesInto["node" + std::to_string(spine.back())];
            slowSpineAvoided = true; // for the last policy, drill
            for (int s = 0; s + 1 < spines; ++s)
            {
                slowSpineAvoided &= slow < bytesInto["node" + std::to_string(spine[s])];
            }
        }
        if (!slowSpineAvoided)
        {
            std::fprintf(stderr, "asymmetric-spine: drill sent the slow spine as much as a fast one\n");
            return 1;
        }
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
