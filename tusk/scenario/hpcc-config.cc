#include "scenario/hpcc-config.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/input-text-reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace tusk
{

namespace
{

double
Number(const std::string& path, unsigned line, const std::string& key, const std::string& text)
{
    std::string t = text;
    double scale = 1;
    for (const auto& [suffix, s] : std::vector<std::pair<std::string, double>>{
             {"Gb/s", 1e9}, {"Mb/s", 1e6}, {"Kb/s", 1e3}, {"Gbps", 1e9}, {"Mbps", 1e6},
             {"Kbps", 1e3}, {"bps", 1}, {"b/s", 1}})
    {
        if (t.size() > suffix.size() && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            t = t.substr(0, t.size() - suffix.size());
            scale = s;
            break;
        }
    }
    try
    {
        size_t used = 0;
        const double v = std::stod(t, &used);
        if (used != t.size() || !(v >= 0) || !std::isfinite(v))
        {
            throw std::invalid_argument(t);
        }
        return v * scale;
    }
    catch (const std::exception&)
    {
        throw ns3::InputError(path, line, key,
                              "expected a finite non-negative number; got " + ns3::QuoteExcerpt(text));
    }
}

/** One `KEY value...` line of a config.txt. */
struct Entry
{
    unsigned line = 0;
    std::string key;
    std::vector<std::string> v;
};

/** Keys of the simulator's own run (its input and output files, tracing, stop time): the
 *  scenario's topology, workload and stop time and tusk's results take their place. */
const std::set<std::string> kRunKeys = {
    "TOPOLOGY_FILE",   "FLOW_FILE",      "TRACE_FILE",     "TRACE_OUTPUT_FILE",
    "FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE", "QLEN_MON_FILE", "QLEN_MON_START",
    "QLEN_MON_END",    "ENABLE_TRACE",   "SIMULATOR_STOP_TIME"};

} // namespace

bool
IsHpccConfigKey(const std::string& key)
{
    // Every key the simulator's third.cc reads.
    static const std::set<std::string> kKeys = {
        "ENABLE_QCN", "USE_DYNAMIC_PFC_THRESHOLD", "CLAMP_TARGET_RATE", "PAUSE_TIME", "DATA_RATE",
        "LINK_DELAY", "PACKET_PAYLOAD_SIZE", "L2_CHUNK_SIZE", "L2_ACK_INTERVAL", "L2_BACK_TO_ZERO",
        "TOPOLOGY_FILE", "FLOW_FILE", "TRACE_FILE", "TRACE_OUTPUT_FILE", "SIMULATOR_STOP_TIME",
        "ALPHA_RESUME_INTERVAL", "RP_TIMER", "EWMA_GAIN", "FAST_RECOVERY_TIMES", "RATE_AI",
        "RATE_HAI", "ERROR_RATE_PER_LINK", "CC_MODE", "RATE_DECREASE_INTERVAL", "MIN_RATE",
        "FCT_OUTPUT_FILE", "HAS_WIN", "GLOBAL_T", "MI_THRESH", "VAR_WIN", "FAST_REACT",
        "U_TARGET", "INT_MULTI", "RATE_BOUND", "ACK_HIGH_PRIO", "DCTCP_RATE_AI",
        "PFC_OUTPUT_FILE", "LINK_DOWN", "ENABLE_TRACE", "KMAX_MAP", "KMIN_MAP", "PMAX_MAP",
        "BUFFER_SIZE", "QLEN_MON_FILE", "QLEN_MON_START", "QLEN_MON_END", "MULTI_RATE",
        "SAMPLE_FEEDBACK", "PINT_LOG_BASE", "PINT_PROB"};
    return kKeys.count(key) > 0;
}

bool
IsHpccRunFileKey(const std::string& key)
{
    return key == "TOPOLOGY_FILE" || key == "FLOW_FILE" || key == "SIMULATOR_STOP_TIME" ||
           key == "FCT_OUTPUT_FILE" || key == "PFC_OUTPUT_FILE";
}

std::vector<std::string>
ApplyHpccConfig(const std::string& path, ScenarioSpec& spec)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
    {
        throw ns3::InputError(path, 0, "--hpcc-config", "expected a regular file (an HPCC config.txt)");
    }
    std::ifstream in(path);
    if (!in)
    {
        throw ns3::InputError(path, 0, "--hpcc-config", "cannot open the file");
    }
    return ApplyHpccConfig(in, path, spec);
}

std::vector<std::string>
ApplyHpccConfig(std::istream& stream, const std::string& path, ScenarioSpec& spec)
{
    ns3::InputTextReader in(stream, path, ns3::InputTextReader::HASH_COMMENTS);
    std::vector<Entry> entries;
    std::map<std::string, const Entry*> byKey;
    while (in.NextLine())
    {
        Entry& cur = entries.emplace_back();
        cur.line = in.Line();
        cur.key = in.Tokens()[0];
        cur.v.assign(in.Tokens().begin() + 1, in.Tokens().end());
    }
    for (const Entry& e : entries)
    {
        if (!e.key.empty())
        {
            byKey[e.key] = &e; // the last one counts, as in the simulator
        }
    }
    // A file none of whose keys the simulator reads is not a config (a topology, a flow list,
    // a scenario given by mistake): refused rather than run with every key ignored.
    if (std::none_of(byKey.begin(), byKey.end(),
                     [](const auto& kv) { return IsHpccConfigKey(kv.first); }))
    {
        const auto first = std::find_if(entries.begin(), entries.end(),
                                        [](const Entry& e) { return !e.key.empty(); });
        throw ns3::InputError(path, first == entries.end() ? 0 : first->line, "--hpcc-config",
                              "not an HPCC simulator config.txt: none of its lines starts with a "
                              "key the simulator reads (CC_MODE, ENABLE_QCN, KMAX_MAP, ...)");
    }

    std::vector<std::string> warnings;
    // A key as the file spells it, for warnings: bounded and escaped unless it is a plain
    // KEY_NAME (a file that is not a config must not have its lines repeated).
    auto where = [&](const Entry& e) {
        const bool plain = std::all_of(e.key.begin(), e.key.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        });
        return path + ":" + std::to_string(e.line) + ": " +
               (plain && e.key.size() <= 40 ? e.key : ns3::QuoteExcerpt(e.key));
    };
    auto need = [&](const Entry& e, size_t n) {
        if (e.v.size() != n)
        {
            throw ns3::InputError(path, e.line, e.key,
                                  "expected " + std::to_string(n) + " value(s); got " +
                                      std::to_string(e.v.size()));
        }
    };
    auto num = [&](const Entry& e, size_t i) { return Number(path, e.line, e.key, e.v[i]); };
    // A value in [lo, hi], else an error naming the line and key.
    auto ranged = [&](const Entry& e, size_t i, double lo, double hi, const char* what) {
        const double x = num(e, i);
        if (x < lo || x > hi)
        {
            throw ns3::InputError(path, e.line, e.key,
                                  std::string("expected ") + what + "; got " + ns3::QuoteExcerpt(e.v[i]));
        }
        return x;
    };
    // Set scenario key `key` from entry `e` unless the command line gave it with --set (those
    // win), and record where the value came from for the manifest.
    auto set = [&](const std::string& key, const Entry& e, const std::function<void()>& apply) {
        const auto it = spec.keyLines.find(key);
        if (it != spec.keyLines.end() && it->second == 0)
        {
            return; // explicit --set
        }
        apply();
        std::string text = e.key;
        for (const auto& w : e.v)
        {
            text += " " + w;
        }
        spec.imported[key] = path + ":" + std::to_string(e.line) + " " + text;
    };
    auto setCc = [&](const std::string& key, const Entry& e, double value) {
        set(key, e, [&] { spec.ccSettings[key] = value; });
    };

    // CC_MODE first: what several keys mean depends on it (the simulator's rdma-hw.cc).
    int mode = 0;
    if (const auto it = byKey.find("CC_MODE"); it != byKey.end())
    {
        const Entry& e = *it->second;
        need(e, 1);
        mode = static_cast<int>(ranged(e, 0, 0, 1000, "a mode number"));
        const char* cc = mode == 1 ? "dcqcn" : mode == 3 ? "hpcc" : mode == 7 ? "timely"
                         : mode == 8 ? "dctcp" : nullptr;
        if (cc == nullptr)
        {
            warnings.push_back(where(e) + " " + e.v[0] + ": " +
                               (mode == 10 ? std::string("HPCC-PINT") : "this mode") +
                               " is not modelled (1 DCQCN, 3 HPCC, 7 TIMELY and 8 DCTCP are); "
                               "congestion control left as \"" + spec.nic.congestionControl + "\"");
        }
        else
        {
            // CC_MODE 1 without ECN marking (ENABLE_QCN 0) is the simulator's PFC-only setup.
            const auto qcn = byKey.find("ENABLE_QCN");
            const bool pfcOnly = mode == 1 && qcn != byKey.end() && qcn->second->v.size() == 1 &&
                                 Number(path, qcn->second->line, "ENABLE_QCN", qcn->second->v[0]) == 0;
            set("nic.congestion_control", e,
                [&] { spec.nic.congestionControl = pfcOnly ? "none" : cc; });
        }
    }
    const bool dcqcn = mode == 1;
    auto& d = spec.dcqcn;
    std::map<uint64_t, EcnThresholds> byRate;
    const Entry* anyMap = nullptr;
    std::string mapLines; //!< "52 KMAX_MAP, 53 KMIN_MAP, ..." for the manifest
    std::set<std::string> warnedUnknown;
    std::vector<std::string> runKeys;
    for (const Entry& entry : entries)
    {
        if (entry.key.empty() || byKey.at(entry.key) != &entry || entry.key == "CC_MODE")
        {
            continue; // blank, comment, overridden by a later line, or done above
        }
        const Entry& e = entry;
        const std::string& key = e.key;
        if (key == "ENABLE_QCN")
        {
            need(e, 1);
            set("ecn.enabled", e, [&] { spec.ecn.enabled = num(e, 0) != 0; });
            // The simulator's switch decides the mark at dequeue (SwitchNotifyDequeue).
            set("ecn.mark_at_dequeue", e, [&] { spec.ecn.markAtDequeue = true; });
        }
        else if (key == "BUFFER_SIZE")
        {
            need(e, 1);
            // HPCC's third.cc: ConfigBufferSize(buffer_size * 1024 * 1024): MiB.
            const double mib = ranged(e, 0, 1.0 / 1024, 1e6, "a size in MiB > 0");
            set("buffer.total_bytes", e,
                [&] { spec.buffer.totalBytes = static_cast<uint64_t>(mib * 1024 * 1024); });
        }
        else if (key == "USE_DYNAMIC_PFC_THRESHOLD")
        {
            need(e, 1);
            set("buffer.threshold", e, [&] { spec.buffer.dynamicThreshold = num(e, 0) != 0; });
        }
        else if (key == "KMIN_MAP" || key == "KMAX_MAP" || key == "PMAX_MAP")
        {
            if (e.v.empty())
            {
                need(e, 1);
            }
            const size_t n = static_cast<size_t>(ranged(e, 0, 1, 64, "a count 1..64"));
            need(e, 1 + 2 * n);
            for (size_t i = 0; i < n; ++i)
            {
                const auto rate =
                    static_cast<uint64_t>(ranged(e, 1 + 2 * i, 1, 1e15, "a link rate 1..1e15 b/s"));
                EcnThresholds& t = byRate[rate];
                if (key == "PMAX_MAP")
                {
                    t.pmax = ranged(e, 2 + 2 * i, 0, 1, "a probability in [0, 1]");
                    continue;
                }
                // HPCC: KB
                const double x = ranged(e, 2 + 2 * i, 0, 1e9, "a threshold of 0..1e9 KB");
                (key == "KMIN_MAP" ? t.kminBytes : t.kmaxBytes) = static_cast<uint64_t>(x * 1000);
            }
            anyMap = &e;
            mapLines += (mapLines.empty() ? "" : ", ") + std::to_string(e.line) + " " + key;
        }
        else if (key == "PACKET_PAYLOAD_SIZE")
        {
            need(e, 1);
            const auto mtu = static_cast<uint32_t>(ranged(e, 0, 256, 9000, "256..9000 bytes"));
            set("nic.mtu_bytes", e, [&] { spec.nic.mtuBytes = mtu; });
        }
        else if (key == "L2_ACK_INTERVAL")
        {
            need(e, 1);
            const auto a = static_cast<uint32_t>(ranged(e, 0, 1, 1e9, "an integer >= 1"));
            set("nic.ack_interval", e, [&] { spec.nic.ackInterval = a; });
        }
        else if (key == "HAS_WIN" || key == "VAR_WIN")
        {
            // The sender window, any mode: HAS_WIN 0 none, 1 one BDP; VAR_WIN 1 scaled by rate.
            need(e, 1);
            num(e, 0);
            if (key == "HAS_WIN")
            {
                const auto var = byKey.find("VAR_WIN");
                const bool has = num(e, 0) != 0;
                const bool variable = var != byKey.end() && var->second->v.size() == 1 &&
                                      Number(path, var->second->line, "VAR_WIN",
                                             var->second->v[0]) != 0;
                set("nic.sender_window", e, [&] {
                    spec.nic.senderWindow = !has ? "none" : variable ? "variable" : "fixed";
                });
            }
        }
        else if (key == "ACK_HIGH_PRIO")
        {
            // 0: ACKs share the data packets' priority (queues and PFC); 1: the highest.
            need(e, 1);
            const bool high = num(e, 0) != 0;
            set("nic.control_priority", e, [&] {
                spec.nic.controlPriority = high ? 7 : spec.nic.dataPriority;
            });
        }
        else if (key == "EWMA_GAIN")
        {
            need(e, 1);
            const double g = ranged(e, 0, 0, 1, "a gain in [0, 1]");
            if (dcqcn)
            {
                set("dcqcn.g", e, [&] { d.g = g; });
            }
            else if (mode == 8)
            {
                setCc("dctcp.g", e, g);
            }
        }
        else if (key == "RATE_AI" || key == "RATE_HAI" || key == "MIN_RATE")
        {
            need(e, 1);
            const double bps = key == "MIN_RATE" ? ranged(e, 0, 1, 1e15, "a rate > 0")
                                                 : ranged(e, 0, 0, 1e15, "a rate of 0..1e15 b/s");
            if (dcqcn)
            {
                const auto v = static_cast<uint64_t>(bps);
                set(key == "RATE_AI" ? "dcqcn.rate_ai_mbps"
                    : key == "RATE_HAI" ? "dcqcn.rate_hai_mbps" : "dcqcn.min_rate_mbps",
                    e, [&] {
                        (key == "RATE_AI" ? d.rateAiBps : key == "RATE_HAI" ? d.rateHaiBps
                                                                            : d.minRateBps) = v;
                    });
            }
            else if (mode == 3 && key != "RATE_HAI")
            {
                setCc(key == "RATE_AI" ? "hpcc.rate_ai_mbps" : "hpcc.min_rate_mbps", e, bps / 1e6);
            }
            else if (mode == 7)
            {
                setCc(key == "RATE_AI" ? "timely.rate_ai_mbps"
                      : key == "RATE_HAI" ? "timely.rate_hai_mbps" : "timely.min_rate_mbps",
                      e, bps / 1e6);
            }
            // Mode 8 uses DCTCP_RATE_AI; HPCC has no hyper increase (the simulator ignores them).
        }
        else if (key == "DCTCP_RATE_AI")
        {
            need(e, 1);
            const double bps = ranged(e, 0, 0, 1e15, "a rate of 0..1e15 b/s");
            if (mode == 8)
            {
                setCc("dctcp.rate_ai_mbps", e, bps / 1e6);
            }
        }
        else if (key == "U_TARGET" || key == "MI_THRESH" || key == "FAST_REACT")
        {
            need(e, 1);
            if (mode == 3)
            {
                if (key == "U_TARGET")
                {
                    setCc("hpcc.target_utilisation", e, ranged(e, 0, 0.01, 1, "a fraction in (0, 1]"));
                }
                else if (key == "MI_THRESH")
                {
                    setCc("hpcc.max_stage", e, ranged(e, 0, 0, 1000, "0..1000"));
                }
                else
                {
                    setCc("hpcc.fast_react", e, num(e, 0) != 0 ? 1 : 0);
                }
            }
        }
        else if (key == "MULTI_RATE" || key == "SAMPLE_FEEDBACK" || key == "INT_MULTI")
        {
            need(e, 1);
            const double x = num(e, 0);
            if (mode == 3 && key == "MULTI_RATE" && x != 0)
            {
                warnings.push_back(where(e) + " 1: HPCC with one rate per hop is not modelled; "
                                              "the rate of the most loaded hop is used (MULTI_RATE 0)");
            }
            else if (mode == 3 && key == "SAMPLE_FEEDBACK" && x != 0)
            {
                warnings.push_back(where(e) + " 1: sampled INT feedback is not modelled; every "
                                              "ACK's INT is used (SAMPLE_FEEDBACK 0)");
            }
            // INT_MULTI: tusk's INT units scale with each hop's own rate (u = rate / 25 Gb/s,
            // what run.py sets INT_MULTI to), so the value is not needed.
        }
        else if (key == "GLOBAL_T")
        {
            need(e, 1);
            if (num(e, 0) == 0)
            {
                warnings.push_back(where(e) + " 0: a base RTT per host pair is not modelled; T is "
                                              "the fabric's largest base RTT (GLOBAL_T 1)");
            }
        }
        else if (key == "RATE_BOUND")
        {
            need(e, 1);
            if (num(e, 0) == 0)
            {
                warnings.push_back(where(e) + " 0: sending without the rate limiter is not "
                                              "modelled; QPs are paced at their rate");
            }
        }
        else if (key == "L2_BACK_TO_ZERO")
        {
            need(e, 1);
            if (num(e, 0) != 0)
            {
                warnings.push_back(where(e) + " 1: go-back-to-chunk-start is not modelled; "
                                              "NAKs go back to the missing PSN (go-back-N)");
            }
        }
        else if (key == "L2_CHUNK_SIZE")
        {
            // Only matters with L2_BACK_TO_ZERO 1 or an ACK interval above one packet.
            need(e, 1);
            const auto ai = byKey.find("L2_ACK_INTERVAL");
            const bool perPacket = ai == byKey.end() || (ai->second->v.size() == 1 &&
                                   Number(path, ai->second->line, "L2_ACK_INTERVAL",
                                          ai->second->v[0]) <= 1);
            if (num(e, 0) != 0 && !perPacket)
            {
                warnings.push_back(where(e) + ": ACKs at chunk boundaries are not modelled "
                                              "(ACKs come every nic.ack_interval packets)");
            }
        }
        else if (key == "ERROR_RATE_PER_LINK" || key == "LINK_DOWN")
        {
            bool any = false;
            for (size_t i = 0; i < e.v.size(); ++i)
            {
                any = any || num(e, i) != 0;
            }
            if (any)
            {
                warnings.push_back(where(e) + ": not modelled by --hpcc-config; give link errors "
                                              "and failures in the scenario ([[failures]] or "
                                              "[[failure_rates]] with kind = \"loss\" and a "
                                              "loss_rate)");
            }
        }
        else if (key == "PINT_LOG_BASE" || key == "PINT_PROB")
        {
            if (mode == 10)
            {
                warnings.push_back(where(e) + ": HPCC-PINT is not modelled");
            }
        }
        else if (key == "RP_TIMER" || key == "ALPHA_RESUME_INTERVAL")
        {
            // DCQCN's (the simulator ignores them in the other modes; checked all the same).
            need(e, 1);
            const auto ps = static_cast<uint64_t>(ranged(e, 0, 0.001, 1e9, "at least 0.001 us") * 1e6);
            if (dcqcn)
            {
                set(key == "RP_TIMER" ? "dcqcn.timer_us" : "dcqcn.alpha_update_us", e, [&] {
                    (key == "RP_TIMER" ? d.timerPs : d.alphaUpdatePs) = ps;
                });
            }
        }
        else if (key == "FAST_RECOVERY_TIMES")
        {
            need(e, 1);
            const auto f = static_cast<uint32_t>(ranged(e, 0, 0, 1000, "0..1000"));
            if (dcqcn)
            {
                set("dcqcn.fast_recovery_stages", e, [&] { d.fastRecoveryStages = f; });
            }
        }
        else if (key == "RATE_DECREASE_INTERVAL")
        {
            need(e, 1);
            const double us = ranged(e, 0, 0, 1e9, "a time >= 0 us");
            if (us > 0 && us < 0.001)
            {
                throw ns3::InputError(path, e.line, key, "expected 0 or at least 0.001 us; got " + ns3::QuoteExcerpt(e.v[0]));
            }
            if (dcqcn)
            {
                set("dcqcn.min_decrease_interval_us", e,
                    [&] { d.minDecreaseIntervalPs = static_cast<uint64_t>(us * 1e6); });
            }
        }
        else if (key == "CLAMP_TARGET_RATE")
        {
            need(e, 1);
            const bool clamp = num(e, 0) != 0;
            if (dcqcn)
            {
                set("dcqcn.clamp_target_rate", e, [&] { d.clampTargetRate = clamp; });
            }
        }
        else if (kRunKeys.count(key))
        {
            runKeys.push_back(key);
        }
        else if (warnedUnknown.insert(key).second)
        {
            warnings.push_back(where(e) + " is not modelled by tusk; ignored");
        }
    }
    // Run without a scenario file, the config's TOPOLOGY_FILE, FLOW_FILE, SIMULATOR_STOP_TIME
    // and output files are the run (hpcc-run-files.h; the topology then is imported).
    const bool filesRun = spec.imported.count("topology.file") > 0;
    std::string list;
    for (const auto& k : runKeys)
    {
        if (!filesRun || !IsHpccRunFileKey(k))
        {
            list += (list.empty() ? "" : ", ") + k;
        }
    }
    if (!list.empty())
    {
        warnings.push_back(path + ": not used, " +
                           (filesRun ? std::string("tracing tusk does not write (results-format.md "
                                                   "lists what it writes)")
                                     : std::string("settings of the HPCC simulator's own run: "
                                                   "the scenario file's topology, workload and "
                                                   "stop time take their place (--hpcc-config "
                                                   "without a scenario runs the config's files; "
                                                   "[output] formats = [\"hpcc\"] writes fct.txt "
                                                   "and pfc.txt)")) +
                           ": " + list);
    }
    if (anyMap)
    {
        for (const auto& [rate, t] : byRate)
        {
            if (t.kmaxBytes < t.kminBytes)
            {
                throw ns3::InputError(path, 0, "KMIN_MAP/KMAX_MAP",
                                      "expected KMAX >= KMIN for every rate; at " +
                                          std::to_string(rate) + " b/s KMIN " +
                                          std::to_string(t.kminBytes) + " B, KMAX " +
                                          std::to_string(t.kmaxBytes) + " B");
            }
        }
        set("ecn.by_rate", *anyMap, [&] {
            // KMAX = KMIN (DCTCP's step, run.py's CC_MODE 8): a step at K.
            for (auto& [rate, t] : byRate)
            {
                if (t.kmaxBytes == t.kminBytes)
                {
                    t.kmaxBytes = t.kminBytes + 1;
                }
            }
            spec.ecn.byRate = byRate;
            spec.ecn.fallbackGiven = false; // a rate missing from the maps is an error at load
            spec.ecn.thresholdsGiven = true;
        });
        if (spec.imported.count("ecn.by_rate"))
        {
            spec.imported["ecn.by_rate"] = path + ": lines " + mapLines;
        }
    }
    if (dcqcn)
    {
        set("dcqcn.preset", *byKey.at("CC_MODE"), [&] { d.preset = "hpcc"; });
        // The simulator's NP flags every CE-marked packet's ACK; its RP decreases at most every
        // RATE_DECREASE_INTERVAL: a CNP per marked packet is the closest (cut limited there).
        set("dcqcn.cnp_interval_us", *byKey.at("CC_MODE"), [&] { d.cnpIntervalPs = 0; });
    }
    return warnings;
}

} // namespace tusk
