// libFuzzer target: a flow-size CDF (HPCC traffic_gen format), its mean and samples, and the
// Poisson background made from it.
#include "fuzz-input.h"

#include "workload/model/background-traffic.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("cdf.txt", data, size, [](const std::string& path) {
        const ns3::FlowSizeCdf cdf = ns3::FlowSizeCdf::Read(path);
        (void)cdf.MeanBytes();
        for (double u : {0.0, 0.25, 0.5, 0.999999})
        {
            (void)cdf.Sample(u);
            (void)cdf.Sample(u, ns3::CdfSizeRounding::HpccTruncate);
        }
        ns3::BackgroundRequest r;
        r.hosts = {0, 1, 2, 3};
        r.hostRateBps = 100'000'000'000ULL;
        r.durationPs = 10'000'000; // 10 us
        (void)ns3::MakePoissonBackground(r, cdf);
    });
    return 0;
}
