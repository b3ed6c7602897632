/*
 * tusk: the fabric kinds' registry, and the Ethernet kind (the default): lossless classes by
 * PFC over the switches' shared-buffer MMU, which the runner configures for every fabric from
 * [buffer] and [pfc] (ConfigureBuffersAndPfc), so the kind itself sets nothing more.
 */
#include "run/fabric-kinds.h"

#include "fabric/model/registry.h"

namespace tusk
{

namespace
{

ns3::Registry<FabricKindInfo>&
Table()
{
    static ns3::Registry<FabricKindInfo> table("fabric kinds");
    return table;
}

const FabricKindRegistration kEthernet{
    [] {
        FabricKindInfo k;
        k.name = "ethernet";
        k.description = "lossless classes by PFC over the switches' shared-buffer MMU, ECN";
        k.flowControl = FabricKindInfo::SHARED_BUFFER_PFC;
        k.flowControlLabel = "PFC";
        return k;
    }(),
    "IEEE 802.1Qbb (PFC), IEEE 802.3 (the MAC)"};

} // namespace

FabricKindRegistration::FabricKindRegistration(FabricKindInfo info, std::string source)
{
    if (source.empty())
    {
        NS_FATAL_ERROR("fabric kind \"" << info.name << "\" registered without a source");
    }
    info.source = std::move(source);
    Table().Register(std::move(info));
}

const std::vector<FabricKindInfo>&
FabricKinds()
{
    return Table().All();
}

const FabricKindInfo*
FindFabricKind(const std::string& name)
{
    return Table().Find(name);
}

std::vector<std::string>
FabricKindNames()
{
    return Table().Names();
}

const FabricKindInfo&
FabricKindOf(const ScenarioSpec& spec)
{
    const FabricKindInfo* kind = FindFabricKind(spec.fabric.kind);
    if (kind == nullptr)
    {
        // The reader refuses an unknown fabric.kind; a spec built in code that names none is
        // a programming error.
        NS_FATAL_ERROR("unknown fabric kind \"" << spec.fabric.kind << "\" (registered: "
                                                << Table().NameList("\"") << ")");
    }
    return *kind;
}

} // namespace tusk
