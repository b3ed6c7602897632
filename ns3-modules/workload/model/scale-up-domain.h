/*
 * tusk: ScaleUpDomain, the NVLink-like fabric inside a GPU server, as a fluid model.
 */
#ifndef TUSK_SCALE_UP_DOMAIN_H
#define TUSK_SCALE_UP_DOMAIN_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Servers of GpusPerServer GPUs joined by a non-blocking internal switch (NVSwitch-like).
 *
 * Host h is GPU h mod GpusPerServer of server h / GpusPerServer (hosts numbered server by
 * server, as the rail-optimised builder numbers them); every GPU keeps its own NIC on the
 * packet fabric for traffic that leaves the server. A transfer between two GPUs of one server
 * does not enter the packet fabric: it is carried here.
 *
 * Model: every GPU has one port into the internal switch, Rate each way. The transfers active
 * in a server share those ports max-min fairly (progressive filling over the egress port of
 * every source and the ingress port of every destination; Bertsekas & Gallager, Data Networks,
 * sec. 6.5.2), recomputed whenever a transfer starts or ends. A transfer's last byte is
 * delivered Latency after it left the source (recv-done); the sender learns of it another
 * Latency later (send-done). Alone, a transfer of B bytes takes Latency + 8 B / Rate
 * (IdealFctPs). Not modelled: packets, headers, congestion control inside the server.
 */
class ScaleUpDomain : public Object
{
  public:
    static TypeId GetTypeId();
    ScaleUpDomain();

    /** Called with the transfer id when its last byte is delivered / acknowledged. */
    using DoneCallback = Callback<void, uint32_t>;
    void SetRecvDoneCallback(DoneCallback cb) { m_recvDone = cb; }
    void SetSendDoneCallback(DoneCallback cb) { m_sendDone = cb; }

    /** True when a and b are different GPUs of one server. */
    bool SameServer(uint32_t a, uint32_t b) const;
    uint32_t ServerOf(uint32_t host) const { return host / m_gpusPerServer; }
    uint32_t GetGpusPerServer() const { return m_gpusPerServer; }
    uint64_t GetRateBps() const { return m_rate.GetBitRate(); }
    Time GetLatency() const { return m_latency; }

    /**
     * \brief Start carrying transfer `id` of `bytes` (>= 1) bytes from GPU src to GPU dst of
     * the same server. \pre SameServer(src, dst)
     */
    void Start(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes);

    /** Transfers being sent now (over every server). */
    size_t GetActiveTransfers() const;
    /** Bytes of transfer id sent so far while it is active (0 if it is not). */
    uint64_t GetSentBytes(uint32_t id) const;
    /** Time a transfer of `bytes` bytes takes alone: Latency + 8 bytes / Rate, ps. */
    uint64_t IdealFctPs(uint64_t bytes) const;

  protected:
    void DoDispose() override;

  private:
    struct Flow
    {
        uint32_t id;
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        double remaining; //!< bytes not yet sent
        double rateBps;   //!< current max-min fair share
    };
    struct Server
    {
        std::vector<Flow> flows;
        uint64_t lastPs = 0;
        EventId next;
    };

    Server& GetServer(uint32_t server);
    /** Advance the flows of server s to now, finish the ones done, recompute rates, reschedule. */
    void Update(uint32_t s);
    void Finish(uint32_t id);
    void Acknowledge(uint32_t id);

    uint32_t m_gpusPerServer = 8;
    uint32_t m_rankHosts = 0; //!< RankHosts: hosts from it up are on no server; 0 = none such
    DataRate m_rate;
    Time m_latency;
    std::vector<Server> m_servers;
    DoneCallback m_recvDone;
    DoneCallback m_sendDone;
};

} // namespace ns3

#endif
