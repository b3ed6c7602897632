#include "scenario/topology-kinds.h"

#include "fabric/model/registry.h"

namespace tusk
{

namespace
{
ns3::Registry<TopologyKindInfo>&
Table()
{
    static ns3::Registry<TopologyKindInfo> table("topology kinds");
    return table;
}
} // namespace

TopologyKindRegistration::TopologyKindRegistration(TopologyKindInfo info, std::string source)
{
    if (source.empty() || !info.build || !info.docs || !info.read || !info.write)
    {
        NS_FATAL_ERROR("topology kind \"" << info.name
                                          << "\" registered without a source, a builder or keys");
    }
    info.source = std::move(source);
    Table().Register(std::move(info));
}

const std::vector<TopologyKindInfo>&
TopologyKinds()
{
    return Table().All();
}

const TopologyKindInfo*
FindTopologyKind(const std::string& name)
{
    return Table().Find(name);
}

std::vector<std::string>
TopologyKindNames()
{
    return Table().Names();
}

} // namespace tusk
