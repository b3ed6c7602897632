/*
 * tusk: the failure kinds' registry, and the built-in kinds: links, switches and NICs that go
 * down and come back, links that degrade, lose frames, gray-fail or flap.
 */
#include "run/failure-kinds.h"
#include "scenario/scenario-text.h"

#include "fabric/model/fabric-units.h"
#include "fabric/model/registry.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace tusk
{

using namespace ns3;

uint32_t GrayHashSeed(uint64_t runSeed, size_t entry); // run-stages.h

namespace
{

Registry<FailureKindInfo>&
Table()
{
    static Registry<FailureKindInfo> table("failure kinds");
    return table;
}

} // namespace

FailureKindRegistration::FailureKindRegistration(FailureKindInfo info, std::string source)
{
    if (source.empty() || !info.schedule)
    {
        NS_FATAL_ERROR("failure kind \"" << info.name
                                         << "\" registered without a source or a schedule function");
    }
    for (const auto& key : info.keys)
    {
        if (info.drawable && std::find(kRateKeys.begin(), kRateKeys.end(), key) == kRateKeys.end())
        {
            NS_FATAL_ERROR("failure kind \"" << info.name << "\" is drawable but takes \"" << key
                                             << "\", which [[failure_rates]] does not carry");
        }
    }
    info.source = std::move(source);
    Table().Register(std::move(info));
}

const char*
FailureComponentName(FailureKindInfo::Target target)
{
    static const char* const kComponents[] = {"link", "switch", "nic"};
    return kComponents[target];
}

std::vector<std::string>
DrawableFailureKinds(const std::string& component)
{
    std::vector<std::string> defaults;
    std::vector<std::string> others;
    for (const auto& k : Table().All())
    {
        if (k.drawable && (component.empty() || component == FailureComponentName(k.target)))
        {
            (k.effect == FailureKindInfo::TAKES_DOWN ? defaults : others).push_back(k.name);
        }
    }
    defaults.insert(defaults.end(), others.begin(), others.end());
    return defaults;
}

const std::vector<FailureKindInfo>&
FailureKinds()
{
    return Table().All();
}

const FailureKindInfo*
FindFailureKind(const std::string& name)
{
    return Table().Find(name);
}

std::vector<std::string>
FailureKindNames()
{
    return Table().Names();
}

std::vector<std::string>
FailureKindsTaking(const std::string& key)
{
    static const char* const kTargetKeys[] = {"link", "switch", "host"};
    std::vector<std::string> out;
    for (const auto& k : Table().All())
    {
        const bool takes = key == kTargetKeys[k.target] || (key == "until_us" && k.lasting) ||
                           std::find(k.keys.begin(), k.keys.end(), key) != k.keys.end();
        if (takes)
        {
            out.push_back(k.name);
        }
    }
    return out;
}

void
FailureReadCheck::Require(const char* key, const std::string& what) const
{
    if (table.get(key) == nullptr)
    {
        reader.Fail(&entry, path + "." + key, "required: " + what);
    }
}

void
FailureReadCheck::ExactlyOne(const char* a, const char* b) const
{
    const bool hasA = table.get(a) != nullptr;
    const bool hasB = table.get(b) != nullptr;
    if (hasA == hasB)
    {
        const std::string context = "kind = " + Quote(f.kind);
        reader.Fail(hasA ? table.get(b) : &entry, path + "." + (hasA ? b : a),
                    hasA ? context + " takes " + a + " or " + b + ", not both"
                         : "required for " + context + ": " + a + " or " + b + " (one of them)");
    }
}

void
FailureReadCheck::Fail(const char* key, const std::string& message) const
{
    const toml::node* n = table.get(key);
    reader.Fail(n != nullptr ? n : &entry, path + "." + key, message);
}

void
FailureCheck::Fail(const std::string& key, const std::string& message) const
{
    throw InputError(spec.sourceFile, f.line, fmt::format("failures[{}].{}", index, key), message);
}

namespace
{

// ---- down and up: links, switches, NICs ------------------------------------------------------

/** Down at at_us, and up again at until_us if given. */
void
ScheduleDown(const FailureSchedule& s)
{
    auto driver = s.driver;
    const auto links = s.links;
    s.At(s.f.atPs, [driver, links]() { driver->SetUp(links, false); });
    if (s.f.untilPs)
    {
        s.At(*s.f.untilPs, [driver, links]() { driver->SetUp(links, true); });
    }
}

void
ScheduleUp(const FailureSchedule& s)
{
    auto driver = s.driver;
    const auto links = s.links;
    s.At(s.f.atPs, [driver, links]() { driver->SetUp(links, true); });
}

FailureKindInfo
DownOrUp(std::string name, FailureKindInfo::Target target, bool down, std::string description,
         std::string doc)
{
    FailureKindInfo k;
    k.name = std::move(name);
    k.description = std::move(description);
    k.doc = std::move(doc);
    k.target = target;
    k.effect = down ? FailureKindInfo::TAKES_DOWN : FailureKindInfo::BRINGS_UP;
    k.lasting = down;
    k.schedule = down ? &ScheduleDown : &ScheduleUp;
    k.drawable = down; // [[failure_rates]] may draw the _down kinds
    return k;
}

const FailureKindRegistration kLinkDown{
    DownOrUp("link_down", FailureKindInfo::LINK, true, "a link goes down",
             "both ports stop sending and drop what arrives (drop reason `link_down`); a switch "
             "port flushes its queue (`[fabric] flush_on_link_down`); switches stop choosing the "
             "port at once (local failover), and a switch with no other port towards the "
             "destination drops with `link_down`; routing converges `[fabric] reconvergence_us` "
             "later."),
    "Gill et al., Understanding Network Failures in Data Centers, SIGCOMM 2011"};
const FailureKindRegistration kLinkUp{
    DownOrUp("link_up", FailureKindInfo::LINK, false, "a link comes back up",
             "the link carries traffic again (routing converges again)."),
    "Gill et al., Understanding Network Failures in Data Centers, SIGCOMM 2011"};
const FailureKindRegistration kSwitchDown{
    DownOrUp("switch_down", FailureKindInfo::SWITCH, true, "every link of a switch goes down",
             "every link of `switch` goes down, as `link_down`."),
    "Gill et al., Understanding Network Failures in Data Centers, SIGCOMM 2011"};
const FailureKindRegistration kSwitchUp{
    DownOrUp("switch_up", FailureKindInfo::SWITCH, false, "every link of a switch comes back up",
             "every link of `switch` comes back up, as `link_up`."),
    "Gill et al., Understanding Network Failures in Data Centers, SIGCOMM 2011"};
const FailureKindRegistration kNicDown{
    DownOrUp("nic_down", FailureKindInfo::NIC, true, "a host's NIC link(s) go down",
             "the link(s) of host `host` go down: the rank stops; its flows and those to it stay "
             "unfinished (reported as such; a run that must finish exits 1)."),
    "Meta, The Llama 3 Herd of Models, 2024, sec. 3.3.4 (interruptions by GPU and NIC failures)"};
const FailureKindRegistration kNicUp{
    DownOrUp("nic_up", FailureKindInfo::NIC, false, "a host's NIC link(s) come back up",
             "the link(s) of host `host` come back up."),
    "Meta, The Llama 3 Herd of Models, 2024, sec. 3.3.4 (interruptions by GPU and NIC failures)"};

// ---- impairments: degrade, loss, gray ----------------------------------------------------------

/** For each built link of the entry, the impairment `make` gives, from at_us to until_us. */
template <class Make>
void
ScheduleImpairment(const FailureSchedule& s, Make make)
{
    for (uint32_t gl : s.links)
    {
        if (s.driver->Link(gl) == nullptr)
        {
            continue;
        }
        const Impairment what = make(gl);
        auto driver = s.driver;
        const size_t i = s.index;
        s.At(s.f.atPs, [driver, gl, i, what]() { driver->Impair(gl, i, true, what); });
        if (s.f.untilPs)
        {
            s.At(*s.f.untilPs, [driver, gl, i, what]() { driver->Impair(gl, i, false, what); });
        }
    }
}

/** The rate of a degraded link whose configured rate is `linkBps`, bit/s. */
uint64_t
DegradedBps(const FailureEntry& f, uint64_t linkBps)
{
    return f.rateBps ? *f.rateBps : linkBps / f.rateDivisor.value_or(1);
}

const FailureKindRegistration kDegrade{
    [] {
        FailureKindInfo k;
        k.name = "degrade";
        k.description = "a link runs at a lower rate";
        k.doc = "both ports' rate becomes the link's configured rate / `rate_divisor`, or "
                "`rate_gbps` (the frame on the wire finishes at the old rate).";
        k.lasting = true;
        k.keys = {"rate_divisor", "rate_gbps"};
        k.read = [](const FailureReadCheck& c) { c.ExactlyOne("rate_divisor", "rate_gbps"); };
        k.rateBps = &DegradedBps;
        k.drawable = true;
        k.check = [](const FailureCheck& c) {
            for (uint32_t l : c.links)
            {
                const uint64_t rate = c.graph.links[l].rateBps;
                const uint64_t degraded = DegradedBps(c.f, rate);
                if (!c.f.rateBps && degraded < kMinLinkRateBps)
                {
                    const auto& gl = c.graph.links[l];
                    c.Fail("rate_divisor",
                           fmt::format("expected a degraded rate of at least 1 Mb/s (the smallest "
                                       "link rate); link {}-{} of {:g} Gb/s divided by {} gives "
                                       "{} bit/s",
                                       c.graph.vertices[gl.a].name, c.graph.vertices[gl.b].name,
                                       rate / 1e9, c.f.rateDivisor.value_or(1), degraded));
                }
            }
        };
        k.schedule = [](const FailureSchedule& s) {
            ScheduleImpairment(s, [&s](uint32_t gl) {
                Impairment what;
                what.bps = DegradedBps(s.f, s.graph.links[gl].rateBps);
                return what;
            });
        };
        return k;
    }(),
    "Zhuo et al., Understanding and Mitigating Packet Corruption in Data Center Networks, "
    "SIGCOMM 2017 (links taken to lower speeds)"};

const FailureKindRegistration kLoss{
    [] {
        FailureKindInfo k;
        k.name = "loss";
        k.description = "a link corrupts frames at random";
        k.doc = "each frame arriving at either end is corrupted with probability `loss_rate` and "
                "dropped at the receiving port's FCS check (drop reason `fcs`; PFC does not "
                "prevent it, the transport recovers).";
        k.lasting = true;
        k.keys = {"loss_rate"};
        k.read = [](const FailureReadCheck& c) {
            c.Require("loss_rate", "the probability that a frame is corrupted (0..1)");
        };
        k.drawable = true;
        k.schedule = [](const FailureSchedule& s) {
            ScheduleImpairment(s, [&s](uint32_t) {
                // ns-3's RateErrorModel per receiving port, per frame, its own stream.
                Impairment what;
                for (Ptr<ErrorModel>* end : {&what.lossA, &what.lossB})
                {
                    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                    em->SetRate(s.f.lossRate.value());
                    s.stream += em->AssignStreams(s.stream);
                    *end = em;
                }
                return what;
            });
        };
        return k;
    }(),
    "Zhuo et al., Understanding and Mitigating Packet Corruption in Data Center Networks, "
    "SIGCOMM 2017"};

const FailureKindRegistration kGray{
    [] {
        FailureKindInfo k;
        k.name = "gray";
        k.description = "a link loses the frames of some flows (bad hash buckets)";
        k.doc = "only the flows whose 5-tuple hashes into a fraction `hash_fraction` of 4,096 "
                "buckets lose frames, each with probability `loss_rate` (drop reason `gray`): a "
                "bad hash bucket or ASIC lane.";
        k.lasting = true;
        k.keys = {"loss_rate", "hash_fraction"};
        k.read = [](const FailureReadCheck& c) {
            c.Require("hash_fraction", "the fraction of hash buckets that are bad (0..1)");
        };
        k.schedule = [](const FailureSchedule& s) {
            ScheduleImpairment(s, [&s](uint32_t) {
                // One model per link, the same bad buckets in both directions.
                Impairment what;
                what.gray = CreateObject<GrayFailureModel>();
                what.gray->SetAttribute("LossRate", DoubleValue(s.f.lossRate.value_or(1.0)));
                what.gray->SetAttribute("HashFraction", DoubleValue(s.f.hashFraction.value()));
                what.gray->SetAttribute("HashSeed", UintegerValue(GrayHashSeed(s.spec.seed, s.index)));
                s.stream += what.gray->AssignStreams(s.stream);
                return what;
            });
        };
        return k;
    }(),
    "Huang et al., Gray Failure: The Achilles' Heel of Cloud-Scale Systems, HotOS 2017"};

// ---- flap ------------------------------------------------------------------------------------

/** The most down/up cycles one flap may schedule (a million: a 1 us period over a second). */
constexpr uint64_t kMaxFlapCycles = 1'000'000;

const FailureKindRegistration kFlap{
    [] {
        FailureKindInfo k;
        k.name = "flap";
        k.description = "a link goes down and up periodically";
        k.doc = "the link goes down at `at_us` + k × `period_us` and up `down_us` later, for "
                "`count` cycles or until `until_us`, each down and up as `link_down` / "
                "`link_up`.";
        k.lasting = true;
        k.keys = {"period_us", "down_us", "count"};
        k.read = [](const FailureReadCheck& c) {
            c.Require("period_us", "one down/up cycle, in microseconds");
            c.Require("down_us", "the down part of each cycle, in microseconds");
            c.ExactlyOne("until_us", "count");
            if (*c.f.downPs >= *c.f.periodPs)
            {
                c.Fail("down_us", "expected less than period_us (" +
                                      FormatDouble(*c.f.periodPs / 1e6) +
                                      " us): the link must come up in each cycle");
            }
        };
        k.check = [](const FailureCheck& c) {
            // Every cycle is scheduled at load time: a tiny period over a long run would hang
            // there.
            const FailureEntry& f = c.f;
            const uint64_t end = std::min(f.untilPs.value_or(c.spec.stopTimePs), c.spec.stopTimePs);
            const uint64_t span = end > f.atPs ? end - f.atPs : 0;
            const uint64_t cycles = std::min<uint64_t>(
                f.count.value_or(std::numeric_limits<uint32_t>::max()),
                (span + *f.periodPs - 1) / *f.periodPs);
            if (cycles > kMaxFlapCycles)
            {
                c.Fail("period_us",
                       fmt::format("expected at most {} down/up cycles before the flap ends "
                                   "(count, until_us or stop_time_ms); a period of {} us gives {}",
                                   kMaxFlapCycles, *f.periodPs / 1e6, cycles));
            }
        };
        k.schedule = [](const FailureSchedule& s) {
            const FailureEntry& f = s.f;
            auto driver = s.driver;
            const auto links = s.links;
            for (uint64_t c = 0;; ++c)
            {
                const uint64_t start = f.atPs + c * f.periodPs.value();
                if ((f.count && c >= *f.count) || (f.untilPs && start >= *f.untilPs) ||
                    start >= s.spec.stopTimePs)
                {
                    break;
                }
                s.At(start, [driver, links]() { driver->SetUp(links, false); });
                s.At(start + f.downPs.value(), [driver, links]() { driver->SetUp(links, true); });
            }
        };
        return k;
    }(),
    "Gill et al., Understanding Network Failures in Data Centers, SIGCOMM 2011 (link flapping)"};

} // namespace

} // namespace tusk
