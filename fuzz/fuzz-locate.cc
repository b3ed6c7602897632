// libFuzzer target: what `tusk locate RESULTS_DIR` reads, flows.csv, links.csv and
// manifest.json (tusk::locate::ReadObservations), and the localisation on what reads: every
// method (Bayes, NNLS, LASSO) with few iterations, the table and the JSON.
//
// One input holds the three files, separated by lines "%%": flows.csv, links.csv and, when a
// second separator follows, manifest.json.
#include "fuzz-input.h"

#include "locate/locate-command.h"

#include <sstream>

namespace
{
/** Flows localised per input (signals, incidence and methods grow with them). */
constexpr size_t kMaxFlows = 256;
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string sep = "\n%%\n";
    const size_t a = text.find(sep);
    const size_t b = a == std::string::npos ? a : text.find(sep, a + sep.size());
    std::istringstream flows(text.substr(0, a));
    std::istringstream links(a == std::string::npos ? "" : text.substr(a + sep.size(), b == std::string::npos ? b : b - a - sep.size()));
    std::istringstream manifest(b == std::string::npos ? "" : text.substr(b + sep.size()));
    try
    {
        namespace loc = tusk::locate;
        const loc::Observations obs = loc::ReadObservations(
            flows, "flows.csv", links, "links.csv", b == std::string::npos ? nullptr : &manifest);
        if (obs.flows.empty() || obs.flows.size() > kMaxFlows)
        {
            return 0;
        }
        loc::CommandOptions o;
        o.tomography.sweeps = 20;
        o.tomography.burnIn = 5;
        o.tomography.bootstrap = 3;
        for (auto method : {loc::Method::Bayes, loc::Method::Nnls, loc::Method::Lasso})
        {
            o.tomography.method = method;
            o.method = loc::MethodName(method);
            const loc::LocateResult r = loc::Locate(obs, o.tomography);
            std::ostringstream out;
            loc::PrintTable(obs, r, o, out);
            (void)loc::ToJson(obs, r, o);
        }
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
