/*
 * tusk: per-path telemetry (paths.csv), collected from the QPs' and path selectors' trace
 * sources. See path-telemetry.h.
 */
#include "run/path-telemetry.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-plane.h"
#include "rdma/model/headers/roce-header.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tusk
{

using namespace ns3;

RelativeErrorSketch::RelativeErrorSketch(double alpha)
{
    if (!(alpha > 0 && alpha < 1))
    {
        throw std::invalid_argument("RelativeErrorSketch: alpha must be in (0, 1)");
    }
    m_gamma = (1 + alpha) / (1 - alpha);
    m_logGamma = std::log(m_gamma);
}

void
RelativeErrorSketch::Add(double x)
{
    m_min = m_count == 0 ? x : std::min(m_min, x);
    ++m_count;
    // Values below 1e-9 (of whatever unit) share the lowest bucket.
    const double v = std::max(x, 1e-9);
    const auto i = static_cast<int32_t>(std::ceil(std::log(v) / m_logGamma));
    auto it = std::lower_bound(m_buckets.begin(), m_buckets.end(), i,
                               [](const std::pair<int32_t, uint64_t>& b, int32_t k) {
                                   return b.first < k;
                               });
    if (it != m_buckets.end() && it->first == i)
    {
        ++it->second;
    }
    else
    {
        m_buckets.insert(it, {i, 1});
    }
}

double
RelativeErrorSketch::Quantile(double q) const
{
    if (m_count == 0)
    {
        return 0.0;
    }
    q = std::clamp(q, 0.0, 1.0);
    const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(m_count - 1)));
    uint64_t seen = 0;
    for (const auto& [i, n] : m_buckets)
    {
        seen += n;
        if (seen > rank)
        {
            // The bucket (g^(i-1), g^i]: its midpoint in relative terms, never below the minimum.
            return std::max(m_min, 2 * std::pow(m_gamma, i) / (m_gamma + 1));
        }
    }
    return std::max(m_min, 2 * std::pow(m_gamma, m_buckets.back().first) / (m_gamma + 1));
}

void
PathTelemetryCollector::Attach(const std::vector<Ptr<RdmaNic>>& nics, const Fabric* fabric,
                               bool routes)
{
    m_nics = nics;
    m_fabric = fabric;
    m_routes = routes;
    for (uint32_t h = 0; h < nics.size(); ++h)
    {
        nics[h]->TraceConnectWithoutContext(
            "QpCreated", MakeBoundCallback(&PathTelemetryCollector::OnQpCreated, this, h));
    }
    if (fabric)
    {
        // Which copies the fabric dropped: a copy that never arrived is lost only then, not
        // when it was still on its way as the run ended (a late original overtaken by its
        // resend on a slow path).
        for (const FabricLink& l : fabric->links)
        {
            for (const auto& dev : {l.devA, l.devB})
            {
                if (dev)
                {
                    dev->TraceConnectWithoutContext(
                        "Drop", MakeBoundCallback(&PathTelemetryCollector::OnDropped, this));
                }
            }
        }
    }
}

void
PathTelemetryCollector::OnDropped(PathTelemetryCollector* self, Ptr<const Packet>,
                                  const FrameMeta& meta, DropReason)
{
    if (meta.kind != FrameKind::DATA)
    {
        return;
    }
    const auto r = self->m_byQpn.find({meta.dstHost, meta.dstQp});
    if (r == self->m_byQpn.end())
    {
        return;
    }
    QpState* receiver = r->second;
    if (receiver->peer == nullptr)
    {
        const auto it = self->m_byQpn.find(
            {receiver->qp->GetPeerHost(), receiver->qp->GetPeerQpn()});
        if (it == self->m_byQpn.end())
        {
            return;
        }
        receiver->peer = it->second;
    }
    const auto c = receiver->peer->copies.find(meta.psn);
    if (c == receiver->peer->copies.end())
    {
        return;
    }
    // The copy: the original, or the first resend with this entropy neither arrived nor
    // dropped yet.
    const bool resent = (meta.bthFlags & kBthRetx) != 0;
    auto& sent = c->second.sent;
    for (size_t i = resent ? 1 : 0; i < sent.size() && i < 32; ++i)
    {
        const uint32_t bit = 1u << i;
        if (!sent[i].second && !(c->second.dropped & bit) && sent[i].first == meta.srcPort)
        {
            c->second.dropped |= bit;
            return;
        }
        if (!resent)
        {
            return; // only copy 0 is the original
        }
    }
}

void
PathTelemetryCollector::OnQpCreated(PathTelemetryCollector* self, uint32_t host,
                                    Ptr<RdmaQueuePair> qp)
{
    self->m_qps.emplace_back();
    QpState* q = &self->m_qps.back();
    q->self = self;
    q->host = host;
    q->qp = qp;
    self->m_byQpn[{host, qp->GetQpn()}] = q;
    qp->TraceConnectWithoutContext("PacketSent", MakeBoundCallback(&OnSent, q));
    qp->TraceConnectWithoutContext("PacketRetransmitted", MakeBoundCallback(&OnResent, q));
    qp->TraceConnectWithoutContext("PacketAcked", MakeBoundCallback(&OnAcked, q));
    qp->TraceConnectWithoutContext("NakReceived", MakeBoundCallback(&OnNak, q));
    qp->TraceConnectWithoutContext("PacketReceived", MakeBoundCallback(&OnReceived, q));
    qp->GetPathSelector()->TraceConnectWithoutContext("Feedback",
                                                      MakeBoundCallback(&OnFeedback, q));
}

void
PathTelemetryCollector::Note(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy,
                             bool resent)
{
    EntropyStats& e = q->entropies[entropy];
    ++e.packets;
    e.bytes += payload;
    e.retx += resent ? 1 : 0;
    q->outstanding[psn] = Outstanding{entropy, resent, payload};
    Copies& c = q->copies[psn];
    if (!resent)
    {
        c = Copies();
    }
    c.sent.emplace_back(entropy, false);
}

void
PathTelemetryCollector::ChargeLosses(QpState* q, const Copies& c)
{
    size_t last = c.sent.size();
    for (size_t i = c.sent.size(); i-- > 0;)
    {
        if (c.sent[i].second)
        {
            last = i;
            break;
        }
    }
    for (size_t i = 0; i < last && last < c.sent.size(); ++i)
    {
        // Not arrived and dropped (copies past the 32nd have no bit: judged as before). Not
        // arrived and not dropped: on its way when the run ended, not judged.
        if (!c.sent[i].second && (i >= 32 || (c.dropped >> i) & 1u))
        {
            ++q->entropies[c.sent[i].first].losses;
        }
    }
}

void
PathTelemetryCollector::OnSent(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy)
{
    q->self->Note(q, psn, payload, entropy, false);
}

void
PathTelemetryCollector::Trace(QpState* q, uint16_t entropy)
{
    EntropyStats& e = q->entropies[entropy];
    if (e.traced)
    {
        return;
    }
    e.traced = true;
    // The probe: the lost copy's headers, as RdmaNic puts them on a data frame.
    FrameMeta probe;
    probe.srcHost = q->host;
    probe.dstHost = q->qp->GetPeerHost();
    probe.dstQp = q->qp->GetPeerQpn();
    probe.srcPort = entropy;
    probe.dstPort = kRoceV2UdpPort;
    probe.priority = q->qp->GetPriority();
    probe.kind = FrameKind::DATA;
    // The NIC port (plane) the copy left by: its entropy's, among the ports whose link is up.
    const auto& hostLinks = m_fabric->ports[q->host];
    uint32_t upMask = 0;
    for (uint32_t k = 0; k < hostLinks.size() && k < 32; ++k)
    {
        const FabricLink& l = m_fabric->links[hostLinks[k]];
        const Ptr<FabricNetDevice>& dev = m_fabric->graph.links[hostLinks[k]].a == q->host
                                              ? l.devA
                                              : l.devB;
        upMask |= dev->IsLinkUp() ? 1u << k : 0u;
    }
    const uint32_t port =
        PortOfEntropy(entropy, static_cast<uint32_t>(hostLinks.size()), upMask);
    std::vector<uint32_t> links;
    if (m_fabric->TracePath(probe, port, links))
    {
        e.traceLinks = std::move(links);
    }
}

void
PathTelemetryCollector::OnResent(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy)
{
    // The sender judged a copy of this PSN lost: traceroute the entropies of its earlier
    // copies not seen to arrive (the receiver's reports say which arrived, as `losses`).
    if (q->self->m_fabric)
    {
        const auto c = q->copies.find(psn);
        if (c != q->copies.end())
        {
            for (const auto& [sentEntropy, arrived] : c->second.sent)
            {
                if (!arrived)
                {
                    q->self->Trace(q, sentEntropy);
                }
            }
        }
    }
    q->self->Note(q, psn, payload, entropy, true);
}

void
PathTelemetryCollector::OnAcked(QpState* q, uint64_t psn, uint16_t entropy, bool ecn, Time rtt)
{
    EntropyStats& e = q->entropies[entropy];
    e.ecn += ecn ? 1 : 0;
    const auto it = q->outstanding.find(psn);
    // Karn's rule, as the requester applies it: a resent packet's ACK gives no RTT sample.
    const bool resent = it != q->outstanding.end() && it->second.resent;
    if (!resent)
    {
        e.rtt.Add(rtt.GetPicoSeconds() * 1e-6);
    }
    if (it != q->outstanding.end())
    {
        q->outstanding.erase(it);
    }
    if (q->self->m_routes)
    {
        // The ACK echoes the route its data frame took (the latest copy to arrive).
        const auto r = q->arrivedRoute.find(psn);
        if (r != q->arrivedRoute.end())
        {
            RouteStats& rs = RouteOf(q->entropies[r->second.first], r->second.second);
            rs.ecn += ecn ? 1 : 0;
            if (!resent)
            {
                rs.rtt.Add(rtt.GetPicoSeconds() * 1e-6);
            }
            q->arrivedRoute.erase(r);
        }
        else if (!resent)
        {
            e.unroutedRtt.Add(rtt.GetPicoSeconds() * 1e-6);
        }
    }
    const auto c = q->copies.find(psn);
    if (c != q->copies.end())
    {
        c->second.acked = true;
        if (std::all_of(c->second.sent.begin(), c->second.sent.end(),
                        [](const auto& s) { return s.second; }))
        {
            q->copies.erase(c);
        }
    }
}

void
PathTelemetryCollector::OnNak(QpState* q, uint64_t psn, bool trim)
{
    if (!trim)
    {
        return; // a go-back-N NAK names the receiver's ePSN; the loss is in Feedback
    }
    const auto it = q->outstanding.find(psn);
    if (it != q->outstanding.end())
    {
        EntropyStats& e = q->entropies[it->second.entropy];
        ++e.trims;
        if (q->self->m_routes)
        {
            // The trimmed header arrived by a route, which the trim NACK echoes.
            const auto r = q->arrivedRoute.find(psn);
            if (r != q->arrivedRoute.end())
            {
                ++RouteOf(q->entropies[r->second.first], r->second.second).trims;
            }
        }
    }
}

void
PathTelemetryCollector::OnFeedback(QpState* q, uint16_t entropy, PathSelector::Feedback fb)
{
    if (fb == PathSelector::NACK)
    {
        ++q->entropies[entropy].lossFeedback;
    }
    else if (fb == PathSelector::TIMEOUT)
    {
        ++q->entropies[entropy].timeouts;
    }
}

void
PathTelemetryCollector::OnReceived(QpState* q, uint64_t psn, bool, uint64_t path,
                                   uint16_t entropy, bool resent)
{
    if (q->peer == nullptr)
    {
        const auto it = q->self->m_byQpn.find({q->qp->GetPeerHost(), q->qp->GetPeerQpn()});
        if (it == q->self->m_byQpn.end())
        {
            return;
        }
        q->peer = it->second;
    }
    // Which copy arrived: the original, or the first resend with this entropy still on its
    // way (any still on its way if none matches).
    const auto c = q->peer->copies.find(psn);
    if (c != q->peer->copies.end())
    {
        auto& sent = c->second.sent;
        size_t k = sent.size();
        if (!resent)
        {
            k = sent[0].second ? sent.size() : 0;
        }
        else
        {
            for (size_t i = 1; i < sent.size(); ++i)
            {
                if (!sent[i].second && (sent[i].first == entropy || k == sent.size()))
                {
                    k = i;
                    if (sent[i].first == entropy)
                    {
                        break;
                    }
                }
            }
        }
        if (k < sent.size())
        {
            sent[k].second = true;
            if (c->second.acked && std::all_of(sent.begin(), sent.end(),
                                               [](const auto& s) { return s.second; }))
            {
                q->peer->copies.erase(c);
            }
        }
    }
    // The entropy the sender gave this PSN's latest copy; a frame arriving after its PSN was
    // acknowledged (a spurious resend) is not attributed.
    const auto it = q->peer->outstanding.find(psn);
    if (it == q->peer->outstanding.end())
    {
        return;
    }
    if (q->self->m_routes)
    {
        // By the entropy this frame carried (a late original may carry another than the
        // PSN's latest copy), so that each entropy's undelivered copies hold its losses.
        RouteStats& rs = RouteOf(q->peer->entropies[entropy], path);
        const double nowUs = static_cast<double>(Simulator::Now().GetPicoSeconds()) * 1e-6;
        rs.firstUs = rs.packets == 0 ? nowUs : rs.firstUs;
        rs.lastUs = nowUs;
        ++rs.packets;
        rs.bytes += it->second.payload;
        rs.retx += resent ? 1 : 0;
        q->peer->arrivedRoute[psn] = {entropy, path};
    }
    auto& paths = q->peer->entropies[it->second.entropy].paths;
    for (auto p = paths.rbegin(); p != paths.rend(); ++p)
    {
        if (p->first == path)
        {
            ++p->second;
            return;
        }
    }
    paths.emplace_back(path, 1);
}

PathTelemetryCollector::RouteStats&
PathTelemetryCollector::RouteOf(EntropyStats& e, uint64_t route)
{
    for (auto r = e.routes.rbegin(); r != e.routes.rend(); ++r)
    {
        if (r->first == route)
        {
            return r->second;
        }
    }
    e.routes.emplace_back(route, RouteStats());
    return e.routes.back().second;
}

void
PathTelemetryCollector::TakeRoutes(const Fabric& fabric, const QpState& q, uint32_t qpn,
                                   uint16_t entropy, const EntropyStats& e,
                                   std::vector<PathTelemetryRow>& rows)
{
    const uint32_t src = q.host;
    const uint32_t hostPorts = static_cast<uint32_t>(fabric.ports[src].size());
    // What the route rows count; the rest goes to the entropy's row without a route.
    uint64_t packets = 0, bytes = 0, retx = 0, ecn = 0, trims = 0;
    for (const auto& [code, rs] : e.routes)
    {
        std::vector<uint32_t> links;
        // A multi-plane host: the frame left by the port of its entropy's plane.
        if (!ns3::DecodeHostPortPath(fabric.graph, fabric.ports, src,
                                     ns3::PlaneOfEntropy(entropy, hostPorts), code, links))
        {
            continue; // not decoded: counted on the row without a route (its RTTs are not)
        }
        PathTelemetryRow r;
        r.src = src;
        r.dst = q.qp->GetPeerHost();
        r.qpn = qpn;
        r.entropy = entropy;
        r.packets = rs.packets;
        r.bytes = rs.bytes;
        r.retxPackets = rs.retx;
        r.rttSamples = rs.rtt.Count();
        r.rttMinUs = rs.rtt.Min();
        r.rttMedianUs = rs.rtt.Quantile(0.5);
        r.rttP99Us = rs.rtt.Quantile(0.99);
        r.ecnAcks = rs.ecn;
        r.trims = rs.trims;
        r.route = links;
        r.firstArrivalUs = rs.firstUs;
        r.lastArrivalUs = rs.lastUs;
        r.paths.emplace_back(std::move(links), rs.packets);
        packets += rs.packets;
        bytes += rs.bytes;
        retx += rs.retx;
        ecn += rs.ecn;
        trims += rs.trims;
        rows.push_back(std::move(r));
    }
    PathTelemetryRow r;
    r.src = src;
    r.dst = q.qp->GetPeerHost();
    r.qpn = qpn;
    r.entropy = entropy;
    r.packets = e.packets - std::min(e.packets, packets);
    r.bytes = e.bytes - std::min(e.bytes, bytes);
    r.retxPackets = e.retx - std::min(e.retx, retx);
    r.rttSamples = e.unroutedRtt.Count();
    r.rttMinUs = e.unroutedRtt.Min();
    r.rttMedianUs = e.unroutedRtt.Quantile(0.5);
    r.rttP99Us = e.unroutedRtt.Quantile(0.99);
    r.ecnAcks = e.ecn - std::min(e.ecn, ecn);
    r.trims = e.trims - std::min(e.trims, trims);
    r.nacks = e.lossFeedback - std::min(e.lossFeedback, e.trims);
    r.timeouts = e.timeouts;
    r.losses = e.losses;
    if (r.losses > 0)
    {
        r.tracedPath = e.traceLinks; // the route a probe with its headers takes, if any
    }
    if (r.packets > 0 || r.rttSamples > 0 || r.ecnAcks > 0 || r.trims > 0 || r.nacks > 0 ||
        r.timeouts > 0 || r.losses > 0)
    {
        rows.push_back(std::move(r));
    }
}

std::vector<PathTelemetryRow>
PathTelemetryCollector::Take(const Fabric& fabric)
{
    std::vector<PathTelemetryRow> rows;
    for (auto& q : m_qps)
    {
        for (const auto& [psn, c] : q.copies)
        {
            ChargeLosses(&q, c);
        }
    }
    for (const auto& [key, q] : m_byQpn)
    {
        for (const auto& [entropy, e] : q->entropies)
        {
            if (e.packets == 0)
            {
                continue;
            }
            if (m_routes)
            {
                TakeRoutes(fabric, *q, key.second, entropy, e, rows);
                continue;
            }
            PathTelemetryRow r;
            r.src = q->host;
            r.dst = q->qp->GetPeerHost();
            r.qpn = key.second;
            r.entropy = entropy;
            r.packets = e.packets;
            r.bytes = e.bytes;
            r.retxPackets = e.retx;
            r.rttSamples = e.rtt.Count();
            r.rttMinUs = e.rtt.Min();
            r.rttMedianUs = e.rtt.Quantile(0.5);
            r.rttP99Us = e.rtt.Quantile(0.99);
            r.ecnAcks = e.ecn;
            r.trims = e.trims;
            r.nacks = e.lossFeedback - std::min(e.lossFeedback, e.trims);
            r.timeouts = e.timeouts;
            r.losses = e.losses;
            for (const auto& [code, frames] : e.paths)
            {
                std::vector<uint32_t> links;
                // A multi-plane host: the frame left by the port of its entropy's plane.
                const uint32_t hostPorts = static_cast<uint32_t>(fabric.ports[r.src].size());
                if (ns3::DecodeHostPortPath(fabric.graph, fabric.ports, r.src,
                                            ns3::PlaneOfEntropy(r.entropy, hostPorts), code,
                                            links))
                {
                    r.paths.emplace_back(std::move(links), frames);
                }
            }
            if (r.losses > 0 && r.paths.empty())
            {
                r.tracedPath = e.traceLinks;
            }
            rows.push_back(std::move(r));
        }
    }
    m_qps.clear();
    m_byQpn.clear();
    m_nics.clear();
    m_fabric = nullptr;
    return rows;
}

} // namespace tusk
