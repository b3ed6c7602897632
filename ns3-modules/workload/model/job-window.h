/*
 * tusk: JobWindow, the live iterations of jobs built iteration by iteration.
 *
 * Pure (no ns-3 objects, no Simulator). The jobs' transfers, triggers and collectives take the
 * ids [0, TransfersEnd()), [0, TriggersEnd()), [0, CollectivesEnd()) (jobs in order, each
 * job's iterations in order: the ids a whole build gives them, JobPlan). An iteration is
 * expanded (JobPlan::Expand) when the trigger it starts from fires, or at the start when it
 * starts at an absolute time, and retired when all its transfers have finished (delivered and
 * acknowledged) and so have those of the job's earlier iterations. Only expanded, not retired
 * iterations are held: a job whose next iteration starts when the previous one is delivered
 * holds at most two.
 */
#ifndef TUSK_JOB_WINDOW_H
#define TUSK_JOB_WINDOW_H

#include "job-plan.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

class JobWindow
{
  public:
    /** One iteration's id ranges: [first, end) of transfers, triggers and collectives. */
    struct Range
    {
        uint32_t job = 0;
        uint32_t iteration = 0;
        JobPlan::Bases first;
        JobPlan::Bases end;
    };

    /** \param plans the jobs in order; plan j's ids must start where plan j - 1's end (the
     *  first at 0), as AppendJob would have put them in one spec */
    explicit JobWindow(std::vector<std::shared_ptr<const JobPlan>> plans);

    uint64_t TransfersEnd() const { return m_end.transfer; }
    /** The jobs' plans, in order. */
    const std::vector<std::shared_ptr<const JobPlan>>& Plans() const { return m_plans; }
    uint64_t TriggersEnd() const { return m_end.trigger; }
    uint64_t CollectivesEnd() const { return m_end.collective; }

    /**
     * \brief Expand, job by job, every not yet expanded iteration whose start trigger is
     * `trigger` (-1: those starting at an absolute time; call once, at the start).
     * \return their ranges, ids increasing
     */
    std::vector<Range> ExpandFrom(int64_t trigger);

    /** Transfer t, trigger g, collective c of a live iteration (nullptr otherwise). */
    const TransferSpec* Transfer(uint64_t t) const;
    const TriggerSpec* Trigger(uint64_t g) const;
    const CollectiveSpec* Collective(uint64_t c) const;

    /** \brief Transfer t (of a live iteration) has finished. \return the iterations it lets
     *  retire (none, or the job's oldest live ones that have finished), in order; each stays
     *  readable until Drop. */
    std::vector<Range> Finish(uint64_t t);
    /** \brief Free a retired iteration (one Finish returned). */
    void Drop(const Range& range);

    /** Transfers of the live iterations. */
    uint64_t LiveTransfers() const { return m_liveTransfers; }
    /** The ranges of the live iterations, ids increasing. */
    std::vector<Range> LiveRanges() const;

  private:
    struct Live
    {
        Range range;
        WorkloadSpec fragment;
        uint64_t finished = 0;
    };
    /** The live iteration holding id `x` of the kind `Bases::*member`, or nullptr. */
    const Live* Find(uint64_t x, uint64_t JobPlan::Bases::*member) const;

    std::vector<std::shared_ptr<const JobPlan>> m_plans;
    std::vector<uint32_t> m_next;             //!< per job, the next iteration to expand
    std::map<uint64_t, Live> m_live;          //!< by first transfer id
    JobPlan::Bases m_end;
    uint64_t m_liveTransfers = 0;
};

} // namespace ns3

#endif
