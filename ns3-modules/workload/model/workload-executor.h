/*
 * tusk: WorkloadExecutor, runs a WorkloadSpec on the fabric's RdmaNics.
 */
#ifndef TUSK_WORKLOAD_EXECUTOR_H
#define TUSK_WORKLOAD_EXECUTOR_H

#include "workload-spec.h"

#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/** What happened to one transfer. Times in ps; valid when the matching flag is set. */
struct TransferRecord
{
    bool started = false;
    bool recvDone = false; //!< every byte delivered at the receiver
    bool sendDone = false; //!< every byte acknowledged at the sender
    uint64_t startPs = 0;
    uint64_t recvDonePs = 0;
    uint64_t sendDonePs = 0;
    uint64_t deliveredBytes = 0; //!< bytes of completed messages (see DeliveredBytes)
    uint64_t retxPackets = 0;    //!< data packets retransmitted for it
    uint64_t oooPackets = 0;     //!< data packets that arrived out of order while it was received
    uint32_t qps = 0;            //!< QPs it was spread over
    uint16_t entropy = 0;        //!< UDP source port of its first QP
    uint32_t pendingRecv = 0;
    uint32_t pendingSend = 0;
};

/**
 * \brief Executes a transfer graph: starts transfers at their times or when their trigger
 * fires, posts them on RC QPs, and activates triggers on completion.
 *
 * A connection is (src, dst, qpGroup); it owns QpsPerConnection QPs, created when its first
 * transfer starts, each with its own random entropy (UDP source port) from the dynamic range.
 * A transfer is split as evenly as possible over the connection's QPs (QP scaling); it is
 * delivered when all parts are delivered. Transfers of one connection run in post order.
 * Trigger semantics are htsim's (see TriggerSpec).
 */
class WorkloadExecutor : public Object
{
  public:
    static TypeId GetTypeId();
    WorkloadExecutor();

    /** \param nics the NIC of every host, indexed by host id */
    void Setup(const WorkloadSpec& spec, const std::vector<Ptr<RdmaNic>>& nics);
    int64_t AssignStreams(int64_t stream);
    /** Schedule the transfers that start by time. Call before Simulator::Run. */
    void Start();

    /** Called once when every transfer is delivered and acknowledged. */
    void SetAllDoneCallback(Callback<void> cb) { m_allDone = cb; }
    bool AllDone() const { return m_done == m_records.size(); }

    const WorkloadSpec& GetSpec() const { return m_spec; }
    const std::vector<TransferRecord>& GetRecords() const { return m_records; }
    /** Bytes delivered for transfer t, including the part in progress on its QPs. */
    uint64_t DeliveredBytes(uint32_t t) const;
    /** Every QP created (requester side), for counters. */
    const std::vector<Ptr<RdmaQueuePair>>& GetQps() const { return m_allQps; }

  protected:
    void DoDispose() override;

  private:
    struct Connection
    {
        std::vector<Ptr<RdmaQueuePair>> qps;   //!< requester side, at src
        std::vector<Ptr<RdmaQueuePair>> peers; //!< responder side, at dst
    };

    Connection& GetConnection(const TransferSpec& t);
    void StartTransfer(uint32_t t);
    void ScheduleStart(uint32_t t);
    void Activate(uint32_t trigger);
    void OnRecvDone(uint64_t cookie, uint64_t bytes, uint64_t ooo);
    void OnSendDone(uint64_t cookie, uint64_t retx);
    void CheckDone(uint32_t t);

    WorkloadSpec m_spec;
    std::vector<Ptr<RdmaNic>> m_nics;
    uint32_t m_qpsPerConnection = 1;
    Ptr<UniformRandomVariable> m_entropyRng;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Connection> m_connections;
    std::vector<const Connection*> m_transferConnection;
    std::vector<TransferRecord> m_records;
    std::vector<std::vector<uint32_t>> m_waiters; //!< per trigger, transfers waiting, in order
    std::vector<uint32_t> m_activations;
    std::vector<bool> m_fired;
    std::vector<uint32_t> m_multishotNext;
    std::vector<Ptr<RdmaQueuePair>> m_allQps;
    size_t m_done = 0;
    Callback<void> m_allDone;
};

} // namespace ns3

#endif
