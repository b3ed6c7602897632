#include "loss-recovery-registry.h"

#include "fabric/model/registry.h"

namespace ns3
{

namespace
{
Registry<LossRecoveryInfo>&
Table()
{
    static Registry<LossRecoveryInfo> table("loss recoveries");
    return table;
}
} // namespace

LossRecoveryRegistration::LossRecoveryRegistration(LossRecoveryInfo info, std::string source)
{
    if (source.empty())
    {
        NS_FATAL_ERROR("loss recovery \"" << info.name << "\" registered without a source");
    }
    if (info.name == kRoceTransport)
    {
        NS_FATAL_ERROR("loss recovery \"" << kRoceTransport
                                          << "\": that name is the RoCE transport itself");
    }
    info.source = std::move(source);
    Table().Register(std::move(info));
}

const std::vector<LossRecoveryInfo>&
LossRecoveries()
{
    return Table().All();
}

const LossRecoveryInfo*
FindLossRecovery(const std::string& name)
{
    return Table().Find(name);
}

std::vector<std::string>
LossRecoveryNames(LossRecoveryInfo::Key key)
{
    std::vector<std::string> names;
    for (const auto& r : Table().All())
    {
        if (r.key == key)
        {
            names.push_back(r.name);
        }
    }
    return names;
}

const LossRecoveryInfo*
LossRecoveryOf(const std::string& transport, const std::string& receiver)
{
    const bool roce = transport == kRoceTransport;
    const LossRecoveryInfo* r = FindLossRecovery(roce ? receiver : transport);
    const auto key = roce ? LossRecoveryInfo::RECEIVER : LossRecoveryInfo::TRANSPORT;
    return r != nullptr && r->key == key ? r : nullptr;
}

} // namespace ns3
