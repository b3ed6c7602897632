/*
 * tusk: [output], where results go and what is recorded besides the tables.
 */
#include "scenario-sections.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = OutputSection;
const char* const kP = "output";

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Text<S>("dir", &S::dir,
                "Results directory, relative to the current directory; `\"\"` = "
                "`results/<name>/<policy>-s<seed>`."),
        Boolean<S>("pcap", &S::pcap,
                   "Write one pcap per host NIC (opens in Wireshark as RoCEv2)."),
        Time<S>("sample_us", &S::samplePs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                "Sampling interval of `timeseries.csv`: every switch egress port's transmitted "
                "bytes, utilisation, queue occupancy and PFC-paused time per interval "
                "([results-format.md](results-format.md)). `0` = off. One periodic event, off "
                "the forwarding path; the simulation itself is unchanged. 10 µs suits the "
                "report's heatmap; 1 ms of a 128-host fat tree (640 switch ports) at 10 µs is "
                "~3 MB."),
    };
    return rows;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    if (const toml::node* tn = r.Get(root, "", kP))
    {
        ReadKnobs(r, r.Table(tn, kP), kP, Rows(), spec.output);
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    root[kP] = WriteKnobs(Rows(), spec.output);
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{kP, kP, Docs(Rows())}};
}

} // namespace

Section
OutputKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
