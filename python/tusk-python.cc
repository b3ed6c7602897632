/*
 * tusk: the Python module `tusk` (its compiled part, tusk._tusk), pybind11 over the scripting
 * API (tusk/api/scripting.h). python/tusk/__init__.py adds the DataFrames; docs/scripting.md.
 */
#include "results/results-writer.h"
#include "api/scripting.h"

#include "ns3/simulator.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>

namespace py = pybind11;
using namespace pybind11::literals;

namespace
{

/** A Python value as `--set` text: bool, int, float, str; other objects by their TOML repr. */
std::string
SetText(const py::handle& v)
{
    if (py::isinstance<py::bool_>(v))
    {
        return v.cast<bool>() ? "true" : "false";
    }
    if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))
    {
        return py::str(v).cast<std::string>();
    }
    if (py::isinstance<py::str>(v))
    {
        return v.cast<std::string>();
    }
    throw py::type_error("set(): expected bool, int, float or str (a TOML inline value as str)");
}

/** The summary as a dict, keys as the manifest's "summary" (RunSummary, runner.h). */
py::dict
SummaryDict(const tusk::RunSummary& x)
{
    return py::dict("policy"_a = x.policy, "flows"_a = x.flows, "unfinished"_a = x.unfinished,
                    "cct_us"_a = x.cctUs, "algbw_GBps"_a = x.algbwGBps, "busbw_GBps"_a = x.busbwGBps,
                    "lower_bound_us"_a = x.lowerBoundUs, "slowdown_mean"_a = x.meanSlowdown,
                    "slowdown_p50"_a = x.p50Slowdown, "slowdown_p99"_a = x.p99Slowdown,
                    "slowdown_p999"_a = x.p999Slowdown, "slowdown_max"_a = x.maxSlowdown,
                    "fct_max_us"_a = x.maxFctUs, "fct_p99_us"_a = x.p99FctUs,
                    "uplink_util_max"_a = x.uplinkMaxUtil, "uplink_util_mean"_a = x.uplinkMeanUtil,
                    "uplink_jain"_a = x.uplinkJain, "uplink_imbalance"_a = x.uplinkImbalance,
                    "drops"_a = x.drops, "pfc_pauses"_a = x.pfcPauses,
                    "paused_fraction"_a = x.pausedFraction, "pfc_max_depth"_a = x.pfcMaxDepth,
                    "ecn_marks"_a = x.ecnMarks, "cnps"_a = x.cnps, "trimmed_frames"_a = x.trimmedFrames,
                    "retx_packets"_a = x.retxPackets, "retx_bytes"_a = x.retxBytes,
                    "retx_timeout_packets"_a = x.retxTimeoutPackets,
                    "ooo_packets"_a = x.oooPackets, "naks"_a = x.naks,
                    "spurious_retx"_a = x.spuriousRetx, "reorder_max"_a = x.reorderMax,
                    "reorder_mean"_a = x.reorderMean);
}

/**
 * Run with the GIL released. Every progress tick (20 µs of simulated time) takes the GIL for a
 * moment: a pending Ctrl-C (PyErr_CheckSignals) stops the run, and `progress`, if given, is
 * called with (simulated ms, transfers done is not known here: None) at most twice a second.
 */
tusk::RunResult
RunFromPython(const tusk::Scenario& s, const std::string& out, const py::object& progress)
{
    bool interrupted = false;
    py::object error; // an exception raised by `progress`
    auto last = std::chrono::steady_clock::now();
    auto poll = [&]() {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0)
        {
            interrupted = true;
            return false;
        }
        const auto now = std::chrono::steady_clock::now();
        if (!progress.is_none() && now - last > std::chrono::milliseconds(500))
        {
            last = now;
            try
            {
                progress(ns3::Simulator::Now().GetSeconds() * 1e3);
            }
            catch (py::error_already_set& e)
            {
                e.restore();
                interrupted = true;
                return false;
            }
        }
        return true;
    };
    try
    {
        py::gil_scoped_release release;
        return s.Run(out, false, poll);
    }
    catch (const tusk::RunInterrupted&)
    {
        if (interrupted)
        {
            throw py::error_already_set(); // the KeyboardInterrupt or the callback's error
        }
        throw;
    }
}

} // namespace

PYBIND11_MODULE(_tusk, m)
{
    m.doc() = "tusk's scripting API (tusk/api/scripting.h); use the package `tusk`, not this module.";
    py::register_exception<ns3::InputError>(m, "InputError", PyExc_ValueError);
    py::register_exception<tusk::RunInterrupted>(m, "RunInterrupted", PyExc_RuntimeError);

    py::class_<tusk::RunResult>(m, "RunResult")
        .def_property_readonly("summary", [](const tusk::RunResult& r) { return SummaryDict(r.summary); })
        .def_readonly("failure", &tusk::RunResult::failure)
        .def_readonly("finished", &tusk::RunResult::finished)
        .def_readonly("events", &tusk::RunResult::events)
        .def_readonly("wall_seconds", &tusk::RunResult::wallSeconds)
        .def_readonly("warnings", &tusk::RunResult::warnings)
        .def_readonly("policy_type_id", &tusk::RunResult::policyTypeId)
        .def_property_readonly("sim_end_us", [](const tusk::RunResult& r) { return r.simEndPs / 1e6; })
        // The tables as the CSV text `tusk run` writes (results-writer.cc), byte for byte:
        // tusk/__init__.py reads them with the analysis package's loader.
        .def("csv", [](const tusk::RunResult& r, const std::string& table) {
            if (table == "flows") return tusk::FlowsCsv(r);
            if (table == "collectives") return tusk::CollectivesCsv(r);
            if (table == "waits") return tusk::WaitsCsv(r);
            if (table == "jobs") return tusk::JobsCsv(r);
            if (table == "links") return tusk::LinksCsv(r);
            if (table == "pfc_events") return tusk::PfcEventsCsv(r);
            if (table == "timeseries") return tusk::TimeSeriesCsv(r);
            if (table == "switch_timeseries") return tusk::SwitchTimeSeriesCsv(r);
            if (table == "switches") return tusk::SwitchesCsv(r);
            if (table == "cc_trace") return tusk::CcTraceCsv(r);
            throw py::value_error("no table \"" + table + "\" (flows, collectives, waits, jobs, "
                                  "links, pfc_events, timeseries, switch_timeseries, switches, "
                                  "cc_trace)");
        });

    py::class_<tusk::Scenario>(m, "Scenario")
        .def(py::init<>())
        .def_static("load", &tusk::Scenario::Load, "path"_a)
        .def_static("from_string", &tusk::Scenario::FromString, "toml"_a, "name"_a = "<python>")
        .def_static("from_json", &tusk::Scenario::FromJson, "json"_a, "name"_a = "<dict>")
        .def("set", [](tusk::Scenario& s, const std::string& key, const py::handle& v) -> tusk::Scenario& {
            return s.Set(key, SetText(v));
        }, "key"_a, "value"_a, py::return_value_policy::reference_internal)
        .def("add_flow", &tusk::Scenario::AddFlow, "src"_a, "dst"_a, "bytes"_a, "start_us"_a = 0.0,
             py::return_value_policy::reference_internal)
        .def("add_failure", &tusk::Scenario::AddFailure, "at_us"_a, "kind"_a, "target"_a,
             "rate_divisor"_a = 0, py::return_value_policy::reference_internal)
        .def("add_table", &tusk::Scenario::AddTable, "array"_a, "body"_a,
             py::return_value_policy::reference_internal)
        .def("check", &tusk::Scenario::Check)
        .def_property_readonly("text", &tusk::Scenario::Text)
        .def_property_readonly("overrides", &tusk::Scenario::Overrides)
        .def_property_readonly("seed", [](const tusk::Scenario& s) { return s.Spec().seed; })
        .def("_run", &RunFromPython, "out"_a, "progress"_a);
}
