/*
 * tusk: the counters of one RC QP and of its messages.
 */
#ifndef TUSK_RDMA_QP_COUNTERS_H
#define TUSK_RDMA_QP_COUNTERS_H

#include <cstdint>

namespace ns3
{

/** Counters of one QP (both directions), 64-bit. */
struct QpCounters
{
    uint64_t dataPacketsSent = 0;   //!< including retransmissions
    uint64_t retxPackets = 0;       //!< data packets sent with a PSN sent before
    uint64_t timeouts = 0;
    uint64_t naksReceived = 0;
    uint64_t acksReceived = 0;
    uint64_t dataPacketsReceived = 0; //!< all arrivals, in order or not
    uint64_t oooPackets = 0;        //!< arrivals with PSN > ePSN (discarded under go-back-N)
    uint64_t duplicatePackets = 0;  //!< arrivals with PSN < ePSN
    uint64_t naksSent = 0;
    uint64_t acksSent = 0;
    uint64_t deliveredBytes = 0;    //!< payload delivered in order to the receiver
    uint64_t retxBytes = 0;         //!< payload bytes of retransmitted data packets
    uint64_t lossesDetected = 0;    //!< selective repeat: packets declared lost (SACK / RACK)
    uint64_t sacksSent = 0;         //!< selective repeat: NAKs carrying a SACK
    uint64_t reorderMax = 0;        //!< largest PSN - ePSN of an out-of-order arrival, packets
    uint64_t reorderSum = 0;        //!< sum of PSN - ePSN over out-of-order arrivals, packets
    uint64_t reorderBufferMaxBytes = 0; //!< selective repeat: most payload held out of order
    uint64_t beyondWindow = 0;      //!< selective repeat: arrivals beyond the receive window
    uint64_t oooCnpsSent = 0;       //!< CNPs sent because of out-of-order arrivals
    uint64_t ecnMarkedReceived = 0; //!< data packets that arrived CE-marked
    uint64_t cnpsSent = 0;          //!< CNPs this QP's NIC sent for it (notification point)
    uint64_t cnpsReceived = 0;      //!< CNPs that reached this QP (reaction point)
    uint64_t trimmedReceived = 0;   //!< data packets that arrived trimmed (receiver)
    uint64_t trimNacksReceived = 0; //!< trim NACKs that reached this QP (sender)
    uint64_t creditsSent = 0;       //!< RCCC credit grants sent (receiver)
    uint64_t creditsReceived = 0;   //!< RCCC credit grants that reached this QP (sender)
    uint64_t creditRequestsSent = 0; //!< RCCC credit requests sent (sender, out of credit)
    uint64_t creditRequestsReceived = 0; //!< RCCC credit requests that reached this QP (receiver)
};

/** Receiver-side counts of one message, reported with its receive completion. */
struct RecvMessageStats
{
    uint64_t bytes = 0;            //!< payload bytes of the message
    uint64_t oooPackets = 0;       //!< arrivals with PSN > ePSN while it was in progress
    uint64_t reorderMax = 0;       //!< largest PSN - ePSN of those, packets
    uint64_t reorderSum = 0;       //!< sum of PSN - ePSN of those (mean = sum / oooPackets)
    uint64_t naksSent = 0;         //!< NAKs (go-back-N) or SACK-NAKs (selective repeat) sent
    uint64_t duplicatePackets = 0; //!< arrivals of PSNs already received: spurious resends
};

/** Sender-side counts of one message, reported with its send completion. */
struct SendMessageStats
{
    uint64_t retxPackets = 0; //!< data packets of the message sent more than once
    uint64_t retxBytes = 0;   //!< their payload bytes
    /** Of retxPackets, those sent after the retransmission timer fired (before any later NAK,
     *  SACK-NAK or trim NACK): timeout resends, as opposed to NAK-driven ones. */
    uint64_t timeoutRetxPackets = 0;
};

} // namespace ns3

#endif
