#include "scenario/scenario-spec.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

namespace tusk
{

namespace
{

/** The initial value of attribute `path` ("ns3::Type::Attribute") as a V. */
template <class V>
ns3::Ptr<const V>
InitialValue(const char* path)
{
    const std::string p(path);
    const auto sep = p.rfind("::");
    ns3::TypeId tid;
    ns3::TypeId::AttributeInformation info;
    NS_ABORT_MSG_IF(sep == std::string::npos ||
                        !ns3::TypeId::LookupByNameFailSafe(p.substr(0, sep), &tid) ||
                        !tid.LookupAttributeByName(p.substr(sep + 2), &info),
                    "tusk: no attribute " << p << " for a scenario default");
    auto v = ns3::DynamicCast<const V>(info.initialValue);
    NS_ABORT_MSG_IF(!v, "tusk: attribute " << p << " is not of the type its scenario key expects");
    return v;
}

} // namespace

uint64_t
AttributeDefaultUint(const char* path)
{
    return InitialValue<ns3::UintegerValue>(path)->Get();
}

double
AttributeDefaultDouble(const char* path)
{
    return InitialValue<ns3::DoubleValue>(path)->Get();
}

bool
AttributeDefaultBool(const char* path)
{
    return InitialValue<ns3::BooleanValue>(path)->Get();
}

uint64_t
AttributeDefaultPs(const char* path)
{
    return static_cast<uint64_t>(InitialValue<ns3::TimeValue>(path)->Get().GetPicoSeconds());
}

uint64_t
AttributeDefaultBps(const char* path)
{
    return InitialValue<ns3::DataRateValue>(path)->Get().GetBitRate();
}

std::vector<uint8_t>
AttributeDefaultPriorities(const char* path)
{
    const uint64_t mask = AttributeDefaultUint(path);
    std::vector<uint8_t> out;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (mask & (1u << p))
        {
            out.push_back(p);
        }
    }
    return out;
}

} // namespace tusk
