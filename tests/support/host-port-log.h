// Shared by the component tests of hosts with several NIC ports (multi-plane and dual-ToR
// fabrics): what one host sent on each of its ports, and which plane the switches saw frames
// in, from the ports' Tx and Rx traces.
#ifndef TUSK_TEST_HOST_PORT_LOG_H
#define TUSK_TEST_HOST_PORT_LOG_H

#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-plane.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace tusk_test
{

/** What the traces of one host's ports and of the switches saw. */
struct HostPortLog
{
    uint32_t host = 0;                       //!< the host watched
    uint32_t ports = 1;                      //!< its NIC ports
    std::vector<uint64_t> txBytes;           //!< DATA frame bytes it sent, by port
    std::vector<uint64_t> txFrames;          //!< DATA frames it sent, by port
    uint64_t afterPs = std::numeric_limits<uint64_t>::max(); //!< start of txFramesAfter
    std::vector<uint64_t> txFramesAfter;     //!< DATA frames sent at or after afterPs, by port
    std::map<uint32_t, uint32_t> portsByDst; //!< destination host -> mask of ports DATA used
    uint64_t portMismatch = 0;               //!< DATA sent on a port != entropy mod ports
    uint64_t switchRx = 0;                   //!< frames switches received
    uint64_t wrongPlane = 0;                 //!< of those, at a switch of another plane than
                                             //!< entropy mod ports (multi-plane fabrics)
};

/** Connect the traces of `log` (its host and afterPs set) to the built fabric. */
inline void
WatchHostPorts(HostPortLog& log, ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics)
{
    using Trace = ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta&>;
    const auto& nic = nics[log.host];
    log.ports = nic->GetNPlanes();
    log.txBytes.assign(log.ports, 0);
    log.txFrames.assign(log.ports, 0);
    log.txFramesAfter.assign(log.ports, 0);
    for (uint32_t k = 0; k < log.ports; ++k)
    {
        nic->GetPlanePort(k)->TraceConnectWithoutContext(
            "Tx", Trace([&log, k](ns3::Ptr<const ns3::Packet> p, const ns3::FrameMeta& m) {
                if (m.kind != ns3::FrameKind::DATA)
                {
                    return;
                }
                log.txBytes[k] += p->GetSize();
                ++log.txFrames[k];
                if (static_cast<uint64_t>(ns3::Simulator::Now().GetPicoSeconds()) >= log.afterPs)
                {
                    ++log.txFramesAfter[k];
                }
                log.portsByDst[m.dstHost] |= 1u << k;
                log.portMismatch += ns3::PlaneOfEntropy(m.srcPort, log.ports) != k;
            }));
    }
    for (const auto& l : f.links)
    {
        for (uint32_t end : {f.graph.links[l.graphLink].a, f.graph.links[l.graphLink].b})
        {
            if (end < f.graph.numHosts)
            {
                continue;
            }
            const uint32_t plane = f.graph.vertices[end].plane;
            auto dev = end == f.graph.links[l.graphLink].a ? l.devA : l.devB;
            dev->TraceConnectWithoutContext(
                "Rx", Trace([&log, plane](ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta& m) {
                    ++log.switchRx;
                    log.wrongPlane += ns3::PlaneOfEntropy(m.srcPort, log.ports) != plane;
                }));
        }
    }
}

/** Run `s` with `log` watching. */
inline tusk::RunResult
RunWatched(const tusk::ScenarioSpec& s, HostPortLog& log)
{
    tusk::RunOptions o;
    o.beforeRun = [&log](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        WatchHostPorts(log, f, nics);
    };
    return Run(s, o);
}

} // namespace tusk_test

#endif
