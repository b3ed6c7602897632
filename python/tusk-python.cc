/*
 * tusk: the Python module `tusk` (its compiled part, tusk._tusk), pybind11 over the scripting
 * API (tusk/api/scripting.h). python/tusk/__init__.py adds the DataFrames; docs/scripting.md.
 */
#include "api/scripting.h"
#include "cli/plugins.h"
#include "results/metric-catalogue.h"
#include "results/results-writer.h"

#include "ns3/simulator.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdlib>

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

/**
 * The summary as a dict: "policy", "flows", then the keys of the manifest's "summary" (the
 * metric catalogue, tusk/results/metric-catalogue.h, in its order; a metric without a value is NaN,
 * the manifest's null) and "quantile_method".
 */
py::dict
SummaryDict(const tusk::RunResult& r)
{
    const tusk::RunSummary& x = r.summary;
    py::dict d("policy"_a = x.policy, "flows"_a = x.flows);
    for (const auto& metric : tusk::MetricCatalogue())
    {
        if (tusk::HasMetric(metric, r.spec))
        {
            const tusk::MetricValue v = metric.value(x);
            d[metric.name] = v.isCount ? py::object(py::int_(v.count)) : py::object(py::float_(v.real));
        }
    }
    d["quantile_method"] = x.quantileMethod;
    return d;
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

    m.def("metrics", []() {
        py::list out;
        for (const auto& metric : tusk::MetricCatalogue())
        {
            out.append(py::dict("name"_a = metric.name, "unit"_a = metric.unit,
                                "better"_a = tusk::BetterName(metric.better),
                                "meaning"_a = metric.meaning));
        }
        return out;
    }, "The summary metrics (tusk/results/metric-catalogue.h): name, unit, better, meaning.");

    // Plugins (docs/extending.md, "A plugin"): shared libraries of one's own policies, path
    // selectors and congestion controls, loaded into this process as `tusk --plugin` does;
    // every run's manifest records them.
    auto record = [](const tusk::PluginRecord& p) {
        return py::dict("path"_a = p.path, "sha256"_a = p.sha256);
    };
    m.def("load_plugin", [record](const std::string& path) {
        return record(tusk::LoadPlugin(path, "load_plugin"));
    }, "path"_a, "Load a plugin (a .so built against the installed tusk); its kinds are then "
                 "usable by name. Loading one twice is a no-op. Returns {path, sha256}.");
    m.def("plugins", [record]() {
        py::list out;
        for (const auto& p : tusk::LoadedPlugins())
        {
            out.append(record(p));
        }
        return out;
    }, "The plugins loaded so far, in load order: [{path, sha256}, ...].");
    m.def("_load_plugin_path", []() {
        if (const char* env = std::getenv("TUSK_PLUGIN_PATH"))
        {
            for (const auto& f : tusk::PluginPathFiles(env))
            {
                tusk::LoadPlugin(f, "TUSK_PLUGIN_PATH");
            }
        }
    }, "Load $TUSK_PLUGIN_PATH's plugins (the package does so when imported).");

    py::class_<tusk::RunResult>(m, "RunResult")
        .def_property_readonly("summary", &SummaryDict)
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
