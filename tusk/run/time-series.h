/*
 * tusk: TimeSeriesSampler, periodic samples of every switch egress port (timeseries.csv).
 *
 * Off the forwarding path: one Simulator event per sampling interval reads the ports'
 * counters (bytes transmitted and PFC-paused time, running 64-bit sums) and their
 * instantaneous egress occupancy. Enabled by `[output] sample_us` > 0.
 */
#ifndef TUSK_TIME_SERIES_H
#define TUSK_TIME_SERIES_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
class SwitchPort;
class SwitchNode;
struct Fabric;
} // namespace ns3

namespace tusk
{

/** One sampled port direction: a switch egress port and the link it transmits on. */
struct SampledPort
{
    uint32_t link = 0;    //!< link_id, as in links.csv
    std::string from;     //!< the switch
    std::string to;       //!< the vertex at the other end
    uint64_t rateBps = 0;
};

/** One row of timeseries.csv: one port over the interval (timePs - intervalPs, timePs]. */
struct TimeSeriesRow
{
    uint64_t timePs = 0;     //!< the sample instant (end of the interval)
    uint32_t port = 0;       //!< index into TimeSeries::ports
    uint64_t txBytes = 0;    //!< frame bytes that started transmission in the interval
    double utilisation = 0;  //!< wire bytes (incl. PHY overhead) * 8 / (rate * interval)
    uint64_t queueBytes = 0; //!< egress occupancy at the sample instant, all priorities
    uint64_t pausedPs = 0;   //!< time the port's transmitter was PFC-paused in the interval,
                             //!< summed over priorities
};

/** One row of switch_timeseries.csv: one switch's MMU at a sample instant (bytes). */
struct SwitchSampleRow
{
    uint64_t timePs = 0;
    uint32_t sw = 0;          //!< index into TimeSeries::switches
    uint64_t totalBytes = 0;  //!< = reserved + shared + headroom = the bytes its queues hold
    uint64_t reservedBytes = 0;
    uint64_t sharedBytes = 0;
    uint64_t headroomBytes = 0;
    uint32_t pausedIngress = 0; //!< (ingress port, priority) pairs under XOFF at that instant
};

/** The sampled series of a run: ports, then rows in time order (ports in order within a time);
 *  switches likewise. */
struct TimeSeries
{
    uint64_t intervalPs = 0; //!< 0: sampling was off
    std::vector<SampledPort> ports;
    std::vector<TimeSeriesRow> rows;
    std::vector<std::string> switches; //!< switch names, vertex order
    std::vector<SwitchSampleRow> switchRows;
};

/**
 * \brief Samples switch ports every `interval` of simulated time. Add the ports, Start() before
 * Simulator::Run, Finish() after it (closes the last, possibly shorter, interval).
 */
class TimeSeriesSampler
{
  public:
    void AddPort(const SampledPort& port, ns3::Ptr<ns3::SwitchPort> dev);
    /** Add every switch egress port of `fabric` (both directions of switch-switch links, the
     *  switch side of host links), in links.csv order. */
    void AddSwitchPorts(const ns3::Fabric& fabric);
    /** Add every switch's MMU (switch_timeseries.csv: its pools' occupancy at each instant). */
    void AddSwitches(const ns3::Fabric& fabric);
    void Start(ns3::Time interval);
    void Finish(ns3::Time now);
    /** Move the collected series out (the sampler is empty afterwards). */
    TimeSeries Take();

  private:
    void Sample();
    void Record(uint64_t nowPs);

    TimeSeries m_series;
    std::vector<ns3::Ptr<ns3::SwitchPort>> m_devs;
    std::vector<ns3::Ptr<ns3::SwitchNode>> m_switches;
    std::vector<uint64_t> m_lastTxBytes;
    std::vector<uint64_t> m_lastWireBytes;
    std::vector<uint64_t> m_lastPausedPs;
    uint64_t m_lastPs = 0;
    ns3::Time m_interval;
};

} // namespace tusk

#endif
