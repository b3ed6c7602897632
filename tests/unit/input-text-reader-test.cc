// The text reader every importer shares (ns3-modules/fabric/model/input-text-reader.h): line
// numbers from 1, a byte-order mark dropped, NUL bytes refused, blank and comment lines
// skipped by the format's comment rule, tokens across lines, errors naming file:line. The
// importer cases are those where the readers used to differ: a byte-order mark the HPCC and
// SimAI readers took for text, a blank first line SimAI refused, a NUL byte only the .cm
// reader refused.

#include "fabric/model/input-error.h"
#include "fabric/model/input-text-reader.h"
#include "workload/model/hpcc-reader.h"
#include "workload/model/simai-workload.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace ns3;

namespace
{

/** A temporary file with `text` (bytes as given), removed at scope exit. */
struct Temp
{
    std::string path;
    Temp(const std::string& name, const std::string& text)
        : path((std::filesystem::temp_directory_path() / ("tusk-text-" + name)).string())
    {
        std::ofstream(path, std::ios::binary) << text;
    }
    ~Temp() { std::remove(path.c_str()); }
};

template <class F>
InputError
Error(F&& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e;
    }
    FAIL("expected an InputError");
    return InputError("", 0, "", "");
}

} // namespace

TEST_CASE("text reader: lines, comments, tokens, errors at file:line", "[unit][import]")
{
    Temp f("lines.txt", "\xEF\xBB\xBFNodes 4\n\n  # a comment\nA->B  x\t y\r\nz # not a comment\n");
    InputTextReader r(f.path, "test file", InputTextReader::HASH_COMMENTS);
    REQUIRE(r.NextLine());
    CHECK(r.Line() == 1);
    CHECK(r.Tokens() == std::vector<std::string>{"Nodes", "4"}); // the byte-order mark dropped
    REQUIRE(r.NextLine());
    CHECK(r.Line() == 4); // the blank line and the comment are skipped, but counted
    CHECK(r.Tokens() == std::vector<std::string>{"A->B", "x", "y"});
    REQUIRE(r.NextLine());
    CHECK(r.Tokens() == std::vector<std::string>{"z", "#", "not", "a", "comment"});
    CHECK_FALSE(r.NextLine());
    const InputError e = Error([&] { r.Fail("key", "what"); });
    CHECK(e.File() == f.path);
    CHECK(e.Line() == 5);
    CHECK(e.Key() == "key");

    // '#' to the end of the line (htsim .topo); none (HPCC, SimAI).
    InputTextReader toEnd(f.path, "test file", InputTextReader::HASH_TO_END);
    toEnd.NextLine();
    toEnd.NextLine();
    toEnd.NextLine();
    CHECK(toEnd.Tokens() == std::vector<std::string>{"z"});
    InputTextReader none(f.path, "test file");
    none.NextLine();
    REQUIRE(none.NextLine());
    CHECK(none.Line() == 3);
    CHECK(none.Tokens().at(0) == "#");
}

TEST_CASE("text reader: a token stream across lines, and its end", "[unit][import]")
{
    Temp f("stream.txt", "3 1\n\n7\nx\n");
    InputTextReader r(f.path, "test file");
    CHECK(r.NextUnsigned("n", "a count") == 3);
    r.EndLine(); // the 1 is ignored
    CHECK(r.NextUnsigned("m", "a count") == 7);
    CHECK(r.Line() == 3);
    InputError e = Error([&] { r.NextUnsigned("k", "an id"); });
    CHECK(e.Line() == 4);
    CHECK(e.Message() == "expected an id; got \"x\"");
    e = Error([&] { r.NextToken("k", "a rate"); });
    CHECK(e.Line() == 4);
    CHECK(e.Message() == "the file ends; expected a rate");
}

TEST_CASE("text reader: files that are not text, or not there", "[unit][import]")
{
    Temp nul("nul.txt", std::string("1 2\n3\0 4\n", 9));
    InputTextReader r(nul.path, "test file");
    REQUIRE(r.NextLine());
    InputError e = Error([&] { r.NextLine(); });
    CHECK(e.Line() == 2);
    CHECK(e.Message() == "NUL byte in line: not a text file");
    e = Error([&] { InputTextReader("/nonexistent/x.cm", "connection matrix"); });
    CHECK(e.Line() == 0);
    CHECK(e.Message().rfind("cannot open the connection matrix: ", 0) == 0);
    const std::string dir = std::filesystem::temp_directory_path().string();
    e = Error([&] {
        InputTextReader d(dir, "test file");
        d.NextLine();
    });
    CHECK(e.Message().find("read error") != std::string::npos);
}

TEST_CASE("importers share the text rules: byte-order mark, blank lines, NUL bytes",
          "[unit][import][hpcc][simai]")
{
    // HPCC topology.txt with a byte-order mark (a file saved by a Windows editor).
    Temp topo("topo.txt", "\xEF\xBB\xBF" "3 1 2\n0\n1 0 100Gbps 0.001ms 0\n2 0 100Gbps 0.001ms 0\n");
    const HpccTopology t = ReadHpccTopology(topo.path);
    CHECK(t.graph.numHosts == 2);
    // A NUL byte is refused by every importer, naming the line.
    Temp flows("flows.txt", std::string("1\n1 2 3 100 1000 0.\0\n", 22));
    const InputError e = Error([&] { ReadHpccFlows(flows.path, t.hostOfNode); });
    CHECK(e.Line() == 2);
    CHECK(e.Message() == "NUL byte in line: not a text file");
    // SimAI with a byte-order mark and a blank line before the header: the header's line.
    Temp simai("simai.txt", "\xEF\xBB\xBF\nHYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: "
                            "2 ep: 1 pp: 1 all_gpus: 8\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n");
    const SimAiWorkload w = ReadSimAiWorkload(simai.path);
    REQUIRE(w.layers.size() == 1);
    CHECK(w.layers[0].line == 4);
    CHECK(w.tp == 2);
}
