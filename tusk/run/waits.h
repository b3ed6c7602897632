/*
 * tusk: who waited. Per collective step and rank, when the rank was ready, when its data
 * arrived and how long it waited beyond what the data needs on an idle fabric (waits.csv), and
 * per collective how many ranks were delayed and which flow ended it (collectives.csv).
 * Definitions: docs/results-format.md, "waits.csv".
 */
#ifndef TUSK_WAITS_H
#define TUSK_WAITS_H

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace tusk
{

/** One transfer of a collective as the wait analysis needs it. Times in ps. */
struct WaitTransfer
{
    uint32_t src = 0; //!< host
    uint32_t dst = 0; //!< host
    int32_t step = -1;
    uint64_t bytes = 0;
    bool started = false;
    uint64_t startPs = 0;
    bool delivered = false;
    uint64_t deliveredPs = 0; //!< its last byte delivered at dst
    /** Its own ideal time as flows.csv has it (a transfer split over QPs: its packets
     *  interleaved round-robin), ps; 0 = ask the IdealFn for `bytes` as one message. */
    uint64_t idealPs = 0;
};

/** One row of waits.csv: rank `rank` of a collective in step `step`. Times in ps. */
struct WaitRow
{
    uint32_t collective = 0;
    uint32_t step = 0;
    uint32_t rank = 0; //!< index into the collective's ranks
    uint32_t host = 0;
    bool ready = true;       //!< the rank began the step (false only in a run stopped early)
    uint64_t readyPs = 0;    //!< when the rank began the step (see Ready in the .cc)
    bool sent = false;       //!< every transfer into it was posted
    uint64_t sentPs = 0;     //!< the last of them posted
    bool arrived = false;    //!< every transfer into it delivered
    uint64_t arrivalPs = 0;  //!< the last of them delivered
    uint64_t idealPs = 0;    //!< its step data alone on the idle fabric
    uint64_t stepIdealPs = 0; //!< the largest idealPs of the step
    uint64_t waitPs = 0;        //!< max(0, arrival - ready - ideal)
    uint64_t networkWaitPs = 0; //!< max(0, arrival - max(ready, sent) - ideal)
    double delay = 0;           //!< waitPs / stepIdealPs
    int64_t lastTransfer = -1;  //!< index (into the input) of the transfer delivered last
    int64_t fromRank = -1;      //!< the rank that sent it
};

/** Thresholds of the "ranks delayed" counts: 1 %, 10 %, 50 % of the step's ideal time. */
constexpr std::array<double, 3> kDelayThresholds = {0.01, 0.10, 0.50};

struct CollectiveWaits
{
    std::vector<WaitRow> rows; //!< by step, then rank
    /** Ranks whose wait exceeded kDelayThresholds[i] x the step's ideal time in some step. */
    std::array<uint32_t, 3> ranksDelayed{};
    /**
     * The straggler of the critical path, -1 if unfinished. The critical path runs back from
     * the transfer delivered last (the one that ended the collective) through, at each step,
     * the transfer whose arrival let that transfer's sender begin (the sender's previous step's
     * last arrival, if it came before the send started). The straggler is the transfer on it
     * that took longest beyond its own ideal time: in a ring, the one over the slow link, even
     * when the transfer that ended the collective is far from it.
     */
    int64_t criticalTransfer = -1;
};

/**
 * \brief A step's wait row completed once the step's ideal (the largest of its ranks'
 * idealPs) is known: wait, network wait and delay (results-format.md, waits.csv), and the
 * rank's flags in `delayed` (kDelayThresholds.size() per rank, set when its delay exceeds a
 * threshold). A row whose data did not arrive or whose rank never began the step gets no wait.
 * The one definition ComputeWaits and the step-at-a-time rows (CollectiveRowStreamer) share.
 */
void CompleteWaitRow(WaitRow& row, uint64_t stepIdealPs, std::vector<bool>& delayed);

/** Ideal time of `bytes` from host src to host dst alone on the idle fabric, ps. */
using IdealFn = std::function<uint64_t(uint32_t src, uint32_t dst, uint64_t bytes)>;

/**
 * \brief The waits of one collective.
 * \param ranks host of each rank
 * \param steps its number of steps
 * \param startPs when its first transfer started
 * \param transfers its transfers (any order)
 * \param ideal the idle-fabric time of `bytes` posted as one message (a transfer's own
 *        idealPs, when set, takes its place for that transfer and bounds a rank's step below)
 */
CollectiveWaits ComputeWaits(uint32_t collective,
                             const std::vector<uint32_t>& ranks,
                             uint32_t steps,
                             uint64_t startPs,
                             const std::vector<WaitTransfer>& transfers,
                             const IdealFn& ideal);

} // namespace tusk

#endif
