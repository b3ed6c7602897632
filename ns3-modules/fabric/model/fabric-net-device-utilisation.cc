/*
 * tusk: FabricNetDevice, utilisation accounting: the line's busy time credited to fixed
 * UtilisationWindows, the busiest window kept in the port's counters and each closed window
 * reported to the UtilisationWindow trace.
 */
#include "fabric-net-device.h"

#include "ns3/nstime.h"

namespace ns3
{

void
FabricNetDevice::SetUtilisationWindow(Time window)
{
    m_utilWindow = window;
    m_utilWindowPs = static_cast<uint64_t>(window.GetPicoSeconds());
}

Time
FabricNetDevice::GetUtilisationWindow() const
{
    return m_utilWindow;
}

void
FabricNetDevice::AccountUtilisation(uint64_t nowPs, uint64_t durationPs)
{
    // The line is busy over [now, now + duration): credit each window with the part of that
    // interval inside it, so no window exceeds 100 %. In closed form, whatever the duration:
    // the window in progress gets the part up to its end, the windows wholly inside the
    // interval are full (busy fraction 1, closed together), and the window holding the end
    // stays open with the rest.
    const uint64_t windowPs = m_utilWindowPs;
    if (durationPs == 0)
    {
        return;
    }
    if (nowPs >= m_utilWindowStartPs + windowPs)
    {
        FlushUtilisation(PicoSeconds(m_utilWindowStartPs + windowPs)); // closed at its end
        m_utilWindowStartPs = nowPs - nowPs % windowPs;
    }
    const uint64_t endPs = nowPs + durationPs;
    const uint64_t firstEndPs = m_utilWindowStartPs + windowPs;
    if (endPs <= firstEndPs)
    {
        m_utilWindowBusyPs += durationPs;
        return;
    }
    m_utilWindowBusyPs += firstEndPs - nowPs;
    FlushUtilisation(PicoSeconds(firstEndPs));
    // Windows touched after the first: ceil((end - firstEnd) / window); all but the last full.
    const uint64_t later = (endPs - firstEndPs + windowPs - 1) / windowPs;
    const uint64_t full = later - 1;
    if (full > 0)
    {
        CloseFullWindows(full);
    }
    m_utilWindowStartPs = firstEndPs + full * windowPs;
    m_utilWindowBusyPs = endPs - m_utilWindowStartPs;
}

void
FabricNetDevice::CloseFullWindows(uint64_t windows)
{
    if (m_counters.maxWindowUtilisation < 1.0)
    {
        m_counters.maxWindowUtilisation = 1.0;
    }
    m_utilisationTrace(1.0, windows);
}

void
FabricNetDevice::FlushUtilisation(Time now)
{
    const uint64_t windowPs = m_utilWindowPs;
    // A run shorter than one window has one window: the run itself (the full window would
    // count idle time after the end, and the busiest window would be less busy than the mean).
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    const uint64_t lengthPs =
        m_utilWindowStartPs == 0 && nowPs > 0 && nowPs < windowPs ? nowPs : windowPs;
    if (m_utilWindowBusyPs > 0 && windowPs > 0)
    {
        const double u = static_cast<double>(m_utilWindowBusyPs) / static_cast<double>(lengthPs);
        if (u > m_counters.maxWindowUtilisation)
        {
            m_counters.maxWindowUtilisation = u;
        }
        m_utilisationTrace(u, 1);
    }
    m_utilWindowBusyPs = 0;
}

} // namespace ns3
