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
 *
 * The same window runs other units of ids than a job's iterations (JobWindow::Units): a
 * standalone ring all-reduce's steps, W at a time (RingStepUnits, ring-steps.h), whose
 * records stay with the executor until the end (KeepsRecords) and whose specs can be built
 * again after they were dropped (Rebuilt), for the rows built at the end of the run.
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
    /**
     * \brief What a window expands and retires, unit after unit: the contiguous id ranges of
     * a job's iterations (JobPlan), or of another closed-form workload's parts.
     */
    class Units
    {
      public:
        virtual ~Units() = default;
        /** Units, numbered 0 .. Count() - 1, ids increasing. */
        virtual uint32_t Count() const = 0;
        /** Ids unit u starts at; u = Count() gives where the last one ends. */
        virtual JobPlan::Bases BasesOf(uint32_t u) const = 0;
        /** Whether unit u (the next one not expanded) is expanded when `trigger` fires (-1:
         *  at the start). Called in order: unit u only once u - 1 is expanded. */
        virtual bool StartsOn(uint32_t u, int64_t trigger) const = 0;
        /** Unit u alone, with global ids (its transfers, triggers, collectives). */
        virtual WorkloadSpec Expand(uint32_t u) const = 0;
        /** Whether the executor keeps the records of retired units (their rows are built at
         *  the end of the run, not at retirement), freeing only their specs and trigger state. */
        virtual bool KeepsRecords() const { return false; }
    };

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
    /** \brief One sequence of units other than a job's iterations (`job` 0 in its ranges; no
     *  plans); its ids start at 0. */
    explicit JobWindow(std::shared_ptr<const Units> units);

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

    /** Whether the executor keeps retired units' records (Units::KeepsRecords). */
    bool KeepsRecords() const { return m_keepsRecords; }
    /** \brief Transfer t, trigger g of any unit: a live one's, else its unit expanded again
     *  into a cache of one unit (valid until the next call that misses it). For what reads a
     *  retired or unexpanded unit after the run (rows, DescribeBlocked). */
    const TransferSpec& Rebuilt(uint64_t t) const;
    const TriggerSpec& RebuiltTrigger(uint64_t g) const;

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

    /** The unit of sequence j holding id `x` of the kind `Bases::*member` (binary search). */
    uint32_t UnitOf(uint32_t j, uint64_t x, uint64_t JobPlan::Bases::*member) const;
    /** The cached unit holding `x` (Rebuilt), expanded if it is not the cached one. */
    const WorkloadSpec& CachedUnit(uint64_t x, uint64_t JobPlan::Bases::*member) const;

    std::vector<std::shared_ptr<const JobPlan>> m_plans;
    std::vector<std::shared_ptr<const Units>> m_units; //!< per job: its plan, or the units
    bool m_keepsRecords = false;
    mutable int64_t m_cachedUnit = -1;  //!< Rebuilt's unit (sequence 0), -1 = none
    mutable JobPlan::Bases m_cachedFirst;
    mutable WorkloadSpec m_cached;
    std::vector<uint32_t> m_next;             //!< per job, the next iteration to expand
    std::map<uint64_t, Live> m_live;          //!< by first transfer id
    JobPlan::Bases m_end;
    uint64_t m_liveTransfers = 0;
};

} // namespace ns3

#endif
