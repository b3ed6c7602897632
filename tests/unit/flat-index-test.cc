// Unit tests of FlatIndex (the executor's connection index and the rows' ideal-FCT cache):
// it answers as a std::map of the same insertions does, for keys whose hashes share their low
// bits (a host id in the high half of a key), across the table's growth.
#include "workload/model/flat-index.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** A (src, dst, group) key hashed as the executor's ConnectionKeyHash is. */
struct TripleHash
{
    size_t operator()(const std::tuple<uint32_t, uint32_t, uint32_t>& k) const
    {
        const uint64_t a = (static_cast<uint64_t>(std::get<0>(k)) << 32) | std::get<1>(k);
        return static_cast<size_t>((a * 0x9E3779B97F4A7C15ULL) ^ std::get<2>(k));
    }
};

/** A hash that keeps the key as it is: only its high bits differ from key to key below. */
struct Identity
{
    size_t operator()(uint64_t k) const { return static_cast<size_t>(k); }
};

} // namespace

TEST_CASE("FlatIndex finds what was inserted and nothing else, as a map does, across growth",
          "[unit][flat-index]")
{
    FlatIndex<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t, TripleHash> index;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> oracle;
    CHECK(index.Find({0, 1, 0}) == nullptr); // empty: no table yet
    std::mt19937_64 rng(7);
    for (int k = 0; k < 20000; ++k)
    {
        // Many keys sharing a destination (all-to-all's pattern) and rings' (i, i + 1).
        const auto src = static_cast<uint32_t>(rng() % 4096);
        const auto dst = k % 2 ? static_cast<uint32_t>(rng() % 8) : (src + 1) % 4096;
        const auto key = std::make_tuple(src, dst, static_cast<uint32_t>(rng() % 3));
        const uint64_t value = rng();
        const auto [at, inserted] = oracle.emplace(key, value);
        // An existing key keeps its first value, as the map's emplace does.
        CHECK(index.Insert(key, value) == at->second);
        (void)inserted;
    }
    CHECK(index.Size() == oracle.size());
    for (const auto& [key, value] : oracle)
    {
        const uint64_t* found = index.Find(key);
        REQUIRE(found != nullptr);
        CHECK(*found == value);
    }
    // Keys never inserted are not found.
    CHECK(index.Find({5000, 1, 0}) == nullptr);
    CHECK(index.Find({0, 0, 7}) == nullptr);
    index.Clear();
    CHECK(index.Size() == 0);
    CHECK(index.Find(oracle.begin()->first) == nullptr);
}

TEST_CASE("FlatIndex finds keys whose hashes differ only in their high bits",
          "[unit][flat-index]")
{
    // Host ids in the high half, as IdealKeyHash's (src << 32 | dst): every key's low 32
    // bits are equal, so their slots come from the high bits (FlatIndex::SlotOf).
    FlatIndex<uint64_t, uint32_t, Identity> index;
    for (uint32_t h = 0; h < 50000; ++h)
    {
        index.Insert(static_cast<uint64_t>(h) << 32, h);
    }
    CHECK(index.Size() == 50000);
    for (uint32_t h = 0; h < 50000; ++h)
    {
        const uint32_t* found = index.Find(static_cast<uint64_t>(h) << 32);
        REQUIRE(found != nullptr);
        CHECK(*found == h);
    }
    CHECK(index.Find(1) == nullptr);
}

} // namespace TUSK_TEST_FILE
