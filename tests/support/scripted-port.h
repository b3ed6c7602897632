/*
 * Helper of the component tests of a single port (FabricNetDevice): a port that sends the
 * frames it is given, in order, and ignores what it receives.
 */
#ifndef TUSK_TEST_SCRIPTED_PORT_H
#define TUSK_TEST_SCRIPTED_PORT_H

#include "fabric/model/fabric-net-device.h"

#include "ns3/packet.h"

#include <cstdint>
#include <deque>
#include <functional>

namespace tusk_test
{

/** Sends `frames` (sizes, bytes) as DATA frames of `priority`; `onDequeue`, when set, runs
 *  inside each dequeue with the frame's 0-based index (after the frame is taken), as a
 *  switch's MMU acts inside SwitchPort::DoDequeue. */
class ScriptedPort : public ns3::FabricNetDevice
{
  public:
    std::deque<uint32_t> frames;
    uint8_t priority = 0;
    std::function<void(uint64_t)> onDequeue;

    uint64_t GetQueuedFrames() const override { return frames.size(); }

  protected:
    bool DoDequeue(ns3::Ptr<ns3::Packet>& packet, ns3::FrameMeta& meta) override
    {
        if (frames.empty())
        {
            return false;
        }
        packet = ns3::Create<ns3::Packet>(frames.front());
        frames.pop_front();
        meta = ns3::FrameMeta();
        meta.kind = ns3::FrameKind::DATA;
        meta.priority = priority;
        if (onDequeue)
        {
            onDequeue(m_dequeued);
        }
        ++m_dequeued;
        return true;
    }
    void DoReceive(ns3::Ptr<ns3::Packet>, const ns3::FrameMeta&) override {}

  private:
    uint64_t m_dequeued = 0;
};

} // namespace tusk_test

#endif
