#include "hpcc-config.h"

#include "fabric/model/input-error.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

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
                              "expected a finite non-negative number; got \"" + text + "\"");
    }
}

} // namespace

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
    std::vector<std::string> warnings;
    std::string raw;
    unsigned line = 0;
    std::map<uint64_t, EcnThresholds> byRate;
    bool anyMap = false;
    while (std::getline(in, raw))
    {
        ++line;
        std::istringstream ss(raw);
        std::string key;
        if (!(ss >> key) || key[0] == '#')
        {
            continue;
        }
        std::vector<std::string> v;
        for (std::string w; ss >> w;)
        {
            v.push_back(w);
        }
        auto need = [&](size_t n) {
            if (v.size() != n)
            {
                throw ns3::InputError(path, line, key,
                                      "expected " + std::to_string(n) + " value(s); got " +
                                          std::to_string(v.size()));
            }
        };
        auto num = [&](size_t i) { return Number(path, line, key, v[i]); };
        // A value in [lo, hi], else an error naming the line and key.
        auto ranged = [&](size_t i, double lo, double hi, const char* what) {
            const double x = num(i);
            if (x < lo || x > hi)
            {
                throw ns3::InputError(path, line, key, std::string("expected ") + what + "; got " + v[i]);
            }
            return x;
        };
        auto& d = spec.dcqcn;
        if (key == "CC_MODE")
        {
            need(1);
            if (num(0) == 1)
            {
                spec.nic.congestionControl = "dcqcn";
            }
            else
            {
                warnings.push_back(path + ":" + std::to_string(line) + ": " + key + " " + v[0] +
                                   ": only mode 1 (DCQCN) is modelled; congestion control left "
                                   "as \"" + spec.nic.congestionControl + "\"");
            }
        }
        else if (key == "ENABLE_QCN")
        {
            need(1);
            spec.ecn.enabled = num(0) != 0;
        }
        else if (key == "BUFFER_SIZE")
        {
            need(1);
            // HPCC's third.cc: ConfigBufferSize(buffer_size * 1024 * 1024): MiB.
            spec.buffer.totalBytes =
                static_cast<uint64_t>(ranged(0, 1.0 / 1024, 1e6, "a size in MiB > 0") * 1024 * 1024);
        }
        else if (key == "USE_DYNAMIC_PFC_THRESHOLD")
        {
            need(1);
            spec.buffer.dynamicThreshold = num(0) != 0;
        }
        else if (key == "KMIN_MAP" || key == "KMAX_MAP" || key == "PMAX_MAP")
        {
            if (v.empty())
            {
                need(1);
            }
            const size_t n = static_cast<size_t>(ranged(0, 1, 64, "a count 1..64"));
            need(1 + 2 * n);
            for (size_t i = 0; i < n; ++i)
            {
                const auto rate =
                    static_cast<uint64_t>(ranged(1 + 2 * i, 1, 1e15, "a link rate 1..1e15 b/s"));
                EcnThresholds& t = byRate[rate];
                if (key == "PMAX_MAP")
                {
                    t.pmax = ranged(2 + 2 * i, 0, 1, "a probability in [0, 1]");
                    continue;
                }
                // HPCC: KB
                const double x = ranged(2 + 2 * i, 0, 1e9, "a threshold of 0..1e9 KB");
                (key == "KMIN_MAP" ? t.kminBytes : t.kmaxBytes) = static_cast<uint64_t>(x * 1000);
            }
            anyMap = true;
        }
        else if (key == "PACKET_PAYLOAD_SIZE")
        {
            need(1);
            spec.nic.mtuBytes = static_cast<uint32_t>(ranged(0, 256, 9000, "256..9000 bytes"));
        }
        else if (key == "L2_ACK_INTERVAL")
        {
            need(1);
            spec.nic.ackInterval = static_cast<uint32_t>(ranged(0, 1, 1e9, "an integer >= 1"));
        }
        else if (key == "EWMA_GAIN")
        {
            need(1);
            d.g = ranged(0, 0, 1, "a gain in [0, 1]");
        }
        else if (key == "RP_TIMER")
        {
            need(1);
            d.timerPs = static_cast<uint64_t>(ranged(0, 0.001, 1e9, "at least 0.001 us") * 1e6);
        }
        else if (key == "FAST_RECOVERY_TIMES")
        {
            need(1);
            d.fastRecoveryStages = static_cast<uint32_t>(ranged(0, 0, 1000, "0..1000"));
        }
        else if (key == "RATE_AI")
        {
            need(1);
            d.rateAiBps = static_cast<uint64_t>(ranged(0, 0, 1e15, "a rate of 0..1e15 b/s"));
        }
        else if (key == "RATE_HAI")
        {
            need(1);
            d.rateHaiBps = static_cast<uint64_t>(ranged(0, 0, 1e15, "a rate of 0..1e15 b/s"));
        }
        else if (key == "MIN_RATE")
        {
            need(1);
            d.minRateBps = static_cast<uint64_t>(ranged(0, 1, 1e15, "a rate > 0"));
        }
        else if (key == "ALPHA_RESUME_INTERVAL")
        {
            need(1);
            d.alphaUpdatePs = static_cast<uint64_t>(ranged(0, 0.001, 1e9, "at least 0.001 us") * 1e6);
        }
        else if (key == "RATE_DECREASE_INTERVAL")
        {
            need(1);
            const double us = ranged(0, 0, 1e9, "a time >= 0 us");
            if (us > 0 && us < 0.001)
            {
                throw ns3::InputError(path, line, key, "expected 0 or at least 0.001 us; got " + v[0]);
            }
            d.minDecreaseIntervalPs = static_cast<uint64_t>(us * 1e6);
        }
        else if (key == "CLAMP_TARGET_RATE")
        {
            need(1);
            d.clampTargetRate = num(0) != 0;
        }
        else
        {
            warnings.push_back(path + ":" + std::to_string(line) + ": " + key +
                               " is not modelled by tusk; ignored");
        }
    }
    if (anyMap)
    {
        for (const auto& [rate, t] : byRate)
        {
            if (t.kmaxBytes <= t.kminBytes)
            {
                throw ns3::InputError(path, 0, "KMIN_MAP/KMAX_MAP",
                                      "expected KMAX > KMIN for every rate; at " +
                                          std::to_string(rate) + " b/s KMIN " +
                                          std::to_string(t.kminBytes) + " B, KMAX " +
                                          std::to_string(t.kmaxBytes) + " B");
            }
        }
        spec.ecn.byRate = byRate;
        spec.ecn.fallbackGiven = false; // a rate missing from the maps is an error at load time
        spec.ecn.thresholdsGiven = true; // used as given, also with a UEC-style transport
    }
    spec.dcqcn.preset = "hpcc";
    return warnings;
}

} // namespace tusk
