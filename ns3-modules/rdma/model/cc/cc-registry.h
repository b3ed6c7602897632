/*
 * tusk: congestion controls by short name (the values of `nic.congestion_control`).
 *
 * Each congestion control registers itself with one static CongestionControlRegistration in
 * its own .cc file (or in a plugin, `tusk --plugin`): its short name, its TypeId, a
 * description, the source it implements, and what it needs from the fabric. The scenario
 * reader takes the names from here, and the runner reads the needs from here, never from the
 * name. See docs/extending.md, "A congestion control".
 */
#ifndef TUSK_CC_REGISTRY_H
#define TUSK_CC_REGISTRY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** A congestion control by short name, with what it needs from the fabric and the runner. */
struct CongestionControlInfo
{
    /** What a congestion control needs (bits, combined with |). */
    enum Need : uint32_t
    {
        NEEDS_NOTHING = 0,
        /** It reacts to ECN marks: the runner refuses it unless `[ecn] enabled = true`. */
        NEEDS_ECN = 1u << 0,
        /** Its data packets carry an INT header that switches fill in (the model's
         *  RdmaCongestionControl::UsesInt() is true; the runner checks they agree): the runner
         *  counts the header in every data frame and refuses a link rate INT cannot encode. */
        USES_INT = 1u << 1,
        /** It needs the fabric's base RTT T: the runner sets ns3::RdmaNic::BaseRtt to the
         *  longest host-to-host base RTT (RdmaCcSetup::baseRtt). */
        NEEDS_BASE_RTT = 1u << 2,
    };

    std::string name;        //!< short name, e.g. "dcqcn"
    std::string typeId;      //!< RdmaCongestionControl TypeId, e.g. "ns3::DcqcnCongestionControl"
    std::string description; //!< one line for `tusk kinds`
    uint32_t needs = NEEDS_NOTHING; //!< Need bits
    /** The fabric kind it runs on only ("infiniband"); "" = any (`[fabric] kind`). */
    std::string fabric = "";
    /** Where it comes from (paper, specification), for `tusk kinds`. */
    std::string source = "";

    bool Needs(Need n) const { return (needs & n) != 0; }
};

/**
 * \brief Registers a congestion control when its library loads: one line in its own file,
 *   `const CongestionControlRegistration kRegistration{
 *        {"dctcp", "ns3::DctcpCongestionControl", "DCTCP-style ECN window",
 *         CongestionControlInfo::NEEDS_ECN | CongestionControlInfo::NEEDS_BASE_RTT},
 *        "Alizadeh et al., DCTCP, SIGCOMM 2010"};`
 * with the source it implements (required: `tusk kinds` cites it). Aborts the program at load
 * time if the name is already taken or the source is missing (a programming error).
 */
class CongestionControlRegistration
{
  public:
    CongestionControlRegistration(CongestionControlInfo info, std::string source);
};

/** All congestion controls, sorted by name. */
const std::vector<CongestionControlInfo>& CongestionControls();

/** The congestion control named `name` (short name); nullptr if none is registered. */
const CongestionControlInfo* FindCongestionControl(const std::string& name);

/** The short names, sorted (the choices of `nic.congestion_control`). */
std::vector<std::string> CongestionControlNames();

/** The names for an error message: `"dcqcn", "dctcp", ...`. */
std::string CongestionControlNameList();

} // namespace ns3

#endif
