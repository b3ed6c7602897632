/*
 * tusk: [nic], the RoCEv2 NIC, its transport and how transfers use its QPs.
 */
#include "scenario/scenario-sections.h"

#include "rdma/model/cc/cc-registry.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"
#include "rdma/model/rdma-nic.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = NicSection;
const char* const kP = "nic";

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Size<S>("mtu_bytes", &S::mtuBytes, 256, 9000, "RoCE payload bytes per packet.")
            .Attr({"ns3::RdmaNic::MtuBytes"}),
        Count<S>("ack_interval", &S::ackInterval, 1,
                 "ACK coalescing: one ACK per this many data packets.")
            .Unit("packets")
            .Attr({"ns3::RdmaNic::AckInterval"}),
        Time<S>("rto_us", &S::rtoPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::TIMER, bounds::kTimer,
                "Retransmission timeout: no ACK progress for this long resends from the oldest "
                "unacknowledged PSN. A deployed RoCE NIC uses its Local ACK Timeout, "
                "4.096 µs × 2^n with n = 14 (the QP attribute `timeout`) or more: `67108.864`, "
                "long enough that a PFC-paused queue is never mistaken for a loss (with 1 ms, "
                "`background-mix.toml` with spraying over go-back-N made tens of thousands of "
                "timeout resends and no drop). Lossy runs that rely on it "
                "to recover a lost tail want it short (tests use 50–200 µs); the UEC transports "
                "need ≥ 10 µs. A timeout shorter than the longest base RTT of the workload's host "
                "pairs (and the manifest's `path_classes`) is warned of when the run starts: "
                "every packet on that path would time out before its ACK returns. Timeout "
                "resends are counted apart: "
                "flows.csv and the summary's "
                "`retx_timeout_packets` ([rdma.md](../ns3-modules/rdma/doc/rdma.md#retransmission-timeout-the-default-and-what-deployed-nics-use)).")
            .Attr({"ns3::RdmaNic::RetransmitTimeout"}),
        Integer<S>("qps_per_connection", &S::qpsPerConnection, 1, ns3::RdmaNic::kMaxQps,
                   "Queue pairs per connection (QP scaling); each QP has its own UDP source port "
                   "(see `qp_entropy`), i.e. its own ECMP entropy. A policy preset (`qp4-split`, "
                   "`qp4-rr`) may fix it. The bound is the QPs one NIC can number (the BTH's "
                   "24-bit destination QP, less QPN 0 and 1); a NIC that runs out of QP numbers "
                   "over all its connections stops the run with that message. Beyond 16384 QPs "
                   "the UDP source ports (49152..65535) repeat. With `qp_scaling = \"split\"` a "
                   "transfer smaller than the QP count uses only as many QPs as it has bytes.")
            .Attr({"ns3::WorkloadExecutor::QpsPerConnection"}),
        Choice<S>("qp_scaling", &S::qpScaling, {"split", "round-robin"},
                  "How a transfer uses its connection's QPs: `\"split\"` cuts it into one equal "
                  "message per QP, all in parallel; `\"round-robin\"` cuts it into messages of at "
                  "most `qp_message_bytes` and posts them on the QPs in turn, continuing across "
                  "transfers (as Meta's collective library does).")
            .Attr({"ns3::WorkloadExecutor::QpScaling"}),
        Size<S>("qp_message_bytes", &S::qpMessageBytes, 1, bounds::kMaxTransferBytes,
                "`round-robin`: the largest message posted on one QP (NCCL's default channel "
                "buffer slot is 4 MiB / 8 steps = 512 KiB).")
            .Attr({"ns3::WorkloadExecutor::QpMessageBytes"}),
        Choice<S>("qp_entropy", &S::qpEntropy, {"random", "sequential", "shared"},
                  "UDP source ports of a connection's QPs: `\"random\"` (each its own, drawn from "
                  "the dynamic range 49152..65535), `\"sequential\"` (consecutive ports from a "
                  "random base, as NICs that derive the port from the QPN), `\"shared\"` (one "
                  "port for all: only E-ECMP's destination-QP hash can tell them apart).")
            .Attr({"ns3::WorkloadExecutor::QpEntropy"}),
        Custom<S>(
            "receiver", "string", "",
            "Loss recovery of the RC QPs (`transport = \"roce\"` only; not written in the "
            "manifest of a `uec-*` run). `\"go-back-n\"`: RoCEv2 as ConnectX NICs without "
            "selective repeat (one NAK per out-of-order PSN, the sender resends from it). "
            "`\"selective-repeat\"`: IRN-style (Mittal et al., SIGCOMM 2018): out-of-order "
            "placement, a SACK per out-of-order packet, only what is missing is resent; a packet "
            "counts as lost when one sent more than `ns3::SelectiveRepeatRecovery::ReorderWindow` "
            "(50 µs) after it was acknowledged; at most `ns3::SelectiveRepeatRecovery::Window` "
            "(1024) packets outstanding per QP (the NIC's `LossRecovery` is "
            "`ns3::GoBackNRecovery` or `ns3::SelectiveRepeatRecovery`).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& s) {
                s.receiver =
                    r.Choice(&n, key, ns3::LossRecoveryNames(ns3::LossRecoveryInfo::RECEIVER));
            },
            // A UEC transport has no receiver choice (uec-rod is go-back-N, uec-rud selective
            // repeat), and the key is refused with one: never echo it there.
            [](const S& s) {
                return s.transport == ns3::kRoceTransport ? nlohmann::json(s.receiver)
                                                          : nlohmann::json();
            })
            .Default("`\"go-back-n\"`")
            .Attr({"ns3::RdmaNic::LossRecovery"}),
        Custom<S>(
            "transport", "string", "",
                  "The transport of every QP. `\"roce\"`: RoCEv2 RC, recovery per `receiver`. "
                  "`\"uec-rod\"`: Ultra-Ethernet-style reliable ordered delivery: one entropy "
                  "(EV) per connection whatever `lb.path_selector` or the policy preset say (the "
                  "manifest's `path_selector_type_id` shows `ns3::FixedPathSelector`), go-back-N. "
                  "`\"uec-rud\"`: reliable unordered delivery: the EV of every packet comes from "
                  "the path selector (`lb.path_selector` or the policy preset, e.g. "
                  "`host-random-spray`, `host-reps`; a switch-only policy such as `ecmp` keeps "
                  "one EV per QP), out-of-order placement with SACK and selective retransmission "
                  "(the `\"selective-repeat\"` machinery). With a `uec-*` transport, `receiver` "
                  "must not be set and `rto_us` must be at least 10 µs (the documented minimum "
                  "RTO). Packet trimming at the switches is the switch attribute "
                  "`\"ns3::SwitchNode::TrimThresholdBytes\"` (bytes, 0 = off) in `[ns3]`, with "
                  "`TrimmedFrameBytes` (64) and `TrimPriority` (7). What of UEC 1.0 is modelled: "
                  "[ns3-modules/rdma/doc/rdma.md](../ns3-modules/rdma/doc/rdma.md#uec-style-"
                  "transport-rod-and-rud). A loss recovery of one's own registers as a receiver "
                  "or a transport (`tusk kinds`).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& s) {
                std::vector<std::string> names = {ns3::kRoceTransport};
                for (const auto& t : ns3::LossRecoveryNames(ns3::LossRecoveryInfo::TRANSPORT))
                {
                    names.push_back(t);
                }
                s.transport = r.Choice(&n, key, names);
            },
            [](const S& s) { return nlohmann::json(s.transport); })
            .Attr({"ns3::RdmaNic::LossRecovery"}),
        Boolean<S>("cnp_on_ooo", &S::cnpOnOutOfOrder,
                   "The responder NIC also sends a CNP to the requester when a data packet "
                   "arrives out of order (at most one per QP per `[dcqcn] cnp_interval_us`).")
            .Attr({"ns3::RdmaNic::CnpOnOutOfOrder"}),
        Custom<S>(
            "congestion_control", "string", "",
            "A congestion control by the name it registered (`tusk kinds` lists them "
            "with what each needs; a plugin, `--plugin`, may add more). "
            "`\"none\"`: no end-host congestion control (PFC only, as Meta runs at 400G); "
            "`\"dcqcn\"`: DCQCN, see `[dcqcn]`; `\"hpcc\"`: HPCC with INT (Li et al. "
            "2019), see `[hpcc]`; `\"timely\"`: TIMELY's RTT gradient (Mittal et al. "
            "2015), see `[timely]`; `\"swift\"`: a Swift-like delay target (Kumar et al. "
            "2020), see `[swift]`; `\"dctcp\"`: DCTCP-style ECN window control (the HPCC "
            "simulator's CC_MODE 8), see `[dctcp]`; `\"nscc\"`: NSCC as UEC 1.0 "
            "specifies it, see `[nscc]`; `\"ib-cc\"`: InfiniBand congestion control "
            "(FECN marks, BECN per marked packet, a CCT of inter-packet delays), only "
            "with `[fabric] kind = \"infiniband\"`, see `[ib-cc]`. `dcqcn`, `dctcp`, "
            "`nscc` and `ib-cc` need `[ecn] enabled "
            "= true`; with a UEC transport and no thresholds given, Kmin = 0.2·BDP and Kmax "
            "= 0.8·BDP per port rate (see `[ecn]`). HPCC's INT records need every link "
            "rate to be 10, 25, 40, 50, 100, 200, 400 or 800 Gb/s. The controls that need "
            "the fabric's base RTT T (HPCC, Swift, DCTCP, NSCC, the sender window, "
            "receiver credits) get the longest host-to-host path's (the manifest's "
            "`resolved.attributes` `ns3::RdmaNic::BaseRtt`). See "
            "[rdma.md](../ns3-modules/rdma/doc/rdma.md#the-congestion-control-family).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& s) {
                s.congestionControl = r.Choice(&n, key, ns3::CongestionControlNames());
            },
            [](const S& s) { return nlohmann::json(s.congestionControl); })
            .Attr({"ns3::RdmaNic::CongestionControl"}),
        Choice<S>("sender_window", &S::senderWindow, {"none", "fixed", "variable"},
                  "A sender window with any congestion control (the HPCC simulator's HAS_WIN / "
                  "VAR_WIN): `\"none\"`; `\"fixed\"`, at most one BDP (host line rate × T) "
                  "of payload outstanding per QP; `\"variable\"`, that × the control's rate / "
                  "line rate. HPCC's own window W applies either way.")
            .Attr({"ns3::RdmaNic::SenderWindow"}),
        Boolean<S>("receiver_credit", &S::receiverCredit,
                   "UEC-style receiver credits (RCCC, Ultra Ethernet 1.0) with any congestion "
                   "control: a sender sends only with credit (a speculative window, then what its "
                   "receiver grants); see `[rccc]`.")
            .Attr({"ns3::RdmaNic::ReceiverCredit"}),
        Integer<S>("data_priority", &S::dataPriority, 0, 7,
                   "Traffic class (PFC priority) of data packets."),
        Integer<S>("control_priority", &S::controlPriority, 0, 7,
                   "Traffic class of ACK / NAK / CNP.")
            .Attr({"ns3::RdmaNic::ControlPriority"}),
        NamedChoice<S>("ack_route", &S::ackRoute,
                       {{"fixed", ns3::RdmaNic::ACK_FIXED}, {"reverse", ns3::RdmaNic::ACK_REVERSE}},
                  "Which route the responder's ACKs, NAKs, trim NACKs and CNPs take. "
                  "`\"fixed\"`: the responder QP's own UDP source port, drawn at connection, "
                  "so one route per QP whatever the data took (RoCE). `\"reverse\"`: each "
                  "answers one data packet (a coalesced ACK, the packet that triggered it) and "
                  "carries that packet's UDP source port, its EV echoed: with ECMP switches "
                  "the reply is hashed on it (on a multi-plane fabric it takes the data's "
                  "plane); under source routing (`source-route`, `mrc`, `ethereal`) it takes "
                  "the route that retraces the links the packet took, across planes and "
                  "dual-ToR ports. A path whose data gets through is then the path its "
                  "acknowledgements come back on, so a sender that retires dead paths also "
                  "retires the dead paths of its acknowledgements. Credit grants "
                  "(`receiver_credit`) keep the QP's own port. "
                  "[rdma.md](../ns3-modules/rdma/doc/rdma.md#acknowledgement-routes)")
            .Default("the policy's: `\"reverse\"` for `source-route` and `mrc`, else "
                     "`\"fixed\"`")
            .Attr({"ns3::RdmaNic::AckRoute"}),
    };
    return rows;
}

/** A transport of its own has no receiver choice; a loss recovery may need a minimum
 *  retransmission timeout (LossRecoveryInfo::minRtoPs). */
void
CheckTransport(ScenarioReader& r, const toml::table& t, ScenarioSpec& spec)
{
    const auto& nic = spec.nic;
    const toml::node* transport = t.get("transport");
    const ns3::LossRecoveryInfo* recovery = ns3::LossRecoveryOf(nic.transport, nic.receiver);
    if (nic.transport != ns3::kRoceTransport && t.get("receiver") != nullptr)
    {
        r.Fail(transport, "nic.transport",
               "nic.receiver cannot be set with transport \"" + nic.transport +
                   "\": it has its own loss recovery" +
                   (recovery ? " (" + recovery->description + ")" : std::string()));
    }
    if (recovery != nullptr && nic.rtoPs < recovery->minRtoPs)
    {
        const toml::node* n = t.get("rto_us");
        const toml::node* named = recovery->key == ns3::LossRecoveryInfo::RECEIVER
                                      ? t.get("receiver")
                                      : transport;
        r.Fail(n ? n : named, n ? "nic.rto_us" : recovery->KeyName(),
               std::string(recovery->KeyName()) + " = \"" + recovery->name +
                   "\" needs a retransmission timeout (nic.rto_us) of at least " +
                   FormatDouble(recovery->minRtoPs / 1e6) + " us; got " +
                   FormatDouble(nic.rtoPs / 1e6) + " us");
    }
}

} // namespace

Section
NicKeys()
{
    PlainSectionOptions options;
    options.check = &CheckTransport;
    return PlainSection(kP, &Rows, &ScenarioSpec::nic, options);
}

} // namespace tusk
