/*
 * tusk: [simulator], the simulation kernel.
 */
#include "scenario-sections.h"

#include <utility>

namespace tusk
{

namespace
{

using namespace knob;
using S = SimulatorSection;
const char* const kP = "simulator";

/** simulator.scheduler names and their ns-3 TypeIds, the default first. */
const std::vector<std::pair<std::string, std::string>>&
SchedulerTable()
{
    static const std::vector<std::pair<std::string, std::string>> table = {
        {"timing-wheel", "ns3::TimingWheelScheduler"},
        {"map", "ns3::MapScheduler"},
        {"heap", "ns3::HeapScheduler"},
        {"calendar", "ns3::CalendarScheduler"},
        {"list", "ns3::ListScheduler"},
        {"priority-queue", "ns3::PriorityQueueScheduler"},
    };
    return table;
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Choice<S>("scheduler", &S::scheduler, SchedulerNames(),
                  "ns-3 event scheduler. `\"timing-wheel\"`: `ns3::TimingWheelScheduler`, tusk's "
                  "(a timing wheel of 2^14 buckets of 4.1 ns, each sorted when served; "
                  "attributes `BucketWidthLog2`, `BucketsLog2` in `[ns3]`); `\"map\"`, "
                  "`\"heap\"`, `\"calendar\"`, `\"list\"`, `\"priority-queue\"`: ns-3's own. "
                  "Every scheduler gives the same results (events in time order, ties in "
                  "scheduling order); they differ in speed and memory "
                  "([performance.md](performance.md))."),
    };
    return rows;
}

} // namespace

const std::vector<std::string>&
SchedulerNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& [name, tid] : SchedulerTable())
        {
            n.push_back(name);
        }
        return n;
    }();
    return names;
}

std::string
SchedulerTypeId(const std::string& name)
{
    for (const auto& [n, tid] : SchedulerTable())
    {
        if (n == name)
        {
            return tid;
        }
    }
    return "";
}

Section
SimulatorKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::simulator);
}

} // namespace tusk
