#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TimingWheelScheduler);

namespace
{
// Function objects rather than functions: std::sort and the heap algorithms inline them.

/** Heap order of std::push_heap and friends for a min-heap: a after b. */
struct LaterOrder
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return a.key.m_ts > b.key.m_ts ||
               (a.key.m_ts == b.key.m_ts && a.key.m_uid > b.key.m_uid);
    }
};

constexpr LaterOrder Later{};

/** Sort order: a before b. */
struct EarlierOrder
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return a.key.m_ts < b.key.m_ts ||
               (a.key.m_ts == b.key.m_ts && a.key.m_uid < b.key.m_uid);
    }
};

constexpr EarlierOrder Earlier{};

/** Remove the event with ev's uid from a heap; false if absent. */
bool
RemoveFromHeap(std::vector<Scheduler::Event>& heap, const Scheduler::Event& ev)
{
    auto it = std::find_if(heap.begin(), heap.end(), [&ev](const Scheduler::Event& e) {
        return e.key.m_uid == ev.key.m_uid;
    });
    if (it == heap.end())
    {
        return false;
    }
    heap.erase(it);
    std::make_heap(heap.begin(), heap.end(), Later);
    return true;
}
} // namespace

TypeId
TimingWheelScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimingWheelScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("Fabric")
            .AddConstructor<TimingWheelScheduler>()
            .AddAttribute("BucketWidthLog2",
                          "log2 of a bucket's width in simulator time steps (12: 4.1 ns at "
                          "picosecond resolution). Set before the first event.",
                          UintegerValue(12),
                          MakeUintegerAccessor(&TimingWheelScheduler::SetBucketWidthLog2,
                                               &TimingWheelScheduler::GetBucketWidthLog2),
                          MakeUintegerChecker<uint8_t>(0, 40))
            .AddAttribute("BucketsLog2",
                          "log2 of the number of buckets; the wheel covers 2^(BucketWidthLog2 + "
                          "BucketsLog2) time steps (67 us by default at picosecond resolution), "
                          "later events wait in an overflow heap. Set before the first event.",
                          UintegerValue(14),
                          MakeUintegerAccessor(&TimingWheelScheduler::SetBucketsLog2,
                                               &TimingWheelScheduler::GetBucketsLog2),
                          MakeUintegerChecker<uint8_t>(6, 24));
    return tid;
}

TimingWheelScheduler::TimingWheelScheduler()
{
    Resize();
}

TimingWheelScheduler::~TimingWheelScheduler() = default;

void
TimingWheelScheduler::SetBucketWidthLog2(uint8_t log2)
{
    m_widthLog2 = log2;
    Resize();
}

uint8_t
TimingWheelScheduler::GetBucketWidthLog2() const
{
    return m_widthLog2;
}

void
TimingWheelScheduler::SetBucketsLog2(uint8_t log2)
{
    m_bucketsLog2 = log2;
    Resize();
}

uint8_t
TimingWheelScheduler::GetBucketsLog2() const
{
    return m_bucketsLog2;
}

void
TimingWheelScheduler::Resize()
{
    NS_ABORT_MSG_IF(m_size != 0, "TimingWheelScheduler: resized while holding events");
    NS_ABORT_MSG_IF(m_widthLog2 + m_bucketsLog2 > 62, "TimingWheelScheduler: horizon too long");
    const uint32_t n = 1u << m_bucketsLog2;
    m_mask = n - 1;
    m_horizon = uint64_t{1} << (m_widthLog2 + m_bucketsLog2);
    m_base = 0;
    m_cur = 0;
    m_buckets.assign(n, {});
    m_serving.clear();
    m_servePos = 0;
    m_late.clear();
    m_nonEmpty.assign((n + 63) / 64, 0);
    m_inBuckets = 0;
}

void
TimingWheelScheduler::AddToBucket(const Event& ev)
{
    const uint32_t b = static_cast<uint32_t>(ev.key.m_ts >> m_widthLog2) & m_mask;
    std::vector<Event>& bucket = m_buckets[b];
    if (bucket.capacity() == 0 && !m_spare.empty())
    {
        bucket.swap(m_spare.back()); // storage of a bucket served earlier
        m_spare.pop_back();
    }
    bucket.push_back(ev);
    m_nonEmpty[b >> 6] |= uint64_t{1} << (b & 63);
    ++m_inBuckets;
}

void
TimingWheelScheduler::Insert(const Event& ev)
{
    ++m_size;
    const uint64_t ts = ev.key.m_ts;
    // ts >= m_base: the simulator never schedules before its current time, and m_base is
    // never after it.
    if (!InWheel(ts))
    {
        m_overflow.push_back(ev);
        std::push_heap(m_overflow.begin(), m_overflow.end(), Later);
        return;
    }
    if (((ts - m_base) >> m_widthLog2) == 0)
    {
        m_late.push_back(ev); // in the bucket being served
        std::push_heap(m_late.begin(), m_late.end(), Later);
        return;
    }
    AddToBucket(ev);
}

bool
TimingWheelScheduler::IsEmpty() const
{
    return m_size == 0;
}

uint32_t
TimingWheelScheduler::NextBucket(uint32_t from) const
{
    const uint32_t words = static_cast<uint32_t>(m_nonEmpty.size());
    uint32_t b = (from + 1) & m_mask;
    // The rest of b's word, then whole words, cyclically.
    uint32_t w = b >> 6;
    uint64_t bits = m_nonEmpty[w] & (~uint64_t{0} << (b & 63));
    for (uint32_t i = 0; i <= words; ++i)
    {
        if (bits != 0)
        {
            return (w << 6) + static_cast<uint32_t>(__builtin_ctzll(bits));
        }
        w = (w + 1) % words;
        bits = m_nonEmpty[w];
    }
    NS_ABORT_MSG("TimingWheelScheduler: no non-empty bucket");
    return 0;
}

void
TimingWheelScheduler::MigrateOverflow()
{
    while (!m_overflow.empty() && InWheel(m_overflow.front().key.m_ts))
    {
        std::pop_heap(m_overflow.begin(), m_overflow.end(), Later);
        AddToBucket(m_overflow.back());
        m_overflow.pop_back();
    }
}

void
TimingWheelScheduler::Advance()
{
    if (m_inBuckets > 0)
    {
        // Every bucketed event lies within [m_base, m_base + horizon), so walking the wheel
        // forward from the served bucket meets them in time order, bucket by bucket.
        const uint32_t next = NextBucket(m_cur);
        m_base += static_cast<uint64_t>((next - m_cur) & m_mask) << m_widthLog2;
        m_cur = next;
    }
    else
    {
        // The wheel is empty: jump to the first overflow event.
        m_base = m_overflow.front().key.m_ts >> m_widthLog2 << m_widthLog2;
        m_cur = static_cast<uint32_t>(m_base >> m_widthLog2) & m_mask;
    }
    // Overflow events were beyond the old horizon, so none precedes the new served bucket.
    MigrateOverflow();
    std::vector<Event>& bucket = m_buckets[m_cur];
    m_nonEmpty[m_cur >> 6] &= ~(uint64_t{1} << (m_cur & 63));
    m_inBuckets -= bucket.size();
    // The bucket's storage becomes the served one; the storage served before goes to the
    // spare list (at most kSpareBuckets vectors of at most kSpareCapacity events), from which
    // a bucket that receives its first event takes one. Only non-empty buckets hold storage:
    // had every bucket kept the largest size it ever held, the wheel would hold 2^BucketsLog2
    // times that (124 MB on perm-1024); keeping up to 32 slots each still held 10.5 MB there,
    // and spares of any size passed the storage of the rare crowded bucket on to the buckets
    // that took them, 9.7 MB there (docs/performance.md).
    m_serving.swap(bucket);
    m_servePos = 0;
    bucket.clear();
    if (bucket.capacity() > 0 && bucket.capacity() <= kSpareCapacity &&
        m_spare.size() < kSpareBuckets)
    {
        m_spare.emplace_back().swap(bucket);
    }
    else
    {
        std::vector<Event>().swap(bucket);
    }
    // Appended in uid order, a bucket whose events share one time stamp (a synchronised
    // fabric: all ports of one rate finish serialising at once) is sorted already.
    if (!std::is_sorted(m_serving.begin(), m_serving.end(), Earlier))
    {
        std::sort(m_serving.begin(), m_serving.end(), Earlier);
    }
}

bool
TimingWheelScheduler::NextIsLate() const
{
    if (m_servePos == m_serving.size())
    {
        return true;
    }
    return !m_late.empty() && Earlier(m_late.front(), m_serving[m_servePos]);
}

Scheduler::Event
TimingWheelScheduler::PeekNext() const
{
    NS_ABORT_MSG_IF(m_size == 0, "TimingWheelScheduler::PeekNext: no events");
    if (m_servePos < m_serving.size() || !m_late.empty())
    {
        return NextIsLate() ? m_late.front() : m_serving[m_servePos];
    }
    if (m_inBuckets > 0)
    {
        const auto& bucket = m_buckets[NextBucket(m_cur)];
        return *std::min_element(bucket.begin(), bucket.end(),
                                 [](const Event& a, const Event& b) { return Later(b, a); });
    }
    return m_overflow.front();
}

Scheduler::Event
TimingWheelScheduler::RemoveNext()
{
    NS_ABORT_MSG_IF(m_size == 0, "TimingWheelScheduler::RemoveNext: no events");
    if (m_servePos == m_serving.size() && m_late.empty())
    {
        Advance();
    }
    --m_size;
    if (NextIsLate())
    {
        std::pop_heap(m_late.begin(), m_late.end(), Later);
        const Event ev = m_late.back();
        m_late.pop_back();
        return ev;
    }
    return m_serving[m_servePos++];
}

void
TimingWheelScheduler::Remove(const Event& ev)
{
    bool found = RemoveFromHeap(m_late, ev);
    if (!found)
    {
        auto it = std::find_if(m_serving.begin() + m_servePos, m_serving.end(),
                               [&ev](const Event& e) { return e.key.m_uid == ev.key.m_uid; });
        if (it != m_serving.end())
        {
            m_serving.erase(it); // the rest stays sorted
            found = true;
        }
    }
    if (!found && InWheel(ev.key.m_ts))
    {
        const uint32_t b = static_cast<uint32_t>(ev.key.m_ts >> m_widthLog2) & m_mask;
        auto& bucket = m_buckets[b];
        auto it = std::find_if(bucket.begin(), bucket.end(), [&ev](const Event& e) {
            return e.key.m_uid == ev.key.m_uid;
        });
        if (it != bucket.end())
        {
            bucket.erase(it);
            --m_inBuckets;
            if (bucket.empty())
            {
                m_nonEmpty[b >> 6] &= ~(uint64_t{1} << (b & 63));
            }
            found = true;
        }
    }
    if (!found)
    {
        found = RemoveFromHeap(m_overflow, ev);
    }
    NS_ABORT_MSG_IF(!found, "TimingWheelScheduler::Remove: event " << ev.key.m_uid << " not found");
    --m_size;
}

} // namespace ns3
