// Unit tests of the htsim connection-matrix (.cm) importer. No Simulator.
//
// Real inputs: data/htsim/*.cm (copied byte-for-byte from uet-htsim; sources in its README).
// Trigger examples and malformed files are written
// into a temporary directory by the tests themselves.
#include "fabric/model/input-error.h"
#include "importers/model/htsim-cm-reader.h"

#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/** The folder for this file's connection matrices, removed at exit. */
const tusk_test::ScratchDir&
Temp()
{
    static tusk_test::ScratchDir dir("htsim-cm");
    return dir;
}

std::string
WriteFile(const std::string& name, const std::string& content)
{
    return Temp().Write(name, content);
}

/** Read `content` as a .cm file and require an InputError at (line, key). */
InputError
RequireError(const std::string& content,
             unsigned line,
             const std::string& key,
             const std::string& messagePart = "")
{
    static int counter = 0;
    const std::string path = WriteFile("bad-" + std::to_string(++counter) + ".cm", content);
    try
    {
        ReadHtsimCm(path);
    }
    catch (const InputError& e)
    {
        INFO("error: " << e.what());
        CHECK(e.File() == path);
        CHECK(e.Line() == line);
        CHECK(e.Key() == key);
        if (!messagePart.empty())
        {
            CHECK(e.Message().find(messagePart) != std::string::npos);
        }
        return e;
    }
    FAIL("expected InputError at line " << line << " key " << key << " for:\n" << content);
    return InputError("", 0, "", "");
}

std::string
Repo(const std::string& relative)
{
    return std::string(TUSK_SOURCE_DIR) + "/" + relative;
}

void
CheckPermutation(const HtsimConnectionMatrix& cm)
{
    std::set<uint32_t> srcs;
    std::set<uint32_t> dsts;
    for (const auto& t : cm.workload.transfers)
    {
        srcs.insert(t.src);
        dsts.insert(t.dst);
        CHECK(t.src != t.dst);
    }
    CHECK(srcs.size() == cm.nodes);
    CHECK(dsts.size() == cm.nodes);
}

void
CheckPlainTransfers(const WorkloadSpec& w, uint64_t bytes, bool idsArePositions)
{
    for (size_t i = 0; i < w.transfers.size(); ++i)
    {
        const TransferSpec& t = w.transfers[i];
        CHECK(t.bytes == bytes);
        CHECK(t.startPs == 0u);
        CHECK(t.trigger == -1);
        CHECK(t.onSendDone.empty());
        CHECK(t.onRecvDone.empty());
        CHECK(t.qpGroup == i);
        CHECK(t.priority == 3);
        CHECK(t.collective == -1);
        if (idsArePositions)
        {
            CHECK(t.externalId == i + 1);
        }
    }
    CHECK(w.triggers.empty());
    CHECK(w.collectives.empty());
}

} // namespace

TEST_CASE("htsim .cm: the repository's permutation matrices", "[unit][htsim]")
{
    SECTION("perm_128n_128c_2MB.cm")
    {
        // Header "Nodes 128", "Connections 128"; first line "103->32 id 1 start 0 size 2000000",
        // last line "66->57 id 128 start 0 size 2000000".
        const auto cm = ReadHtsimConnectionMatrix(Repo("data/htsim/perm_128n_128c_2MB.cm"));
        CHECK(cm.nodes == 128u);
        const auto& t = cm.workload.transfers;
        REQUIRE(t.size() == 128u);
        CHECK(t.front().src == 103u);
        CHECK(t.front().dst == 32u);
        CHECK(t.front().externalId == 1u);
        CHECK(t.back().src == 66u);
        CHECK(t.back().dst == 57u);
        CHECK(t.back().externalId == 128u);
        CheckPlainTransfers(cm.workload, 2000000, true);
        CheckPermutation(cm);
        CHECK(ReadHtsimCm(Repo("data/htsim/perm_128n_128c_2MB.cm")).transfers.size() == 128u);
    }
    SECTION("perm_32n_32c_2MB.cm")
    {
        // "19->0 id 1 start 0 size 2000000" ... "16->22 id 32 start 0 size 2000000".
        const auto cm = ReadHtsimConnectionMatrix(Repo("data/htsim/perm_32n_32c_2MB.cm"));
        CHECK(cm.nodes == 32u);
        const auto& t = cm.workload.transfers;
        REQUIRE(t.size() == 32u);
        CHECK(t.front().src == 19u);
        CHECK(t.front().dst == 0u);
        CHECK(t.back().src == 16u);
        CHECK(t.back().dst == 22u);
        CHECK(t.back().externalId == 32u);
        CheckPlainTransfers(cm.workload, 2000000, true);
        CheckPermutation(cm);
    }
}

TEST_CASE("htsim .cm: every shipped connection matrix reads", "[unit][htsim]")
{
    const fs::path dir = fs::path(TUSK_SOURCE_DIR) / "data" / "htsim";
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir))
    {
        if (entry.path().extension() != ".cm")
        {
            continue;
        }
        ++files;
        INFO(entry.path());
        const auto cm = ReadHtsimConnectionMatrix(entry.path().string()); // must not throw
        CHECK(cm.nodes > 0u);
        CHECK_FALSE(cm.workload.transfers.empty());
        for (const auto& t : cm.workload.transfers)
        {
            CHECK(t.src < cm.nodes);
            CHECK(t.dst < cm.nodes);
        }
    }
    CHECK(files >= 1u);

    if (fs::exists(dir / "incast_128.cm"))
    {
        // "Nodes 128", "Connections 127", lines without ids: "104->33 start 0 size 2000000"
        // ... "38->33 start 0 size 2000000". Ids default to the 1-based position.
        const auto cm = ReadHtsimConnectionMatrix((dir / "incast_128.cm").string());
        CHECK(cm.nodes == 128u);
        const auto& t = cm.workload.transfers;
        REQUIRE(t.size() == 127u);
        CHECK(t.front().src == 104u);
        CHECK(t.back().src == 38u);
        for (const auto& x : t)
        {
            CHECK(x.dst == 33u);
        }
        CheckPlainTransfers(cm.workload, 2000000, true);
    }
    if (fs::exists(dir / "incast_2to1_size4194304B.cm"))
    {
        // Two lines, the last without a newline: "64->0 id 1 ..." and "65->0 id 2 ... 4194304".
        const auto cm = ReadHtsimConnectionMatrix((dir / "incast_2to1_size4194304B.cm").string());
        CHECK(cm.nodes == 128u);
        const auto& t = cm.workload.transfers;
        REQUIRE(t.size() == 2u);
        CHECK(t[0].src == 64u);
        CHECK(t[1].src == 65u);
        CHECK(t[1].dst == 0u);
        CheckPlainTransfers(cm.workload, 4194304, true);
    }
    if (fs::exists(dir / "perm_1024n_1024c_0u_2000000b.cm"))
    {
        // "334->395 id 1 start 0 size 2000000" ... "530->825 id 1024 start 0 size 2000000".
        const auto cm =
            ReadHtsimConnectionMatrix((dir / "perm_1024n_1024c_0u_2000000b.cm").string());
        CHECK(cm.nodes == 1024u);
        const auto& t = cm.workload.transfers;
        REQUIRE(t.size() == 1024u);
        CHECK(t.front().src == 334u);
        CHECK(t.front().dst == 395u);
        CHECK(t.back().src == 530u);
        CHECK(t.back().dst == 825u);
        CHECK(t.back().externalId == 1024u);
        CheckPlainTransfers(cm.workload, 2000000, true);
        CheckPermutation(cm);
    }
}

TEST_CASE("htsim .cm: start times are microseconds, converted exactly to ps", "[unit][htsim]")
{
    const std::string path = WriteFile("starts.cm",
                                       "Nodes 4\r\n"
                                       "Connections 4\r\n"
                                       "# comment line\r\n"
                                       "\r\n"
                                       "0->1 start 12 size 1\r\n"
                                       "1->2 size 2 start 1.5 prio 0\r\n"
                                       "2->3\tstart 0.000001  size 3 id 7\r\n"
                                       "3->0 start 2.000000 size 4 prio 7");
    const WorkloadSpec w = ReadHtsimCm(path);
    REQUIRE(w.transfers.size() == 4u);
    CHECK(w.transfers[0].startPs == 12000000u); // 12 us
    CHECK(w.transfers[1].startPs == 1500000u);  // 1.5 us
    CHECK(w.transfers[2].startPs == 1u);        // 1e-6 us = 1 ps
    CHECK(w.transfers[3].startPs == 2000000u);  // "%f" as htsim's save() writes it
    CHECK(w.transfers[1].priority == 0);
    CHECK(w.transfers[3].priority == 7);
    CHECK(w.transfers[0].externalId == 1u); // no id: position
    CHECK(w.transfers[2].externalId == 7u);
    CHECK(w.transfers[2].bytes == 3u);
}

TEST_CASE("htsim .cm: a trigger chain A -> B -> C", "[unit][htsim]")
{
    // A starts at 0; when A's sender has its last ACK, trigger 10 starts B; when B's last byte
    // is delivered, trigger 20 starts C. Trigger ids are not indices and are defined before
    // and after their users.
    const std::string path = WriteFile("chain.cm",
                                       "Nodes 4\n"
                                       "Connections 3\n"
                                       "Triggers 2\n"
                                       "trigger id 20 oneshot\n"
                                       "0->1 id 1 start 0 size 1000 send_done_trigger 10\n"
                                       "1->2 id 2 trigger 10 size 2000 recv_done_trigger 20\n"
                                       "2->3 id 3 trigger 20 size 3000 prio 5\n"
                                       "trigger id 10 oneshot\n");
    const HtsimConnectionMatrix cm = ReadHtsimConnectionMatrix(path);
    const WorkloadSpec& w = cm.workload;
    REQUIRE(w.transfers.size() == 3u);
    REQUIRE(w.triggers.size() == 2u);
    // triggers in file order: [0] is id 20, [1] is id 10
    CHECK(w.triggers[0].externalId == 20u);
    CHECK(w.triggers[1].externalId == 10u);
    CHECK(w.triggers[0].kind == TriggerSpec::ONESHOT);
    CHECK(w.triggers[1].kind == TriggerSpec::ONESHOT);
    CHECK(w.triggers[0].threshold == 1u);

    const TransferSpec& a = w.transfers[0];
    const TransferSpec& b = w.transfers[1];
    const TransferSpec& c = w.transfers[2];
    CHECK(a.trigger == -1);
    CHECK(a.onSendDone == std::vector<uint32_t>{1}); // id 10
    CHECK(a.onRecvDone.empty());
    CHECK(b.trigger == 1);                           // waits on id 10
    CHECK(b.startPs == 0u);
    CHECK(b.onRecvDone == std::vector<uint32_t>{0}); // id 20
    CHECK(b.onSendDone.empty());
    CHECK(c.trigger == 0);                           // waits on id 20
    CHECK(c.priority == 5);
    CHECK(c.bytes == 3000u);
    CHECK(c.qpGroup == 2u);
}

TEST_CASE("htsim .cm: a barrier of 2 and a multishot", "[unit][htsim]")
{
    const std::string path = WriteFile("barrier.cm",
                                       "Nodes 8\n"
                                       "Connections 5\n"
                                       "Triggers 2\n"
                                       "0->7 id 1 start 0 size 1000000 send_done_trigger 10\n"
                                       "1->6 id 2 start 0 size 1000000 send_done_trigger 10\n"
                                       "2->5 id 3 trigger 10 size 500000 recv_done_trigger 11\n"
                                       "3->4 id 4 trigger 11 size 10\n"
                                       "4->3 id 5 start 5 size 10 send_done_trigger 11\n"
                                       "trigger id 10 barrier count 2\n"
                                       "trigger id 11 multishot\n");
    const WorkloadSpec w = ReadHtsimCm(path);
    REQUIRE(w.triggers.size() == 2u);
    CHECK(w.triggers[0].kind == TriggerSpec::BARRIER);
    CHECK(w.triggers[0].threshold == 2u);
    CHECK(w.triggers[0].externalId == 10u);
    CHECK(w.triggers[1].kind == TriggerSpec::MULTISHOT);
    CHECK(w.triggers[1].threshold == 1u);
    CHECK(w.transfers[0].onSendDone == std::vector<uint32_t>{0});
    CHECK(w.transfers[1].onSendDone == std::vector<uint32_t>{0});
    CHECK(w.transfers[2].trigger == 0);
    CHECK(w.transfers[3].trigger == 1);
    CHECK(w.transfers[4].startPs == 5000000u);
}

TEST_CASE("htsim .cm: every malformed input is an InputError naming file, line and key",
          "[unit][htsim]")
{
    const std::string hdr = "Nodes 4\nConnections 1\n"; // the connection is on line 3

    SECTION("missing file")
    {
        const std::string path = Temp().Path("does-not-exist.cm");
        try
        {
            ReadHtsimCm(path);
            FAIL("no error");
        }
        catch (const InputError& e)
        {
            CHECK(e.File() == path);
            CHECK(e.Line() == 0u);
            CHECK(e.Key() == "file");
        }
    }
    SECTION("a directory")
    {
        try
        {
            ReadHtsimCm(Temp().Root().string());
            FAIL("no error");
        }
        catch (const InputError& e)
        {
            CHECK(e.Key() == "file");
        }
    }
    SECTION("bad header")
    {
        RequireError("", 0, "Nodes", "missing header");
        RequireError("# only a comment\n", 1, "Nodes", "missing header");
        RequireError("Nodes abc\nConnections 0\n", 1, "Nodes", "'abc'");
        RequireError("Nodes -4\nConnections 0\n", 1, "Nodes");
        RequireError("Nodes 0\nConnections 0\n", 1, "Nodes", "at least 1");
        RequireError("Nodes\nConnections 0\n", 1, "Nodes", "missing value");
        RequireError("Nodes 4 5\nConnections 0\n", 1, "Nodes", "trailing garbage");
        RequireError("Nodes 4\nNodes 5\nConnections 0\n", 2, "Nodes", "twice");
        RequireError("Nodes 99999999999\nConnections 0\n", 1, "Nodes");
        RequireError("Node 4\nConnections 1\n0->1 start 0 size 1\n", 1, "Node", "'Nodes'");
        RequireError("Connections 1\n0->1 start 0 size 1\n", 2, "Nodes", "missing header");
        RequireError("Nodes 4\n0->1 start 0 size 1\n", 2, "Connections", "missing header");
        RequireError(hdr + "0->1 start 0 size 1\nTriggers 0\n",
                     4,
                     "Triggers",
                     "headers come first");
        RequireError("Nodes 4\nConnectoins 1\n", 2, "Connectoins", "'Connections'");
    }
    SECTION("count mismatch")
    {
        RequireError("Nodes 4\nConnections 3\n0->1 start 0 size 1\n1->2 start 0 size 1\n",
                     2,
                     "Connections",
                     "header says 3 connections, the file has 2");
        RequireError("Nodes 4\nConnections 1\n0->1 start 0 size 1\n1->2 start 0 size 1\n",
                     2,
                     "Connections");
        RequireError("Nodes 4\nConnections 1\nTriggers 2\n"
                     "0->1 start 0 size 1\ntrigger id 1 oneshot\n",
                     3,
                     "Triggers");
        RequireError(hdr + "0->1 start 0 size 1 send_done_trigger 1\ntrigger id 1 oneshot\n",
                     2,
                     "Triggers",
                     "no 'Triggers T' header");
    }
    SECTION("hosts out of range or equal")
    {
        RequireError(hdr + "4->1 start 0 size 1\n", 3, "src", "out of range");
        RequireError(hdr + "0->4 start 0 size 1\n", 3, "dst", "out of range");
        RequireError(hdr + "2->2 start 0 size 1\n", 3, "dst", "itself");
        RequireError(hdr + "x->1 start 0 size 1\n", 3, "src");
        RequireError(hdr + "1-> start 0 size 1\n", 3, "dst");
        RequireError(hdr + "-1->2 start 0 size 1\n", 3, "src");
        RequireError(hdr + "1 -> 2 start 0 size 1\n", 3, "1", "no blanks around '->'");
    }
    SECTION("bad size and start")
    {
        RequireError(hdr + "0->1 start 0 size 12ab\n", 3, "size", "'12ab'");
        RequireError(hdr + "0->1 start 0 size -5\n", 3, "size", "negative");
        RequireError(hdr + "0->1 start 0 size 0\n", 3, "size", "size 0");
        // Near 2^64 a transfer's byte counters overflow and it never sends (the run ended in
        // the watchdog): sizes stop at 1024 TiB, as workload.bytes does.
        RequireError(hdr + "0->1 start 0 size 18446744073709551615\n", 3, "size", "2^50");
        RequireError(hdr + "0->1 start 0 size 1125899906842625\n", 3, "size", "2^50");
        RequireError(hdr + "0->1 start 0 size 99999999999999999999\n", 3, "size", "too large");
        RequireError(hdr + "0->1 start 0\n", 3, "size", "missing field");
        RequireError(hdr + "0->1 start -1 size 1\n", 3, "start", "negative");
        RequireError(hdr + "0->1 start abc size 1\n", 3, "start");
        RequireError(hdr + "0->1 start 1e3 size 1\n", 3, "start");
        RequireError(hdr + "0->1 start . size 1\n", 3, "start");
        RequireError(hdr + "0->1 start 0.0000001 size 1\n", 3, "start", "finer than 1 ps");
        RequireError(hdr + "0->1 start 99999999999999999999 size 1\n", 3, "start", "too large");
        RequireError(hdr + "0->1 size 1\n", 3, "start", "missing");
        RequireError(hdr + "0->1 start 0 size 1 prio 8\n", 3, "prio");
    }
    SECTION("ids")
    {
        RequireError("Nodes 4\nConnections 2\n0->1 id 5 start 0 size 1\n1->2 id 5 start 0 size 1\n",
                     4,
                     "id",
                     "duplicate connection id 5 (first on line 3)");
        RequireError(hdr + "0->1 id 0 start 0 size 1\n", 3, "id");
        // The id-less first connection is numbered 1, which the second one claims.
        RequireError("Nodes 4\nConnections 2\n0->1 start 0 size 1\n1->2 id 1 start 0 size 1\n",
                     3,
                     "id",
                     "give every connection an id");
    }
    SECTION("undefined or bad triggers")
    {
        RequireError(hdr + "0->1 trigger 9 size 1\n", 3, "trigger", "trigger 9 is not defined");
        RequireError("Nodes 4\nConnections 2\nTriggers 1\n"
                     "0->1 start 0 size 1 send_done_trigger 2\n"
                     "1->2 trigger 1 size 1\n"
                     "trigger id 1 oneshot\n",
                     4,
                     "send_done_trigger",
                     "not defined");
        RequireError(hdr + "0->1 start 0 size 1 recv_done_trigger 3\n", 3, "recv_done_trigger");
        RequireError(hdr + "0->1 start 0 trigger 1 size 1\n", 3, "trigger", "not both");
        RequireError(hdr + "0->1 trigger 0 size 1\n", 3, "trigger", "0");
        RequireError("Nodes 4\nConnections 0\nTriggers 2\n"
                     "trigger id 1 oneshot\ntrigger id 1 multishot\n",
                     5,
                     "id",
                     "duplicate trigger id 1");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1\n", 4, "trigger", "type");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger oneshot\n", 4, "id");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 barrier\n", 4, "count");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 barrier count 0\n",
                     4,
                     "count");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 oneshot count 2\n",
                     4,
                     "count",
                     "only to barrier");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 oneshot multishot\n",
                     4,
                     "multishot",
                     "twice");
    }
    SECTION("connections that can never start")
    {
        // A cycle: each waits on the trigger only the other activates.
        RequireError("Nodes 4\nConnections 2\nTriggers 2\n"
                     "0->1 id 1 trigger 1 size 1 send_done_trigger 2\n"
                     "1->2 id 2 trigger 2 size 1 send_done_trigger 1\n"
                     "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
                     4,
                     "trigger",
                     "never start");
        // A barrier of 3 with only 2 activations.
        RequireError("Nodes 4\nConnections 3\nTriggers 1\n"
                     "0->1 start 0 size 1 send_done_trigger 7\n"
                     "1->2 start 0 size 1 send_done_trigger 7\n"
                     "2->3 trigger 7 size 1\n"
                     "trigger id 7 barrier count 3\n",
                     6,
                     "trigger",
                     "only 2");
        // A multishot activated once with two waiters: the second never starts.
        RequireError("Nodes 4\nConnections 3\nTriggers 1\n"
                     "0->1 start 0 size 1 recv_done_trigger 7\n"
                     "1->2 trigger 7 size 1\n"
                     "2->3 trigger 7 size 1\n"
                     "trigger id 7 multishot\n",
                     6,
                     "trigger",
                     "multishot");
    }
    SECTION("unknown tokens name the closest valid one")
    {
        RequireError(hdr + "0->1 start 0 sise 1\n", 3, "sise", "did you mean 'size'");
        RequireError(hdr + "0->1 strat 0 size 1\n", 3, "strat", "did you mean 'start'");
        RequireError(hdr + "0->1 start 0 size 1 send_done_triger 1\n",
                     3,
                     "send_done_triger",
                     "did you mean 'send_done_trigger'");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 oneshto\n",
                     4,
                     "oneshto",
                     "did you mean 'oneshot'");
        RequireError(hdr + "0->1 start 0 size 1\ntriger id 1 oneshot\n", 4, "triger", "'trigger'");
        RequireError(hdr + "0->1 start 0 size 1\nfailure switch_type TOR switch_id 0 link_id 0\n",
                     4,
                     "failure");
        RequireError("Nodes 4\nConnections 0\nFailures 1\n", 3, "Failures");
        // Nothing within a typo's distance: no suggestion ("foo" is 3 edits from "id"), the
        // valid tokens only.
        auto e = RequireError(hdr + "0->1 id 1 start 0 size 1 foo 3\n", 3, "foo",
                              "unknown token 'foo' in a connection (valid: id, start");
        CHECK(e.Message().find("did you mean") == std::string::npos);
        e = RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 xyzzy\n", 4, "xyzzy",
                         "unknown token 'xyzzy' in a trigger (valid:");
        CHECK(e.Message().find("did you mean") == std::string::npos);
    }
    SECTION("trailing garbage and missing values")
    {
        RequireError(hdr + "0->1 start 0 size 100 200\n", 3, "size", "trailing garbage '200'");
        RequireError(hdr + "0->1 start 0 size\n", 3, "size", "missing value");
        RequireError(hdr + "0->1 start\n", 3, "start", "missing value");
        RequireError(hdr + "0->1 start 0 size 1 size 2\n", 3, "size", "twice");
        RequireError(hdr + "0->1 5 start 0 size 1\n", 3, "5");
        RequireError("Nodes 4\nConnections 0\nTriggers 1\ntrigger id 1 oneshot 9\n",
                     4,
                     "oneshot",
                     "trailing garbage");
        const char withNul[] = "Nodes 4\nConnections 1\n0->1 start 0 size 1\0\n";
        RequireError(std::string(withNul, sizeof(withNul) - 1), 3, "file", "NUL");
    }
}

} // namespace TUSK_TEST_FILE
