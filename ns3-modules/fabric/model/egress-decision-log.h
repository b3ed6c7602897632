/*
 * tusk: EgressDecisionLog, what one switch's load balancer chose (LoadBalancer::
 * EnableDecisionLog): per egress port and candidate-set size, how often the port was offered
 * and chosen, the frames and bytes sent there, and the frames by the policy's reason. The
 * source of ar.csv (docs/results-format.md).
 */
#ifndef TUSK_EGRESS_DECISION_LOG_H
#define TUSK_EGRESS_DECISION_LOG_H

#include "load-balancer.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Counts of one switch's egress choices among two or more candidates. Memory: one row
 * per (port, candidate-set size) seen, found in O(rows of that port), usually one.
 */
class EgressDecisionLog
{
  public:
    /** One (port, candidate-set size) cell. */
    struct Row
    {
        uint16_t port = 0;       //!< egress port index on the switch
        uint32_t candidates = 0; //!< usable equal-cost ports the choice was among (>= 2)
        /** Fresh decisions (reason neither FLOWLET nor HASH) among `candidates` ports that had
         *  this port among them: an even choice gives it offered / candidates of them. */
        uint64_t offered = 0;
        uint64_t decisions = 0;  //!< fresh decisions that chose it
        uint64_t packets = 0;    //!< frames sent to it (FLOWLET and HASH ones included)
        uint64_t bytes = 0;      //!< their bytes on the wire (LbContext::frameBytes)
        std::array<uint64_t, kEgressReasons> packetsByReason{}; //!< `packets` by EgressReason
    };

    /** \param ports the switch's port count (higher port indices grow the table) */
    explicit EgressDecisionLog(uint32_t ports);
    /** One frame sent to candidates[index].port among `count` candidates, for `reason`. */
    void Add(const EgressCandidate* candidates, uint32_t count, uint32_t index,
             EgressReason reason, uint32_t bytes);
    /** Every row, sorted by (port, candidates). */
    std::vector<Row> Rows() const;

  private:
    Row& Cell(uint16_t port, uint32_t candidates);

    /** Per port, its rows by candidate-set size. */
    std::vector<std::vector<Row>> m_cells;
};

} // namespace ns3

#endif
