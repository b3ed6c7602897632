/*
 * tusk: [buffer], every switch's shared-buffer MMU (ns3::SharedBufferMmu).
 */
#include "scenario/scenario-sections.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = BufferSection;
const char* const kP = "buffer";
constexpr uint64_t kMax = bounds::kMaxBufferBytes;

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Size<S>("total_bytes", &S::totalBytes, 1, kMax, "Packet buffer of every switch.")
            .Attr({"ns3::SharedBufferMmu::BufferBytes"}),
        Size<S>("reserved_bytes", &S::reservedBytes, 0, kMax,
                "Guaranteed space per ingress port and priority group.")
            .Attr({"ns3::SharedBufferMmu::ReservedBytes"}),
        Custom<S>(
            "threshold", "`\"dynamic\"` / `\"static\"`", "",
            "Dynamic: a PG (or lossy egress queue) may use α × the free shared buffer; static: "
            "`static_threshold_bytes`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& b) {
                b.dynamicThreshold = r.Choice(&n, key, {"dynamic", "static"}) == "dynamic";
            },
            [](const S& b) { return nlohmann::json(b.dynamicThreshold ? "dynamic" : "static"); })
            .Attr({"ns3::SharedBufferMmu::DynamicThreshold"}),
        Real<S>("alpha", &S::alpha, 1.0 / 1024, 64, "number 1/1024..64",
                "α of the PFC (ingress) threshold.")
            .Attr({"ns3::SharedBufferMmu::Alpha"}),
        Real<S>("egress_alpha", &S::egressAlpha, 1.0 / 1024, 64, "number 1/1024..64",
                "α of lossy egress queues.")
            .Attr({"ns3::SharedBufferMmu::EgressAlpha"}),
        Size<S>("static_threshold_bytes", &S::staticThresholdBytes, 1, kMax,
                "Both thresholds when static.")
            .Attr({"ns3::SharedBufferMmu::StaticThresholdBytes"}),
        Size<S>("headroom_bytes", &S::headroomBytes, 0, kMax,
                "PFC headroom per ingress port and lossless PG; automatic = 2 × link delay × "
                "rate + 2 × 9216 B + 84 B per port (the values used are in the manifest's "
                "`resolved.headroom`).")
            .Note("= automatic"),
        Size<S>("xon_offset_bytes", &S::xonOffsetBytes, 0, kMax,
                "XON when shared use ≤ threshold − offset.")
            .Attr({"ns3::SharedBufferMmu::XonOffsetBytes"}),
    };
    return rows;
}

} // namespace

Section
BufferKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::buffer);
}

} // namespace tusk
