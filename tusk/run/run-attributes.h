/*
 * tusk: every ns-3 attribute a run sets, in one place (internal to the tusk library).
 *
 * The runner sets attributes three ways: as defaults (the scenario's [ns3] table, DCQCN's
 * resolved values), on factories (switch ports, MMUs, LoadBalancers) and on objects (NICs, the
 * workload executor). RunAttributes does all three and records each attribute under the TypeId
 * that declares it, with the values used, so that
 *   - an [ns3] default the runner would overwrite is refused, naming what sets it (never
 *     silently lost): CheckNs3Defaults, before the simulation runs;
 *   - the manifest lists the values actually used (RunResult::attributes);
 *   - a test can check that every attribute the runner sets has a scenario key (the knob
 *     table) or is named here as derived (policy presets, per-switch seeds).
 * Defaults are restored when the RunAttributes ends (ns-3 keeps them process-wide).
 */
#ifndef TUSK_RUN_ATTRIBUTES_H
#define TUSK_RUN_ATTRIBUTES_H

#include "scenario/scenario-spec.h"

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tusk
{

class RunAttributes
{
  public:
    /** Restores every default this object set. */
    ~RunAttributes();

    /**
     * \brief Apply the [ns3] table of `spec` as ns-3 defaults, each validated first (a bad path
     * or value is an InputError naming the key and its line, never an ns-3 abort).
     */
    void ApplyNs3Defaults(const ScenarioSpec& spec);

    /**
     * \brief Set the default of `path` ("ns3::Type::Attribute") and record it.
     * \param by what sets it, for messages ("" = the knob table's keys for the path)
     */
    void SetDefault(const std::string& path, const ns3::AttributeValue& value,
                    const std::string& by = "");

    /** Set attribute `name` of `object` and record it. */
    void Set(const ns3::Ptr<ns3::Object>& object, const std::string& name,
             const ns3::AttributeValue& value, const std::string& by = "");

    /**
     * \brief Record that attribute `name` of TypeId `typeId` is set (by a helper or a factory)
     * to `value`.
     */
    void Note(const std::string& typeId, const std::string& name, const ns3::AttributeValue& value,
              const std::string& by = "");

    /** Record an attribute whose values are described rather than listed ("per switch"). */
    void NoteDescribed(const std::string& typeId, const std::string& name,
                       const std::string& description, const std::string& by);

    /**
     * \brief The [ns3] entries of `spec` for attributes this run set itself: an InputError
     * naming the [ns3] key, its line, and what to use instead.
     */
    void CheckNs3Defaults(const ScenarioSpec& spec) const;

    /** Attribute path (declaring TypeId) -> the values used, as ns-3 writes them, sorted. */
    std::map<std::string, std::vector<std::string>> Values() const;

    /**
     * \brief The path of attribute `name` under the TypeId that declares it
     * ("ns3::SwitchPort", "DataRate" -> "ns3::FabricNetDevice::DataRate"); "" if none does.
     */
    static std::string DeclaringPath(const std::string& typeId, const std::string& name);

  private:
    struct Entry
    {
        std::set<std::string> values;
        std::string by;
    };
    void Record(const std::string& path, const std::string& value, const std::string& by);

    std::map<std::string, Entry> m_entries;
    /** Defaults this object changed, with the values to restore, in order. */
    std::vector<std::pair<std::string, ns3::Ptr<const ns3::AttributeValue>>> m_saved;
};

} // namespace tusk

#endif
