#include "cc-registry.h"

#include "fabric/model/registry.h"

namespace ns3
{

namespace
{
Registry<CongestionControlInfo>&
Table()
{
    static Registry<CongestionControlInfo> table("congestion controls");
    return table;
}
} // namespace

CongestionControlRegistration::CongestionControlRegistration(CongestionControlInfo info,
                                                             std::string source)
{
    if (source.empty())
    {
        NS_FATAL_ERROR("congestion control \"" << info.name << "\" registered without a source");
    }
    info.source = std::move(source);
    Table().Register(std::move(info));
}

const std::vector<CongestionControlInfo>&
CongestionControls()
{
    return Table().All();
}

const CongestionControlInfo*
FindCongestionControl(const std::string& name)
{
    return Table().Find(name);
}

std::vector<std::string>
CongestionControlNames()
{
    return Table().Names();
}

std::string
CongestionControlNameList()
{
    return Table().NameList("\"");
}

} // namespace ns3
