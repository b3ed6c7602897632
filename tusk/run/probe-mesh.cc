/*
 * tusk: active monitoring probes between NICs (probe-mesh.h).
 */
#include "run/probe-mesh.h"

#include "fabric/helper/fabric-helper.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tusk
{

using namespace ns3;

namespace
{

/** The dynamic port range (RFC 6335), where RoCE NICs draw their UDP source ports. */
constexpr uint32_t kFirstDynamicPort = 49152;
constexpr uint32_t kLastDynamicPort = 65535;
/** Up to this many ports per target are drawn by rejection, more by a shuffle of the range. */
constexpr uint32_t kRejectionPorts = 64;

/** A probe's FrameMeta::psn: its size class in the top byte, its sequence number below. */
constexpr unsigned kClassShift = 56;
constexpr uint64_t kSeqMask = (uint64_t{1} << kClassShift) - 1;

/** A draw in [0, n) from a uniform stream. */
uint32_t
Draw(UniformRandomVariable& rng, uint32_t n)
{
    return rng.GetInteger(0, n - 1);
}

} // namespace

uint64_t
ProbeMesh::KeyOf(uint32_t src, uint32_t dst, uint16_t entropy, uint32_t cls, uint32_t hosts)
{
    return (((static_cast<uint64_t>(src) * hosts) + dst) << 16 | entropy) << 1 | cls;
}

void
ProbeMesh::Attach(const std::vector<Ptr<RdmaNic>>& nics,
                  const ProbeMeshConfig& config,
                  Ptr<UniformRandomVariable> rng,
                  std::function<bool()> done)
{
    NS_ABORT_MSG_IF(config.intervalPs == 0, "ProbeMesh: needs an interval");
    NS_ABORT_MSG_IF((config.largeBytes > 0) != (config.largeIntervalPs > 0),
                    "ProbeMesh: large probes need both a size and an interval");
    if (nics.size() < 2)
    {
        return; // no other host to probe: no stream, no probe
    }
    m_config = config;
    m_nics = nics;
    m_rng = rng;
    m_done = std::move(done);
    const auto hosts = static_cast<uint32_t>(nics.size());
    m_classes = config.largeBytes > 0 ? 2 : 1;
    m_first.assign(hosts + 1, 0);
    m_next.assign(m_classes * hosts, 0);
    m_pending.resize(m_classes * hosts);
    std::vector<uint32_t> others;
    std::vector<uint32_t> ports;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        m_first[h] = static_cast<uint32_t>(m_streams.size());
        // Targets: a partial Fisher-Yates shuffle of the other hosts.
        others.clear();
        for (uint32_t o = 0; o < hosts; ++o)
        {
            if (o != h)
            {
                others.push_back(o);
            }
        }
        const uint32_t targets = std::min<uint32_t>(config.targets, hosts - 1);
        for (uint32_t i = 0; i < targets; ++i)
        {
            std::swap(others[i], others[i + Draw(*rng, static_cast<uint32_t>(others.size()) - i)]);
        }
        for (uint32_t i = 0; i < targets; ++i)
        {
            // Distinct ports per target: by rejection while they are few (a handful of draws),
            // else a partial Fisher-Yates shuffle of the whole range.
            ports.clear();
            constexpr uint32_t kRange = kLastDynamicPort - kFirstDynamicPort + 1;
            const uint32_t want = std::min<uint32_t>(config.entropies, kRange);
            if (want <= kRejectionPorts)
            {
                while (ports.size() < want)
                {
                    const uint32_t p = rng->GetInteger(kFirstDynamicPort, kLastDynamicPort);
                    if (std::find(ports.begin(), ports.end(), p) == ports.end())
                    {
                        ports.push_back(p);
                    }
                }
            }
            else
            {
                ports.resize(kRange);
                for (uint32_t k = 0; k < kRange; ++k)
                {
                    ports[k] = kFirstDynamicPort + k;
                }
                for (uint32_t k = 0; k < want; ++k)
                {
                    std::swap(ports[k], ports[k + Draw(*rng, kRange - k)]);
                }
                ports.resize(want);
            }
            for (uint32_t p : ports)
            {
                Stream s;
                s.src = h;
                s.dst = others[i];
                s.entropy = static_cast<uint16_t>(p);
                m_index.emplace(KeyOf(s.src, s.dst, s.entropy, 0, hosts),
                                static_cast<uint32_t>(m_streams.size()));
                m_streams.push_back(std::move(s));
            }
        }
        // The large probes: the same (target, port) pairs, streams of their own.
        const size_t small = m_streams.size() - m_first[h];
        for (uint32_t c = 1; c < m_classes; ++c)
        {
            for (size_t k = 0; k < small; ++k)
            {
                Stream s;
                s.src = h;
                s.dst = m_streams[m_first[h] + k].dst;
                s.entropy = m_streams[m_first[h] + k].entropy;
                s.cls = static_cast<uint8_t>(c);
                m_index.emplace(KeyOf(s.src, s.dst, s.entropy, c, hosts),
                                static_cast<uint32_t>(m_streams.size()));
                m_streams.push_back(std::move(s));
            }
        }
    }
    m_first[hosts] = static_cast<uint32_t>(m_streams.size());
    for (uint32_t h = 0; h < hosts; ++h)
    {
        nics[h]->TraceConnectWithoutContext("ProbeReceived",
                                            MakeBoundCallback(&ProbeMesh::OnReceived, this));
    }
    // Each class's first probe of each host at a uniform offset in its first interval (whole
    // ps); class 0's drawn first, so that runs without large probes draw as before.
    for (uint32_t c = 0; c < m_classes; ++c)
    {
        const uint64_t interval = c == 0 ? config.intervalPs : config.largeIntervalPs;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            const uint64_t offset =
                static_cast<uint64_t>(rng->GetValue() * static_cast<double>(interval));
            m_pending[c * hosts + h] = Simulator::Schedule(
                PicoSeconds(std::min(offset, interval - 1)), &ProbeMesh::SendNext, this, c, h);
        }
    }
}

void
ProbeMesh::Stop()
{
    for (auto& e : m_pending)
    {
        e.Cancel();
    }
}

void
ProbeMesh::SendNext(uint32_t cls, uint32_t host)
{
    if ((m_done && m_done()) ||
        (m_config.untilPs > 0 &&
         static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()) >= m_config.untilPs))
    {
        return; // the workload is over (let the run end), or probing is
    }
    const auto hosts = static_cast<uint32_t>(m_nics.size());
    const uint32_t count = (m_first[host + 1] - m_first[host]) / m_classes;
    const uint32_t first = m_first[host] + cls * count;
    uint32_t& next = m_next[cls * hosts + host];
    if (count > 0)
    {
        Stream& s = m_streams[first + next];
        next = (next + 1) % count;
        s.outstanding.emplace_back(s.nextSeq,
                                   static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
        m_nics[host]->SendProbe(s.dst, s.entropy,
                                static_cast<uint64_t>(cls) << kClassShift | s.nextSeq++,
                                BytesOf(cls));
        ++m_sent;
    }
    m_pending[cls * hosts + host] =
        Simulator::Schedule(PicoSeconds(Gap(cls)), &ProbeMesh::SendNext, this, cls, host);
}

uint64_t
ProbeMesh::Gap(uint32_t cls)
{
    const uint64_t interval = cls == 0 ? m_config.intervalPs : m_config.largeIntervalPs;
    if (!m_config.poisson)
    {
        return interval;
    }
    // Exponential of mean `interval`, at least 1 ps (an event at the same instant would send
    // two probes at once).
    const double u = m_rng->GetValue();
    const double gap = -std::log1p(-u) * static_cast<double>(interval);
    return std::max<uint64_t>(1, static_cast<uint64_t>(gap + 0.5));
}

void
ProbeMesh::OnReceived(ProbeMesh* self, const FrameMeta& probe)
{
    const auto cls = static_cast<uint32_t>(probe.psn >> kClassShift);
    const auto it = self->m_index.find(KeyOf(probe.srcHost, probe.dstHost, probe.srcPort, cls,
                                             static_cast<uint32_t>(self->m_nics.size())));
    if (it == self->m_index.end())
    {
        return; // not one of this mesh's streams
    }
    Stream& s = self->m_streams[it->second];
    ++s.received;
    s.maxSeq = std::max<int64_t>(s.maxSeq, static_cast<int64_t>(probe.psn & kSeqMask));
    // Every probe up to the highest arrived is judged: only later ones stay outstanding.
    while (s.judgedUpTo < s.outstanding.size() &&
           static_cast<int64_t>(s.outstanding[s.judgedUpTo].first) <= s.maxSeq)
    {
        ++s.judgedUpTo;
    }
    if (2 * s.judgedUpTo >= s.outstanding.size())
    {
        s.outstanding.erase(s.outstanding.begin(),
                            s.outstanding.begin() + static_cast<std::ptrdiff_t>(s.judgedUpTo));
        s.judgedUpTo = 0;
    }
    const uint64_t now = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    s.owd.Add(static_cast<double>(now - probe.sackBits) * 1e-6);
    const uint64_t route = ReceivedPath(probe);
    for (auto& r : s.routes)
    {
        if (r.first == route)
        {
            ++r.second;
            return;
        }
    }
    s.routes.emplace_back(route, 1);
}

std::vector<ProbeRow>
ProbeMesh::Take(const Fabric& fabric, uint64_t endPs) const
{
    std::vector<ProbeRow> rows;
    rows.reserve(m_streams.size());
    for (const Stream& s : m_streams)
    {
        if (s.nextSeq == 0)
        {
            continue;
        }
        ProbeRow r;
        r.src = s.src;
        r.dst = s.dst;
        r.entropy = s.entropy;
        r.bytes = BytesOf(s.cls);
        r.sent = s.nextSeq;
        r.received = s.received;
        // Judged: up to the highest sequence number received, then those sent a timeout
        // before the end.
        uint64_t judged = static_cast<uint64_t>(s.maxSeq + 1);
        for (size_t k = s.judgedUpTo; k < s.outstanding.size(); ++k)
        {
            judged += s.outstanding[k].second + m_config.timeoutPs <= endPs;
        }
        r.judged = std::max(judged, s.received);
        r.losses = r.judged - s.received;
        r.owdMinUs = s.owd.Min();
        r.owdMedianUs = s.owd.Quantile(0.5);
        r.owdP99Us = s.owd.Quantile(0.99);
        for (const auto& [code, probes] : s.routes)
        {
            std::vector<uint32_t> links;
            if (code != kUnknownPath && fabric.DecodePath(s.src, code, links))
            {
                r.paths.emplace_back(std::move(links), probes);
            }
        }
        // A host with several NIC ports: which port a probe left by is not in its headers,
        // and port 0's trace would name the wrong plane's links. No trace.
        if (r.paths.empty() && r.losses > 0 && fabric.ports[s.src].size() == 1)
        {
            FrameMeta probe; // the stream's headers, as RdmaNic::SendProbe puts them
            probe.srcHost = s.src;
            probe.dstHost = s.dst;
            probe.dstQp = RdmaNic::kProbeQpn;
            probe.srcPort = s.entropy;
            probe.dstPort = kRoceV2UdpPort;
            probe.kind = FrameKind::PROBE;
            std::vector<uint32_t> links;
            if (fabric.TracePath(probe, 0, links))
            {
                r.tracedPath = std::move(links);
            }
        }
        rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end(), [](const ProbeRow& a, const ProbeRow& b) {
        return std::tie(a.src, a.dst, a.entropy, a.bytes) <
               std::tie(b.src, b.dst, b.entropy, b.bytes);
    });
    return rows;
}

} // namespace tusk
