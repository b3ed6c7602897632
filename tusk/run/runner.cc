/*
 * tusk: RunScenario, the run as a pipeline of stages (run-stages.h, one file each).
 */
#include "run/runner.h"

#include "run/run-attributes.h"
#include "run/run-stages.h"
#include "run/collect-rows.h"
#include "run/lazy-jobs.h"
#include "run/row-stream.h"
#include "results/tool-outputs.h"

#include "fabric/model/fabric-units.h"
#include "fabric/model/kernel/run-clock.h"

#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <chrono>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

namespace tusk
{

using namespace ns3;

namespace
{

/**
 * ns-3's SimulatorImplementationType bound to `typeId` while the run lasts (the simulator is
 * created from it at the run's first Simulator call), the previous value restored after, so
 * that a program's own simulations keep its choice.
 */
class BoundSimulatorImpl
{
  public:
    explicit BoundSimulatorImpl(const std::string& typeId)
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", m_previous);
        GlobalValue::Bind("SimulatorImplementationType", StringValue(typeId));
        // A simulator left alive by the caller would keep its own implementation.
        if (Simulator::GetImplementation()->GetInstanceTypeId().GetName() != typeId)
        {
            GlobalValue::Bind("SimulatorImplementationType", m_previous);
            throw std::logic_error("RunScenario: a simulator of another implementation than " +
                                   typeId + " is alive; call Simulator::Destroy() before a run");
        }
    }
    ~BoundSimulatorImpl() { GlobalValue::Bind("SimulatorImplementationType", m_previous); }
    BoundSimulatorImpl(const BoundSimulatorImpl&) = delete;
    BoundSimulatorImpl& operator=(const BoundSimulatorImpl&) = delete;

  private:
    StringValue m_previous;
};

} // namespace

namespace
{

/**
 * \brief [probes]: the probe mesh of the run (null without probes), its random stream the
 * next one of `built`, its timeout the scenario's or four of the longest base RTTs (at least
 * 100 µs: a probe queues only behind its own class; a long-haul link's delay is ms). Warns
 * (into `result` and `options.warn`) when probes take over 5 % of the slowest host link.
 */
std::unique_ptr<ProbeMesh>
StartProbes(const ScenarioSpec& spec, BuiltFabric& built, const Executor& executor,
            const PairRtt& longestRtt, const RunOptions& options, RunResult& result)
{
    const ProbesSection& p = spec.probes;
    if (p.intervalPs == 0)
    {
        return nullptr;
    }
    auto probes = std::make_unique<ProbeMesh>();
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(built.nextStream++);
    ProbeMeshConfig config;
    config.intervalPs = p.intervalPs;
    config.targets = p.targets;
    config.entropies = p.entropies;
    config.frameBytes = p.frameBytes;
    config.largeBytes = p.largeBytes;
    config.largeIntervalPs = p.largeIntervalPs;
    config.poisson = p.spacing == "poisson";
    config.timeoutPs =
        p.timeoutPs > 0 ? p.timeoutPs : std::max<uint64_t>(100'000'000, 4 * longestRtt.rttPs);
    config.untilPs = p.untilPs;
    uint64_t hostRate = 0; // the slowest host link
    for (uint32_t h = 0; h < built.fabric.ports.size() && h < built.nics.size(); ++h)
    {
        for (uint32_t l : built.fabric.ports[h])
        {
            const uint64_t r = built.fabric.graph.links[l].rateBps;
            hostRate = hostRate == 0 ? r : std::min(hostRate, r);
        }
    }
    auto bps = [](uint32_t bytes, uint64_t intervalPs) {
        return intervalPs == 0 ? 0.0 : 8.0 * bytes / (static_cast<double>(intervalPs) * 1e-12);
    };
    const double share = hostRate == 0 ? 0.0
                                       : (bps(p.frameBytes, p.intervalPs) +
                                          bps(p.largeBytes, p.largeIntervalPs)) /
                                             static_cast<double>(hostRate);
    if (share > 0.05)
    {
        const std::string large =
            p.largeBytes == 0 ? std::string()
                              : fmt::format(" and {} B every {} µs", p.largeBytes,
                                            static_cast<double>(p.largeIntervalPs) / 1e6);
        const std::string w = fmt::format(
            "probes.interval_us: each host sends {:.1f} % of its link's rate in probes ({} B "
            "every {} µs{}), in the NIC's control class ahead of data: they change the run "
            "they measure",
            100 * share, p.frameBytes, static_cast<double>(p.intervalPs) / 1e6, large);
        result.warnings.push_back(w);
        if (options.warn)
        {
            options.warn(w);
        }
    }
    probes->Attach(built.nics, config, rng, [exec = executor.exec]() { return exec->AllDone(); });
    return probes;
}

} // namespace

RunResult
RunScenario(const ScenarioSpec& given, const RunOptions& options)
{
    const auto wallStart = std::chrono::steady_clock::now();
    EnsurePicosecondResolution();
    RunResult result;
    result.warnings = ScenarioWarnings(given);

    // Validate, build the graph, make every derived value explicit (the spec the manifest
    // echoes is the one the run uses), build the workload.
    RunPlan plan = ValidateRun(given);
    const TopologyGraph graph = BuildGraph(given);
    SplitOverRoutes(given, graph, plan);
    const ScenarioSpec spec = ResolveScenario(given, graph);
    // Steady-state jumps move the events the scenario gave a time (run-clock.h); the clock
    // is reset when the run ends, however it ends.
    struct RunClockGuard
    {
        explicit RunClockGuard(bool on) { RunClock::Enable(on); }
        ~RunClockGuard() { RunClock::Enable(false); }
        RunClockGuard(const RunClockGuard&) = delete;
        RunClockGuard& operator=(const RunClockGuard&) = delete;
    } clockGuard(spec.simulator.Jumps());
    CheckFailures(spec, graph);
    CheckIntRates(spec, graph);
    // Held once, shared with the executor (a job of many iterations has many transfers).
    // A [[jobs]] workload is built iteration by iteration (lazy-jobs.h), unless a caller edits
    // the built workload. Fast mode too: its memo keeps the records it replays (fast-mode.md).
    // A standalone ring all-reduce likewise a window of steps at a time (fast-mode.md).
    std::optional<LazyJobs> lazy;
    std::optional<LazyRing> ring;
    if (!options.editWorkload)
    {
        lazy = BuildLazyJobs(spec, graph);
        if (!lazy)
        {
            ring = BuildLazyRing(spec, graph, options.ringWindowSteps);
        }
    }
    const std::shared_ptr<const WorkloadSpec> workloadShared = [&] {
        if (lazy)
        {
            return lazy->rest;
        }
        if (ring)
        {
            return ring->rest;
        }
        WorkloadSpec w = BuildWorkload(spec, graph);
        if (options.editWorkload)
        {
            options.editWorkload(w);
        }
        return std::make_shared<const WorkloadSpec>(std::move(w));
    }();
    const WorkloadSpec& workload = *workloadShared;
    // The checks before the run see every connection and host pair (lazily: a sample).
    const WorkloadSpec& checked = lazy ? lazy->sample : ring ? ring->sample : workload;
    CheckQpBudget(spec, plan, graph, checked);

    // Build the fabric, its NICs and the executor; every attribute through `attrs`, which
    // restores the defaults it set when the run ends (also on errors).
    RunAttributes attrs;
    attrs.ApplyNs3Defaults(spec);
    const BoundSimulatorImpl simulatorImpl(SimulatorImplTypeId(spec.simulator.implementation));
    {
        // The event scheduler, after the [ns3] defaults so that they reach its attributes.
        ObjectFactory scheduler;
        scheduler.SetTypeId(SchedulerTypeId(spec.simulator.scheduler));
        Simulator::SetScheduler(scheduler);
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(spec.seed);
    // A fabric that cannot be built (a buffer too small for its headroom, say) leaves nothing
    // behind for a later run in the same process (the component tests' binary failed in the
    // next run's results without this).
    BuiltFabric built = [&] {
        try
        {
            return BuildFabricAndNics(spec, plan, graph, attrs);
        }
        catch (...)
        {
            Simulator::Destroy();
            throw;
        }
    }();
    // Of the built fabric (its base RTTs), so after ScenarioWarnings.
    const PairRtt longestRtt = LongestBaseRtt(spec, built, checked);
    result.rtoWarning = RtoBelowRttWarning(spec, longestRtt);
    if (!result.rtoWarning.empty())
    {
        result.warnings.push_back(result.rtoWarning);
        if (options.warn)
        {
            options.warn(result.rtoWarning);
        }
    }
    try
    {
        // On the forwarding tables just built: host pairs of the workload without a route.
        CheckRoutes(spec, checked, built.fabric);
    }
    catch (...)
    {
        Simulator::Destroy(); // the nodes built so far go with it
        throw;
    }
    const Executor executor = SetUpExecutor(spec, plan, workloadShared, built, attrs);
    if (lazy)
    {
        executor.exec->SetupLazy(workloadShared, std::make_shared<JobWindow>(lazy->plans),
                                 built.nics);
        lazy->sample = WorkloadSpec();
    }
    if (ring)
    {
        executor.exec->SetupLazy(workloadShared, std::make_shared<JobWindow>(ring->units),
                                 built.nics);
        ring->sample = WorkloadSpec();
    }
    // After the executor's stream: a scenario without loss models keeps its numbers.
    built.nextStream += ScheduleFailures(spec, graph, built.fabric, built.nextStream);
    // [probes]: their stream after every other, so that a run without them draws the same.
    const std::unique_ptr<ProbeMesh> probes =
        StartProbes(spec, built, executor, longestRtt, options, result);

    Observers observers;
    observers.Attach(spec, graph, built, executor, options, attrs, wallStart);
    // What row building reads: the transfer and collective of an id as the executor holds them
    // (a live job iteration's or ring unit's, or the whole build's).
    const auto executorRowSources = [&]() {
        const WorkloadExecutor& exec = *executor.exec;
        return RowSources{spec,
                          graph,
                          built,
                          executor,
                          observers.Sink(),
                          [&exec](uint32_t t) -> const TransferSpec& { return exec.GetTransfer(t); },
                          [&exec](uint32_t c) -> const CollectiveSpec& {
                              return exec.GetCollective(static_cast<int32_t>(c));
                          }};
    };
    std::unique_ptr<IterationRows> retired;
    std::unique_ptr<RowStream> stream;
    if (lazy)
    {
        // Rows to the staged files as iterations retire (RunOptions::streamRows), unless
        // [output] formats' files read them afterwards (tool-outputs.h).
        // Each job after the first keeps up to seven temporary files open until the end
        // (row-stream.h): with very many jobs, keep the rows in memory instead of running out
        // of file descriptors.
        constexpr size_t kMaxStreamedJobs = 64;
        if (!options.streamDir.empty() && spec.output.formats.empty() &&
            lazy->plans.size() <= kMaxStreamedJobs)
        {
            stream = std::make_unique<RowStream>(options.streamDir, lazy->plans.size() + 1,
                                                 spec.lb.policy, ImportedNodeIds(spec),
                                                 spec.output.flowRows == "all");
        }
        RowSources sources = executorRowSources();
        // Fast mode: a replayed iteration's rows from its memo iteration's, shifted, where its
        // inputs are (not with failures: they change rates that ideal times read).
        const bool shifted = options.shiftedRows && spec.simulator.mode == "fast" &&
                             spec.failures.empty() && spec.failureRates.empty();
        retired = std::make_unique<IterationRows>(std::move(sources), observers.Sink(),
                                                  lazy->plans.size(), stream.get(), shifted);
        executor.exec->SetRetireCallback(
            [r = retired.get()](const JobWindow::Range& range) { r->Add(range); });
    }
    // A whole build's rows streamed when they come a collective step after another (a
    // standalone collective: StreamableWhole), under the same conditions as a job's. A ring
    // built a window of steps at a time has them from the start: each unit's rows are built
    // when it retires, if they are final then, and its records freed
    // (WorkloadExecutor::SetFinalUnitCallback).
    const bool streamWhole = !lazy && !options.streamDir.empty() && spec.output.formats.empty();
    std::unique_ptr<RowStream> wholeStream;
    std::unique_ptr<WholeRows> wholeRows;
    const auto streamWholeRows = [&]() {
        wholeStream = std::make_unique<RowStream>(options.streamDir, 1, spec.lb.policy,
                                                  ImportedNodeIds(spec),
                                                  spec.output.flowRows == "all");
        wholeRows = std::make_unique<WholeRows>(executorRowSources(), observers.Sink(),
                                                executor.exec->TotalTransfers(), workload.collectives.size(),
                                                *wholeStream);
    };
    if (ring && streamWhole)
    {
        streamWholeRows();
        executor.exec->SetFinalUnitCallback(
            [w = wholeRows.get()](const JobWindow::Range& range) {
                w->Add(range.end.transfer, true);
            });
    }
    // An [ns3] default for an attribute the run set on its objects would be lost: refuse it.
    attrs.CheckNs3Defaults(spec);

    if (options.beforeRun)
    {
        options.beforeRun(built.fabric, built.nics);
    }
    FastMode fast; // simulator.mode = "fast" only
    fast.Attach(spec, plan, built, executor, observers, ring ? ring->units.get() : nullptr);
    SteadyProbe steady; // simulator.steady_probe only
    steady.Attach(spec, built, executor.exec, workload, &observers.Sink());
    observers.SetSteadyProbe(&steady);
    executor.exec->Start();
    Simulator::Stop(PicoSeconds(spec.stopTimePs));
    const auto runStart = std::chrono::steady_clock::now();
    result.setupSeconds = std::chrono::duration<double>(runStart - wallStart).count();
    Simulator::Run();
    result.runSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    if (observers.Interrupted())
    {
        const std::string at = std::to_string(RunClock::NowPs() / 1000000);
        fast.Dispose();
        steady.Dispose();
        executor.exec->Dispose();
        observers.Dispose();
        Simulator::Destroy();
        throw RunInterrupted("the run was interrupted at " + at + " us of simulated time");
    }
    if (options.afterRun)
    {
        options.afterRun(built.fabric, built.nics);
    }
    steady.Finish(); // the ends of the last, partial window

    result.spec = spec;
    result.policyTypeId = plan.policyTypeId;
    result.pathSelectorTypeId = plan.pathSelectorTypeId;
    result.qpsPerConnection = plan.qpsPerConnection;
    result.qpScaling = plan.qpScaling;
    result.attributes = attrs.Values();
    result.headroom = built.headroom;
    observers.Finish(result);
    if (probes)
    {
        probes->Stop();
        result.probes =
            probes->Take(built.fabric, static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
    }
    fast.BeforeCollect(observers, result);
    if (!wholeRows && streamWhole && StreamableWhole(workload))
    {
        streamWholeRows();
    }
    CollectResults(spec, graph, workload, built, executor, observers, result, retired.get(),
                   wholeRows.get());
    // The probe's own events are not the run's: its event count is the same with it or without.
    result.events -= steady.Events();
    result.steady = steady.Stats();
    result.steadyJump = steady.JumpStats();
    if (options.afterCollect)
    {
        options.afterCollect();
    }

    fast.Dispose();
    steady.Dispose();
    executor.exec->Dispose();
    observers.Dispose();
    Simulator::Destroy();
    result.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

ScenarioSpec
ResolveScenario(const ScenarioSpec& spec)
{
    return ResolveScenario(spec, BuildGraph(spec)); // integers only: no ns-3 Time involved
}

} // namespace tusk
