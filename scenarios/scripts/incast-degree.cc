// An incast-degree study written as a loop (docs/scripting.md): scenarios/lossless-incast.toml
// with 2, 4, 8 and 16 senders of 1 MiB each into one host, one run per degree, one table row
// per run. With PFC on nothing is dropped; the last flow ends near degree x 1 MiB / 100 Gb/s.
//
// Usage: incast-degree [lossless-incast.toml]
#include <tusk/api/scripting.h>

#include <cstdio>
#include <string>

int
main(int argc, char** argv)
{
    const std::string path =
        argc > 1 ? argv[1] : std::string(TUSK_SOURCE_DIR) + "/scenarios/lossless-incast.toml";
    try
    {
        // [loop]
        tusk::Scenario s = tusk::Scenario::Load(path);
        std::printf("%6s %12s %12s %10s %10s %8s\n", "degree", "max_fct_us", "ideal_us",
                    "p99_slow", "xoff_sent", "drops");
        for (int degree : {2, 4, 8, 16})
        {
            // Senders 0..degree-1, receiver `degree`.
            s.Set("workload.hosts", "0-" + std::to_string(degree)).Set("workload.incast_dst", degree);
            const tusk::RunResult r = s.Run();
            if (!r.failure.empty())
            {
                std::fprintf(stderr, "incast-degree: degree %d failed: %s\n", degree,
                             r.failure.c_str());
                return 1;
            }
            // The receiver's link is the bottleneck: every byte crosses it once.
            const double idealUs = degree * r.flows.front().bytes * 8.0 /
                                   r.spec.topology.leafSpine.hostRateBps * 1e6;
            std::printf("%6d %12.1f %12.1f %10.2f %10llu %8llu\n", degree, r.summary.maxFctUs,
                        idealUs, r.summary.p99Slowdown,
                        static_cast<unsigned long long>(r.summary.pfcPauses),
                        static_cast<unsigned long long>(r.summary.drops));
        }
        // [/loop]
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
