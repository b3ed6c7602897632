#include "gray-failure-model.h"

#include "ns3/double.h"
#include "ns3/hash.h"
#include "ns3/uinteger.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GrayFailureModel);

TypeId
GrayFailureModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GrayFailureModel")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<GrayFailureModel>()
            .AddAttribute("LossRate",
                          "Probability that a frame of an affected flow is lost (0..1, per "
                          "frame).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GrayFailureModel::m_lossRate),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("HashFraction",
                          "Fraction of the kBuckets = 4096 hash buckets that are bad (0..1); a "
                          "flow is affected when its 5-tuple hashes into one.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&GrayFailureModel::m_hashFraction),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("HashSeed",
                          "Seed of the bucket hash, which decides the flows affected (dimensionless).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GrayFailureModel::m_hashSeed),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

GrayFailureModel::GrayFailureModel()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

uint32_t
GrayFailureModel::Bucket(const FrameMeta& frame, uint32_t seed)
{
    char key[4 + 4 + 4 + 1 + 2 + 2];
    size_t n = 0;
    auto put = [&](const void* v, size_t bytes) {
        std::memcpy(key + n, v, bytes);
        n += bytes;
    };
    const uint32_t src = HostAddress(frame.srcHost).Get();
    const uint32_t dst = HostAddress(frame.dstHost).Get();
    put(&seed, 4);
    put(&src, 4);
    put(&dst, 4);
    put(&frame.protocol, 1);
    put(&frame.srcPort, 2);
    put(&frame.dstPort, 2);
    return Hash32(key, n) % kBuckets;
}

bool
GrayFailureModel::IsAffected(const FrameMeta& frame) const
{
    return Bucket(frame, m_hashSeed) < static_cast<uint32_t>(m_hashFraction * kBuckets + 0.5);
}

bool
GrayFailureModel::IsLost(const FrameMeta& frame)
{
    return IsAffected(frame) && m_rng->GetValue() < m_lossRate;
}

int64_t
GrayFailureModel::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

} // namespace ns3
