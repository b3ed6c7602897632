/*
 * tusk: loss recoveries by short name (the values of `nic.receiver` and the UEC-style
 * `nic.transport`s).
 *
 * Each loss recovery registers itself with one static LossRecoveryRegistration in its own .cc
 * file (or in a plugin, `tusk --plugin`): its short name, whether that name is a RoCE receiver
 * (`nic.receiver`, with `nic.transport = "roce"`) or a transport of its own (`nic.transport`),
 * its RdmaLossRecovery TypeId, and what it needs from the rest of the run. The scenario reader
 * takes the names from here, and the validator and the runner read the needs from here, never
 * from the name. See docs/extending.md, "A loss recovery".
 */
#ifndef TUSK_LOSS_RECOVERY_REGISTRY_H
#define TUSK_LOSS_RECOVERY_REGISTRY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** A loss recovery by short name, with what it needs from the run. */
struct LossRecoveryInfo
{
    /** The scenario key whose value names it. */
    enum Key : uint8_t
    {
        /** `nic.receiver`, a RoCE RC receiver (with `nic.transport = "roce"`, the default). */
        RECEIVER,
        /** `nic.transport`, a transport of its own (`nic.receiver` must not be set with it). */
        TRANSPORT,
    };

    /** What a loss recovery needs (bits, combined with |). */
    enum Need : uint32_t
    {
        NEEDS_NOTHING = 0,
        /** Its receiver takes packets of a QP in order only (an out-of-order packet is NAKed
         *  and everything behind it resent): the validator refuses a policy that sends a QP's
         *  packets over several paths (PolicyInfo::needsReorderingReceiver). */
        IN_ORDER = 1u << 0,
        /** One entropy per connection whatever the path selector: the runner uses
         *  ns3::FixedPathSelector. */
        ONE_PATH = 1u << 1,
        /** ECN thresholds from the BDP when the scenario gives none: Kmin = 0.2 BDP and Kmax =
         *  0.8 BDP per port rate (Ultra Ethernet 1.0's recommendation). */
        ECN_FROM_BDP = 1u << 2,
    };

    std::string name;        //!< short name, e.g. "selective-repeat"
    std::string typeId;      //!< RdmaLossRecovery TypeId, e.g. "ns3::SelectiveRepeatRecovery"
    std::string description; //!< one line for `tusk kinds`
    Key key = RECEIVER;      //!< which scenario key names it
    uint32_t needs = NEEDS_NOTHING; //!< Need bits
    /** The smallest `nic.rto_us` it accepts, ps (0 = any). */
    uint64_t minRtoPs = 0;
    /** Where it comes from (paper, specification), for `tusk kinds`. */
    std::string source = "";

    bool Needs(Need n) const { return (needs & n) != 0; }
    /** The scenario key that names it: "nic.receiver" or "nic.transport". */
    const char* KeyName() const { return key == RECEIVER ? "nic.receiver" : "nic.transport"; }
};

/** Smallest retransmission timeout the UEC-style transports accept (10 us, ps): a few base
 *  RTTs of a 3-tier fabric at 1 us per link, so that queueing alone does not fire it. */
constexpr uint64_t kUecMinRtoPs = 10'000'000;

/** The transport whose loss recovery is chosen by `nic.receiver` (RoCEv2 RC, the default). */
inline const char* const kRoceTransport = "roce";

/**
 * \brief Registers a loss recovery when its library loads: one line in its own file,
 *   `const LossRecoveryRegistration kRegistration{
 *        {"selective-repeat", "ns3::SelectiveRepeatRecovery", "IRN-style selective repeat"},
 *        "Mittal et al., Revisiting network support for RDMA, SIGCOMM 2018"};`
 * with the source it implements (required: `tusk kinds` cites it). Aborts the program at load
 * time if the name is already taken, is "roce", or the source is missing (a programming error).
 */
class LossRecoveryRegistration
{
  public:
    LossRecoveryRegistration(LossRecoveryInfo info, std::string source);
};

/** All loss recoveries, sorted by name. */
const std::vector<LossRecoveryInfo>& LossRecoveries();

/** The loss recovery named `name`; nullptr if none is registered. */
const LossRecoveryInfo* FindLossRecovery(const std::string& name);

/** The names registered under `key`, sorted: the choices of `nic.receiver`, or the
 *  transports of their own (TRANSPORT; `nic.transport`'s choices are "roce" and these). */
std::vector<std::string> LossRecoveryNames(LossRecoveryInfo::Key key);

/** The loss recovery of a NIC whose `nic.transport` is `transport` and `nic.receiver` is
 *  `receiver` (used only with "roce"); nullptr if that name is not registered under its key. */
const LossRecoveryInfo* LossRecoveryOf(const std::string& transport, const std::string& receiver);

} // namespace ns3

#endif
