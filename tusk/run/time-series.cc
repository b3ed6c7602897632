#include "run/time-series.h"
#include "fabric/model/kernel/run-clock.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/shared-buffer-mmu.h"
#include "fabric/model/switch-node.h"
#include "fabric/model/switch-port.h"

#include "ns3/simulator.h"

namespace tusk
{

using namespace ns3;

namespace
{

uint64_t
PausedPs(const Ptr<SwitchPort>& dev, Time now)
{
    uint64_t total = 0;
    for (uint8_t p = 0; p < SwitchPort::kPriorities; ++p)
    {
        total += dev->GetPausedPs(p, now);
    }
    return total;
}

} // namespace

void
TimeSeriesSampler::AddPort(const SampledPort& port, Ptr<SwitchPort> dev)
{
    m_series.ports.push_back(port);
    m_devs.push_back(dev);
    m_lastTxBytes.push_back(dev->GetCounters().txBytes);
    m_lastWireBytes.push_back(dev->GetCounters().txWireBytes);
    m_lastPausedPs.push_back(PausedPs(dev, Simulator::Now()));
}

void
TimeSeriesSampler::AddSwitchPorts(const Fabric& fabric)
{
    for (const auto& l : fabric.links)
    {
        const TopoLink& tl = fabric.graph.links[l.graphLink];
        for (int dir = 0; dir < 2; ++dir)
        {
            Ptr<SwitchPort> port = DynamicCast<SwitchPort>(dir == 0 ? l.devA : l.devB);
            if (!port)
            {
                continue;
            }
            SampledPort p;
            p.link = l.graphLink;
            p.from = fabric.graph.vertices[dir == 0 ? tl.a : tl.b].name;
            p.to = fabric.graph.vertices[dir == 0 ? tl.b : tl.a].name;
            p.rateBps = port->GetRateBps();
            AddPort(p, port);
        }
    }
}

void
TimeSeriesSampler::AddSwitches(const Fabric& fabric)
{
    for (size_t s = 0; s < fabric.switches.size(); ++s)
    {
        if (!fabric.switches[s]->GetMmu())
        {
            continue;
        }
        m_series.switches.push_back(fabric.graph.vertices[fabric.graph.numHosts + s].name);
        m_switches.push_back(fabric.switches[s]);
    }
}

void
TimeSeriesSampler::Start(Time interval)
{
    m_interval = interval;
    m_series.intervalPs = static_cast<uint64_t>(interval.GetPicoSeconds());
    m_lastPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    Simulator::Schedule(interval, &TimeSeriesSampler::Sample, this);
}

void
TimeSeriesSampler::Sample()
{
    Record(static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
    Simulator::Schedule(m_interval, &TimeSeriesSampler::Sample, this);
}

void
TimeSeriesSampler::Finish(Time now)
{
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    if (m_series.intervalPs > 0 && nowPs > m_lastPs)
    {
        Record(nowPs);
    }
}

void
TimeSeriesSampler::Record(uint64_t nowPs)
{
    const double seconds = static_cast<double>(nowPs - m_lastPs) * 1e-12;
    // Rows carry the run's time (RunClock: steady-state jumps' skipped time added); the
    // counters and pauses are the simulator's, so a window across a jump has its rate.
    const uint64_t rowPs = nowPs + RunClock::SkippedPs();
    for (uint32_t i = 0; i < m_devs.size(); ++i)
    {
        const PortCounters& c = m_devs[i]->GetCounters();
        TimeSeriesRow row;
        row.timePs = rowPs;
        row.port = i;
        row.txBytes = c.txBytes - m_lastTxBytes[i];
        const uint64_t wire = c.txWireBytes - m_lastWireBytes[i];
        row.utilisation =
            seconds > 0 ? wire * 8.0 / (static_cast<double>(m_series.ports[i].rateBps) * seconds)
                        : 0.0;
        row.queueBytes = m_devs[i]->GetQueueBytes();
        const uint64_t paused = PausedPs(m_devs[i], PicoSeconds(nowPs));
        row.pausedPs = paused - m_lastPausedPs[i];
        m_lastPausedPs[i] = paused;
        m_lastTxBytes[i] = c.txBytes;
        m_lastWireBytes[i] = c.txWireBytes;
        m_series.rows.push_back(row);
    }
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const SwitchNode& sw = *m_switches[s];
        const SharedBufferMmu& mmu = *sw.GetMmu();
        SwitchSampleRow row;
        row.timePs = rowPs;
        row.sw = s;
        row.totalBytes = mmu.GetTotalUsed();
        row.reservedBytes = mmu.GetReservedPoolUsed();
        row.sharedBytes = mmu.GetSharedPoolUsed();
        row.headroomBytes = mmu.GetHeadroomPoolUsed();
        for (uint16_t p = 0; p < sw.GetNPorts(); ++p)
        {
            for (uint8_t q = 0; q < SwitchPort::kPriorities; ++q)
            {
                row.pausedIngress += sw.IsPausingIngress(p, q) ? 1 : 0;
            }
        }
        m_series.switchRows.push_back(row);
    }
    m_lastPs = nowPs;
}

TimeSeries
TimeSeriesSampler::Take()
{
    TimeSeries out = std::move(m_series);
    m_series = TimeSeries();
    m_devs.clear();
    m_switches.clear();
    m_lastTxBytes.clear();
    m_lastWireBytes.clear();
    m_lastPausedPs.clear();
    return out;
}

} // namespace tusk
