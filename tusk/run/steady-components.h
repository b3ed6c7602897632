/*
 * tusk: SteadyComponents, the steady-state probe's judgement per component
 * (`simulator.steady_probe`, docs/fast-mode.md, "Steady-state fast-forward within an
 * iteration"): the active transfers of a window grouped into components (transfers whose
 * frames took a common egress port, transitively), each component judged by a SteadyJudge of
 * its own with its own ledger. Pure logic over windows of samples, no Simulator.
 */
#ifndef TUSK_STEADY_COMPONENTS_H
#define TUSK_STEADY_COMPONENTS_H

#include "run/steady-judge.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace tusk
{

/**
 * \brief What the probe saw in one window, per transfer and per port, for the per-component
 * judgement. Ports are numbered by the caller (the probe: every egress port of the fabric,
 * the NICs' included, two per link); the per-port vectors are indexed by that number, and an
 * empty one reads as all zeros.
 */
struct ComponentWindow
{
    /** A transfer active at some time in the window. */
    struct Transfer
    {
        uint32_t id = 0;             //!< transfer id
        uint64_t windowBytes = 0;    //!< payload bytes delivered in the window, bytes
        uint64_t remainingBytes = 0; //!< payload bytes not yet delivered at the window's end
        /** The egress ports its frames took (sorted, unique). */
        std::vector<uint32_t> ports;
        bool started = false;  //!< it started in the window
        bool ended = false;    //!< it was acknowledged in the window: not active at its end
        bool replayed = false; //!< fast mode replays it
        /** Its route is not known as ports (a path that did not fit, a host with several
         *  links): it is coupled to every transfer of the window. */
        bool unattributed = false;
    };
    /** An active QP's congestion-control state, with the transfer it belongs to. */
    struct Cc
    {
        uint64_t qp = 0;       //!< the QP's index among the executor's QPs
        uint32_t transfer = 0; //!< an active transfer of its connection's source host
        /** rate (bit/s), target rate (bit/s), alpha (0..1), window (bytes) */
        std::array<double, 4> words{};
        bool partial = false; //!< StateIsComplete false
    };

    uint64_t endPs = 0;               //!< the window's end, ps
    std::vector<Transfer> transfers;  //!< sorted by id
    std::vector<uint64_t> queues;     //!< per port: queued bytes at the window's end
    std::vector<uint64_t> pfc;        //!< per port: PFC frames pausing or resuming it
    std::vector<uint64_t> drops;      //!< per port: frames dropped on its link
    std::vector<uint64_t> marks;      //!< per port: frames it CE-marked
    std::vector<uint8_t> failed;      //!< per port: a failure or repair on its link
    /** A failure or repair in the window that no port names (every component breaks). */
    bool failureAll = false;
    std::vector<Cc> cc; //!< sorted by qp
};

/**
 * \brief The per-component judgement.
 *
 * Components: two transfers of a window are in one component when they share a port (the
 * ports of a transfer being what ComponentWindow::Transfer::ports says), transitively; a
 * transfer that is `unattributed` joins every transfer of the window into one component. A
 * port's queue, PFC frames, drops, CE marks and failures belong to the components whose
 * transfers use it (a port no active transfer uses belongs to none).
 *
 * Identity across windows: a component is its set of transfers and its set of ports. It
 * keeps its SteadyJudge (its last K windows and its ledger) only while both sets stay the
 * same: a transfer that starts, joins, leaves or ends, a merge, a split or a port newly used
 * (a route change) makes a new component whose stretch starts over. A transfer acknowledged
 * in a window is still a member in that window (the window's FLOW_END belongs to its
 * component), and a transfer starting in a window is a member from that window on.
 */
class SteadyComponents
{
  public:
    explicit SteadyComponents(const SteadyParams& params);

    /**
     * \brief Partition the window's transfers into components.
     * \return for each transfer of w (in its order), its component, numbered from 0 in the
     *         order of the components' first transfers
     */
    static std::vector<uint32_t> Partition(const ComponentWindow& w);

    /**
     * \brief Add the newest window: partition it, judge each component over its own last K
     * windows (SteadyJudge::Add with `capPs`), keep each one's ledger.
     * \return each component's verdict, in Partition's order
     */
    std::vector<SteadyReason> Add(const ComponentWindow& w, uint64_t capPs);

    /**
     * \brief Transfers acknowledged after the newest window (the run's last, partial window):
     * each live component holding some of them counts them (SteadyJudge::AddTailEnds).
     * \param endPs when the run stopped, ps
     * \param ended their ids (any order)
     * \param allDone every transfer was acknowledged: each live component's jump not yet
     *        measured is measured at `endPs` (SteadyJudge::AddTailEnds)
     */
    void AddTailEnds(uint64_t endPs, std::vector<uint32_t> ended, bool allDone = false);

    /** The figures so far: every component's ledger summed, retired and live. */
    SteadyComponentStats Stats() const;

  private:
    /** A component's identity: its transfers' ids, its ports (both sorted). */
    using Key = std::pair<std::vector<uint32_t>, std::vector<uint32_t>>;
    struct Live
    {
        std::unique_ptr<SteadyJudge> judge;
        uint64_t window = 0; //!< the last window (Add's count) it was judged in
    };
    /** Fold a component that is gone into the retired ledger. */
    void Retire(const Live& c);

    SteadyParams m_p;
    uint64_t m_windows = 0; //!< windows added
    std::map<Key, Live> m_live;
    SteadyComponentStats m_retired; //!< gone components' ledgers, and the counts
};

} // namespace tusk

#endif
