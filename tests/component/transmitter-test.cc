// A port's transmitter (FabricNetDevice::TryTransmit) has one frame on the line at a time, even
// when choosing the next frame makes the port itself send. A switch frees a frame's ingress
// bytes as the frame leaves; when the frame leaves by the port it came in on (a valley route
// while routing has reconverged around a failure), the MMU's XON for that ingress goes out on
// this same port from inside the dequeue. Found as "agg4 -> tor5 sent 10 frames in 2240960 ps
// ... faster than its 100 Gb/s line rate allows" in scenarios/failures.toml under spraying: the
// XON and the dequeued frame started together, and the port kept two frames on the line from
// then on.

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

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

struct Sent
{
    uint64_t startPs;
    uint32_t bytes;
    bool pfc;
};

void
RecordTx(std::vector<Sent>* out, Ptr<const Packet> p, const FrameMeta& meta)
{
    out->push_back({static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()), p->GetSize(),
                    meta.kind == FrameKind::PFC});
}

} // namespace

TEST_CASE("a PFC frame raised while the port dequeues (a frame leaving by its ingress port) waits "
          "for the dequeued frame: one frame on the line at a time, no line-rate violation",
          "[component][pfc]")
{
    EnsurePicosecondResolution();
    const uint64_t rateBps = 100'000'000'000ULL; // 80 ps per byte
    std::vector<Ptr<tusk_test::ScriptedPort>> devs;
    auto channel = CreateObject<FabricChannel>();
    channel->SetAttribute("Delay", TimeValue(NanoSeconds(1)));
    for (int i = 0; i < 2; ++i)
    {
        auto node = CreateObject<Node>();
        auto dev = CreateObject<tusk_test::ScriptedPort>();
        dev->priority = 3;
        dev->SetAttribute("DataRate", DataRateValue(DataRate(rateBps)));
        node->AddDevice(dev);
        dev->Attach(channel);
        dev->CheckLineRateAgainst(rateBps);
        devs.push_back(dev);
    }
    std::vector<Sent> sent;
    devs[0]->TraceConnectWithoutContext("Tx", MakeBoundCallback(&RecordTx, &sent));
    // 12 data frames, more than the invariant's window of 10; the XON is raised by the third.
    for (int i = 0; i < 12; ++i)
    {
        devs[0]->frames.push_back(4096 + 62);
    }
    // The third frame's dequeue sends an XON for priority 3 on this same port, as
    // SharedBufferMmu does when that frame's ingress is this port.
    tusk_test::ScriptedPort* port = PeekPointer(devs[0]); // not a Ptr: no cycle through itself
    port->onDequeue = [port](uint64_t frame) {
        if (frame == 2)
        {
            port->SendPfc(3, 0, 0);
        }
    };
    Simulator::Schedule(NanoSeconds(10), &FabricNetDevice::TryTransmit, devs[0]);
    Simulator::Run();
    const uint64_t pfcTx = devs[0]->GetCounters().pfcTx;
    const auto violation = devs[0]->GetLineRateViolation();
    Simulator::Destroy();

    REQUIRE(sent.size() == 13);
    CHECK(pfcTx == 1);
    // The XON goes out as soon as the frame whose dequeue raised it has left the line.
    CHECK_FALSE(sent[2].pfc);
    CHECK(sent[3].pfc);
    const uint32_t overhead = 20; // preamble, start delimiter and inter-frame gap (default)
    for (size_t i = 1; i < sent.size(); ++i)
    {
        // Back to back: each frame starts exactly when the one before it ends.
        CHECK(sent[i].startPs == sent[i - 1].startPs + (sent[i - 1].bytes + overhead) * 80);
    }
    CHECK_FALSE(violation.found);
}

} // namespace TUSK_TEST_FILE
