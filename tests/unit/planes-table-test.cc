// planes.csv: a multi-plane fabric's results per plane, summed from links.csv's rows by the
// plane prefix of their switch end (tusk/results/planes-table.h, docs/results-format.md).

#include "results/planes-table.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

LinkRow
Row(const std::string& from, const std::string& to, uint64_t bytes, bool uplink = false)
{
    LinkRow l;
    l.from = from;
    l.to = to;
    l.txBytes = bytes;
    l.uplink = uplink;
    return l;
}

std::vector<std::string>
Lines(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);)
    {
        out.push_back(line);
    }
    return out;
}

} // namespace

TEST_CASE("planes.csv: the plane of a node name is its p<k>. prefix, hosts and one-plane "
          "switches have none",
          "[unit][planes]")
{
    CHECK(PlaneOfNodeName("p0.leaf3") == 0);
    CHECK(PlaneOfNodeName("p12.spine5") == 12);
    CHECK(PlaneOfNodeName("p3.rail1.2") == 3);
    CHECK(PlaneOfNodeName("host7") == -1);
    CHECK(PlaneOfNodeName("leaf3") == -1);
    CHECK(PlaneOfNodeName("pod0.leaf1") == -1);
    CHECK(PlaneOfNodeName("p.leaf") == -1);
    CHECK(PlaneOfNodeName("p2.") == -1);
    CHECK(PlaneOfNodeName("p2") == -1);
    CHECK(PlaneOfNodeName("") == -1);
}

TEST_CASE("planes.csv: bytes, uplink balance, queues, drops and marks are summed per plane, a "
          "host link counted in its switch's plane",
          "[unit][planes]")
{
    std::vector<LinkRow> rows = {
        Row("host0", "p0.leaf0", 1000),
        Row("host0", "p1.leaf0", 3000),
        Row("p0.leaf0", "p0.spine0", 1000, true),
        Row("p0.leaf0", "p0.spine1", 0, true),
        Row("p1.leaf0", "p1.spine0", 2000, true),
        Row("p1.leaf0", "p1.spine1", 1000, true),
        Row("p0.spine0", "p0.leaf1", 1000),
        Row("p1.spine0", "p1.leaf1", 3000),
        Row("p0.leaf1", "host1", 1000),
        Row("p1.leaf1", "host1", 3000),
    };
    rows[5].maxQueueBytes = 4096;
    rows[5].drops[0] = 2;
    rows[5].drops[1] = 1;
    rows[7].ecnMarks = 5;
    rows[7].pfcPauseTx = 3;
    rows[2].meanUtilisation = 0.5;
    rows[2].maxUtilisation = 0.9;
    const auto lines = Lines(PlanesCsv(rows));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "plane,links,host_tx_bytes,host_rx_bytes,host_share,fabric_tx_bytes,"
                      "uplink_util_mean,uplink_util_max,uplink_imbalance,max_queue_bytes,drops,"
                      "ecn_marks,pfc_pause_tx");
    // Plane 0: a quarter of the NIC's bytes; its two uplinks carry 1000 and 0 (max / mean 2).
    CHECK(lines[1] == "0,5,1000,1000,0.250000,2000,0.250000,0.900000,2.000000,0,0,0,0");
    // Plane 1: three quarters; uplinks 2000 and 1000 (max / mean 4/3); the drops of every
    // reason, marks and pauses of its rows.
    CHECK(lines[2] == "1,5,3000,3000,0.750000,6000,0.000000,0.000000,1.333333,4096,3,5,3");
}

TEST_CASE("planes.csv: a one-plane fabric has none", "[unit][planes]")
{
    CHECK(PlanesCsv({Row("host0", "leaf0", 10), Row("leaf0", "spine0", 10, true)}).empty());
    CHECK(PlanesCsv({}).empty());
    CHECK_FALSE(HasPlanes({Row("host0", "leaf0", 10)}));
    CHECK(HasPlanes({Row("host0", "p1.leaf0", 10)}));
}

} // namespace TUSK_TEST_FILE
