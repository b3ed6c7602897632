/*
 * tusk: [output], where results go and what is recorded besides the tables.
 */
#include "scenario/scenario-sections.h"

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
                bounds::kSampleInterval,
                "Sampling interval of `timeseries.csv`: every switch egress port's transmitted "
                "bytes, utilisation, queue occupancy and PFC-paused time per interval "
                "([results-format.md](results-format.md)). `0` = off. One periodic event, off "
                "the forwarding path; the simulation itself is unchanged. 10 µs suits the "
                "report's heatmap; 1 ms of a 128-host fat tree (640 switch ports) at 10 µs is "
                "~3 MB. Also writes `switch_timeseries.csv`: each switch's MMU pools "
                "(reserved, shared, headroom) at each instant."),
        Boolean<S>("cc_trace", &S::ccTrace,
                   "Write `cc_trace.csv`: a row each time a QP's congestion control changes its "
                   "state (rate Rc, target rate Rt, α, window: what the CC in use has; "
                   "[results-format.md](results-format.md)), from the CC's `CcState` trace "
                   "source, connected only when this is `true`. Rows per QP: DCQCN one per CNP, "
                   "rate-increase event and α update (every 55 µs while α > 0); HPCC, Swift, "
                   "DCTCP, NSCC and TIMELY one per window or rate update (up to one per ACK)."),
    };
    return rows;
}

} // namespace

Section
OutputKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::output);
}

} // namespace tusk
