// The busiest-window utilisation of a port (FabricNetDevice, UtilisationWindow): a frame that
// spans many windows credits the first and last windows with their parts and every window in
// between with the whole window, at a cost that does not depend on how many windows it spans
// (a frame over 10^11 windows takes no longer than one over three).

#include "fabric/model/fabric-channel.h"
#include "fabric/model/fabric-net-device.h"
#include "fabric/model/fabric-units.h"

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include "scripted-port.h"

#include <catch2/catch.hpp>

#include <deque>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

using ScriptedDevice = tusk_test::ScriptedPort;

/** One closed run of windows as the UtilisationWindow trace reports it. */
struct Closed
{
    double utilisation;
    uint64_t windows;
};

void
Record(std::vector<Closed>* out, double utilisation, uint64_t windows)
{
    out->push_back({utilisation, windows});
}

/**
 * Send one frame of `bytes` from a port of `rateBps` (no PHY overhead) starting at `startPs`,
 * windows of `windowPs`; the trace's reports, the flush at `endPs` included, and the port's
 * busiest window.
 */
std::vector<Closed>
SendOneFrame(uint64_t rateBps, uint32_t bytes, uint64_t windowPs, uint64_t startPs, uint64_t endPs,
             double& maxUtilisation)
{
    EnsurePicosecondResolution();
    std::vector<Ptr<ScriptedDevice>> devs;
    auto channel = CreateObject<FabricChannel>();
    channel->SetAttribute("Delay", TimeValue(NanoSeconds(1)));
    for (int i = 0; i < 2; ++i)
    {
        auto node = CreateObject<Node>();
        auto dev = CreateObject<ScriptedDevice>();
        dev->SetAttribute("DataRate", DataRateValue(DataRate(rateBps)));
        dev->SetAttribute("PhyOverheadBytes", UintegerValue(0));
        dev->SetAttribute("UtilisationWindow", TimeValue(PicoSeconds(windowPs)));
        node->AddDevice(dev);
        dev->Attach(channel);
        devs.push_back(dev);
    }
    std::vector<Closed> closed;
    devs[0]->TraceConnectWithoutContext("UtilisationWindow", MakeBoundCallback(&Record, &closed));
    devs[0]->frames.push_back(bytes);
    Simulator::Schedule(PicoSeconds(startPs), &FabricNetDevice::TryTransmit, devs[0]);
    Simulator::Stop(PicoSeconds(endPs));
    Simulator::Run();
    devs[0]->FlushUtilisation(Simulator::Now());
    maxUtilisation = devs[0]->GetCounters().maxWindowUtilisation;
    Simulator::Destroy();
    return closed;
}

} // namespace

TEST_CASE("utilisation windows: a frame over 1000 windows gives its first and last windows "
          "their parts and the 999 between them the whole window",
          "[component][utilisation]")
{
    // 8 Mb/s: a byte takes 1 µs, one window. The frame of 1000 bytes starts 250 ns into the
    // first window and ends 250 ns into the 1001st.
    const uint64_t w = 1'000'000;
    double max = 0;
    const auto closed = SendOneFrame(8'000'000, 1000, w, w / 4, 1002 * w, max);
    REQUIRE(closed.size() == 3);
    CHECK(closed[0].utilisation == 0.75);
    CHECK(closed[0].windows == 1);
    CHECK(closed[1].utilisation == 1.0);
    CHECK(closed[1].windows == 999);
    CHECK(closed[2].utilisation == 0.25); // the last window, closed by the flush
    CHECK(closed[2].windows == 1);
    CHECK(max == 1.0);
}

TEST_CASE("utilisation windows: a frame that ends on a window's end leaves that window open "
          "and full, and a frame inside one window closes nothing",
          "[component][utilisation]")
{
    const uint64_t w = 1'000'000;
    double max = 0;
    // 3 bytes from 0: windows 0, 1, 2 all full; the first two closed by the frame, the third
    // by the flush.
    auto closed = SendOneFrame(8'000'000, 3, w, 0, 10 * w, max);
    REQUIRE(closed.size() == 3);
    CHECK(closed[0].utilisation == 1.0);
    CHECK(closed[0].windows == 1);
    CHECK(closed[1].utilisation == 1.0);
    CHECK(closed[1].windows == 1);
    CHECK(closed[2].utilisation == 1.0);
    CHECK(closed[2].windows == 1);
    // 64 Mb/s: 1 byte = 125 ns; 4 bytes from 100 ns end at 600 ns, inside window 0. A run
    // ending within its first window (at 800 ns) is one window of its own length.
    closed = SendOneFrame(64'000'000, 4, w, 100'000, 800'000, max);
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].utilisation == Approx(500'000.0 / 800'000));
    CHECK(closed[0].windows == 1);
}

TEST_CASE("utilisation windows: a frame over 10^11 windows costs as little as one over three",
          "[component][utilisation]")
{
    // 8 b/s: a byte takes 1 s; 100 bytes from 0.5 ns take 100 s, over 1 ns windows.
    const uint64_t w = 1000;
    double max = 0;
    const auto closed = SendOneFrame(8, 100, w, w / 2, 101'000'000'000'000ULL, max);
    REQUIRE(closed.size() == 3);
    CHECK(closed[0].utilisation == 0.5);
    CHECK(closed[1].utilisation == 1.0);
    CHECK(closed[1].windows == 100'000'000'000ULL - 1);
    CHECK(closed[2].utilisation == 0.5);
    CHECK(max == 1.0);
}

} // namespace TUSK_TEST_FILE
