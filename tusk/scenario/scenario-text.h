/*
 * tusk: text and unit helpers shared by the scenario reader, the knob table, the manifest echo
 * and the key reference (docs/scenario-format.md).
 */
#ifndef TUSK_SCENARIO_TEXT_H
#define TUSK_SCENARIO_TEXT_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tusk
{

// Internal units (ps, bit/s) per unit of a TOML key.
constexpr uint64_t kPsPerNs = 1000ULL;
constexpr uint64_t kPsPerUs = 1000ULL * 1000ULL;
constexpr uint64_t kPsPerMs = 1000ULL * 1000ULL * 1000ULL;
constexpr uint64_t kBpsPerMbps = 1000ULL * 1000ULL;
constexpr uint64_t kBpsPerGbps = 1000ULL * 1000ULL * 1000ULL;

/** `s` in double quotes, with `"` and `\` escaped, newlines as `\n` and other control characters
 *  as `\u00XX` (TOML/JSON style; safe to print on a terminal). */
std::string Quote(const std::string& s);

/** `s` without leading and trailing blanks (space, tab, CR, LF). */
std::string Trim(const std::string& s);

/** The shortest decimal text that reads back as exactly `v` ("0.125", "1e-06", "3"). */
std::string FormatDouble(double v);

/** "\"a\"", "\"a\" or \"b\"", "\"a\", \"b\" or \"c\"": quoted alternatives for messages. */
std::string OneOf(const std::vector<std::string>& values);

/** `key` without a trailing unit suffix ("link_delay_ns" -> "link_delay"). */
std::string KeyStem(const std::string& key);

/**
 * \brief The valid key nearest to `key` (Levenshtein distance, ns3::EditDistance), preferring
 * one with the same stem, so that a missing or wrong unit suffix ("mtu", "link_delay_us")
 * points at the right key; ties go to the earlier key in `valid`.
 */
std::string ClosestKey(const std::string& key, const std::vector<std::string>& valid);

/** v / scale in JSON: an integer when whole, else a float (times and rates in TOML units). */
nlohmann::json InUnit(uint64_t v, uint64_t scale);

/** A number in JSON: an integer when whole (and exactly representable), else a float. */
nlohmann::json JsonNumber(double v);

/** Whole multiples of KiB, MiB, GiB, TiB as "(32 MiB)" for the key reference; "" otherwise. */
std::string BinarySizeNote(uint64_t bytes);

/** A size bound as a size string where it is a whole multiple of KiB, MiB, GiB or TiB
 *  ("1TiB"), else the number of bytes ("9000"). */
std::string SizeBoundText(uint64_t bytes);

/**
 * \brief The range [lo, hi] of a number kept `scale` internal units per TOML unit, in TOML
 * units: "a number in 0.001..100000", or with `zeroAllowed` and lo > 0 "0 or a number in
 * 0.1..86400000000" (0 = off). Without `article`: "number 0.001..100000" (the key reference).
 */
std::string RangeText(uint64_t lo,
                      uint64_t hi,
                      uint64_t scale,
                      bool zeroAllowed,
                      bool article = true);

} // namespace tusk

#endif
