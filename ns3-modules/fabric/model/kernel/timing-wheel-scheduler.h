/*
 * tusk: TimingWheelScheduler, an ns-3 event scheduler for many events at nearby times.
 */
#ifndef TUSK_TIMING_WHEEL_SCHEDULER_H
#define TUSK_TIMING_WHEEL_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief An event scheduler for packet networks: a timing wheel of buckets sorted when
 * served, with an overflow heap for far events. Chosen with ns-3's SchedulerType
 * (Simulator::SetScheduler, `--SchedulerType=ns3::TimingWheelScheduler`, or tusk's
 * `simulator.scheduler`).
 *
 * A packet simulation schedules almost every event a few ns to a few µs ahead (ends of
 * serialisation, arrivals after a link delay) and a few far ahead (retransmission timers).
 * ns-3's MapScheduler pays a tree insertion, a node allocation and a rebalancing erase per
 * event; its HeapScheduler keeps one heap of all pending events. Here time is cut into 2^W
 * time-step buckets; a wheel of 2^B buckets covers the next 2^(W+B) time steps (67 µs with
 * the defaults at tusk's picosecond resolution). An event within that horizon is appended
 * to its bucket (unsorted, O(1)); when the wheel reaches a bucket, it is sorted (usually it
 * is sorted already: events are appended in uid order, and a synchronised fabric puts many
 * events at one time stamp) and served in order, with the events scheduled into it while it
 * is served in a small heap beside it. A bitmap of non-empty buckets finds the next one. Events
 * beyond the horizon wait in an overflow heap and move into the wheel once it comes within
 * reach (calendar queues, R. Brown, CACM 31(10), 1988; hashed timing wheels, G. Varghese and
 * T. Lauck, SOSP 1987).
 *
 * The order is exactly ns-3's: by time stamp, then by uid (insertion order), so a run gives
 * the same results with any scheduler. Remove (ns-3's Simulator::Remove) is a linear search,
 * as it is rare. Memory: 24 B per bucket, 24 B per pending event; only non-empty buckets
 * hold storage, which a served bucket hands on to the next bucket to fill (up to 64 spare).
 */
class TimingWheelScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    TimingWheelScheduler();
    ~TimingWheelScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    void SetBucketWidthLog2(uint8_t log2);
    uint8_t GetBucketWidthLog2() const;
    void SetBucketsLog2(uint8_t log2);
    uint8_t GetBucketsLog2() const;
    /** Size the wheel from the two attributes (only while empty). */
    void Resize();
    /** Time stamp `ts` is inside the wheel's horizon. */
    bool InWheel(uint64_t ts) const { return ts - m_base < m_horizon; }
    void AddToBucket(const Event& ev);
    /** The served bucket is empty: serve the next non-empty one (or the overflow's first). */
    void Advance();
    /** Index of the first non-empty bucket after `from`, cyclically (one must exist). */
    uint32_t NextBucket(uint32_t from) const;
    /** Move overflow events that are now within the horizon into their buckets. */
    void MigrateOverflow();

    /** Empty bucket storage kept for reuse (m_spare); more is released. */
    static constexpr size_t kSpareBuckets = 64;
    /** Largest storage (events) kept on the spare list. */
    static constexpr size_t kSpareCapacity = 64;

    uint8_t m_widthLog2 = 12;  //!< bucket width: 2^m_widthLog2 time steps
    uint8_t m_bucketsLog2 = 14; //!< 2^m_bucketsLog2 buckets
    uint64_t m_horizon = 0;     //!< time steps the wheel covers from m_base
    uint64_t m_base = 0;        //!< start of the served bucket (never after the current time)
    uint32_t m_cur = 0;         //!< index of the served bucket
    uint32_t m_mask = 0;        //!< buckets - 1
    /** The next event is m_late's first (not m_serving[m_servePos]); one of them exists. */
    bool NextIsLate() const;

    std::vector<Event> m_serving; //!< the served bucket, sorted; served from m_servePos on
    size_t m_servePos = 0;
    std::vector<Event> m_late;    //!< inserted into the served bucket while served, a min-heap
    std::vector<std::vector<Event>> m_buckets; //!< the others, unsorted
    std::vector<std::vector<Event>> m_spare;   //!< empty storage for buckets, reused
    std::vector<uint64_t> m_nonEmpty;          //!< one bit per bucket of m_buckets
    uint64_t m_inBuckets = 0;                  //!< events in m_buckets
    std::vector<Event> m_overflow;             //!< beyond the horizon, a min-heap
    uint64_t m_size = 0;
};

} // namespace ns3

#endif
