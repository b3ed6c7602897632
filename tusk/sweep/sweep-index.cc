#include "sweep/sweep-index.h"

#include "results/results-dir.h"
#include "results/results-writer.h"
#include "sweep/sweep-exec.h"
#include "cli/git-revision.h"
#include "tusk-version.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <unistd.h>

namespace tusk
{

namespace fs = std::filesystem;

namespace
{

std::string
JsonText(const nlohmann::ordered_json& v)
{
    if (v.is_null())
    {
        return "";
    }
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    return v.dump();
}

/** The summary metrics of all runs, in the order they first appear. */
std::vector<std::string>
MetricColumns(const std::vector<IndexedRun>& runs)
{
    std::vector<std::string> cols;
    for (const auto& r : runs)
    {
        if (!r.summary.is_object())
        {
            continue;
        }
        for (auto it = r.summary.begin(); it != r.summary.end(); ++it)
        {
            if (std::find(cols.begin(), cols.end(), it.key()) == cols.end())
            {
                cols.push_back(it.key());
            }
        }
    }
    return cols;
}

/** The column layout shared by sweep.csv and the runs table. */
struct Layout
{
    std::vector<std::string> axes;    //!< axis columns (labels)
    std::vector<std::string> values;  //!< value columns (scenario keys)
    bool policyColumn = true;         //!< no axis is named "policy"
    bool seedColumn = true;           //!< no axis is named "seed", no value column is "seed"
    std::vector<std::string> metrics; //!< summary keys (not clashing with the columns above)
};

Layout
MakeLayout(const SweepPlan& plan, const std::vector<IndexedRun>& runs)
{
    Layout l;
    l.axes = plan.axisNames;
    l.values = plan.valueColumns;
    l.policyColumn = std::find(l.axes.begin(), l.axes.end(), "policy") == l.axes.end();
    // A labelled or zipped axis over the seed key has a value column "seed" (the seed it sets,
    // the run's seed): the resolved seed's column would repeat it under the same name.
    l.seedColumn = std::find(l.axes.begin(), l.axes.end(), "seed") == l.axes.end() &&
                   std::find(l.values.begin(), l.values.end(), "seed") == l.values.end();
    for (const auto& m : MetricColumns(runs))
    {
        if (std::find(l.axes.begin(), l.axes.end(), m) == l.axes.end())
        {
            l.metrics.push_back(m);
        }
    }
    return l;
}

std::string
AxisValue(const IndexedRun& r, const std::string& axis)
{
    if (axis == "policy")
    {
        return r.run->policy; // an unlabelled lb.policy axis: the label is the policy
    }
    for (const auto& [n, label] : r.run->labels)
    {
        if (n == axis)
        {
            return label;
        }
    }
    return "";
}

std::string
ValueOf(const IndexedRun& r, const std::string& key)
{
    for (const auto& [k, v] : r.run->values)
    {
        if (k == key)
        {
            return v;
        }
    }
    return "";
}

/** sqlite3 handles closed on scope exit. */
struct DbCloser
{
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtCloser
{
    void operator()(sqlite3_stmt* st) const { sqlite3_finalize(st); }
};

/** A failed SQLite call, with its primary result code (SQLITE_FULL, SQLITE_IOERR, ...). */
class SqliteError : public std::runtime_error
{
  public:
    SqliteError(const std::string& what, int code)
        : std::runtime_error(what),
          m_code(code & 0xff)
    {
    }

    /** The disk refused the bytes (full, a file size limit, an I/O error): exit 3, as for
     *  any result file, rather than an internal error. */
    bool IsWriteFailure() const
    {
        return m_code == SQLITE_FULL || m_code == SQLITE_IOERR || m_code == SQLITE_CANTOPEN;
    }

  private:
    int m_code;
};

void
Exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK)
    {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw SqliteError("index.sqlite: " + msg + " in: " + sql, sqlite3_extended_errcode(db));
    }
}

std::string
Quoted(const std::string& column)
{
    std::string q = "\"";
    for (char c : column)
    {
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

/** Bind text as an integer or a real when it is one (sqlite's dynamic typing keeps it). */
void
BindValue(sqlite3_stmt* st, int k, const std::string& text)
{
    if (text.empty())
    {
        sqlite3_bind_null(st, k);
        return;
    }
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (*end == '\0' && errno == 0)
    {
        sqlite3_bind_int64(st, k, i);
        return;
    }
    const double d = std::strtod(text.c_str(), &end);
    if (*end == '\0')
    {
        sqlite3_bind_double(st, k, d);
        return;
    }
    sqlite3_bind_text(st, k, text.c_str(), -1, SQLITE_TRANSIENT);
}

void
BindJson(sqlite3_stmt* st, int k, const nlohmann::ordered_json& v)
{
    if (v.is_number_integer())
    {
        sqlite3_bind_int64(st, k, v.get<int64_t>());
    }
    else if (v.is_number())
    {
        sqlite3_bind_double(st, k, v.get<double>());
    }
    else if (v.is_boolean())
    {
        sqlite3_bind_int(st, k, v.get<bool>() ? 1 : 0);
    }
    else if (v.is_string())
    {
        sqlite3_bind_text(st, k, v.get<std::string>().c_str(), -1, SQLITE_TRANSIENT);
    }
    else
    {
        sqlite3_bind_null(st, k);
    }
}

/** Write the index into the new database file `tmp` (created here). */
void
FillSqlite(const std::string& tmp, const SweepPlan& plan, const std::vector<IndexedRun>& runs)
{
    const Layout l = MakeLayout(plan, runs);
    sqlite3* raw = nullptr;
    if (sqlite3_open(tmp.c_str(), &raw) != SQLITE_OK)
    {
        const int code = raw ? sqlite3_extended_errcode(raw) : SQLITE_CANTOPEN;
        sqlite3_close(raw);
        throw SqliteError("cannot create " + tmp, code);
    }
    std::unique_ptr<sqlite3, DbCloser> db(raw);
    Exec(db.get(), "BEGIN");
    Exec(db.get(), "CREATE TABLE sweep (key TEXT PRIMARY KEY, value TEXT)");
    Exec(db.get(), "CREATE TABLE axes (position INTEGER, name TEXT, keys TEXT)");

    // The runs table: the sweep.csv columns with SQL types, then where and how each run ran.
    std::vector<std::string> cols = {"run_id TEXT PRIMARY KEY", "run_dir TEXT"};
    for (const auto& a : l.axes)
    {
        cols.push_back(Quoted(a)); // no declared type: labels keep the type they are bound with
    }
    for (const auto& v : l.values)
    {
        cols.push_back(Quoted(v));
    }
    if (l.policyColumn)
    {
        cols.push_back("policy TEXT");
    }
    if (l.seedColumn)
    {
        cols.push_back("seed INTEGER");
    }
    for (const char* c : {"status TEXT", "exit_status INTEGER", "message TEXT",
                          "scenario_name TEXT"})
    {
        cols.push_back(c);
    }
    for (const auto& m : l.metrics)
    {
        cols.push_back(Quoted(m));
    }
    for (const char* c : {"hash TEXT", "wall_time_s REAL", "backend TEXT", "host TEXT"})
    {
        cols.push_back(c);
    }
    std::string create = "CREATE TABLE runs (";
    for (size_t i = 0; i < cols.size(); ++i)
    {
        create += (i ? ", " : "") + cols[i];
    }
    Exec(db.get(), create + ")");

    auto prepare = [&](const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
        {
            throw SqliteError(std::string("index.sqlite: ") + sqlite3_errmsg(db.get()),
                              sqlite3_extended_errcode(db.get()));
        }
        return std::unique_ptr<sqlite3_stmt, StmtCloser>(st);
    };
    auto step = [&](sqlite3_stmt* st) {
        if (sqlite3_step(st) != SQLITE_DONE)
        {
            throw SqliteError(std::string("index.sqlite: ") + sqlite3_errmsg(db.get()),
                              sqlite3_extended_errcode(db.get()));
        }
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    };
    {
        auto st = prepare("INSERT INTO sweep VALUES (?, ?)");
        for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
                 {"name", plan.name},
                 {"kind", plan.kind},
                 {"source_file", plan.sourceFile},
                 {"root", plan.root},
                 {"runs", std::to_string(plan.runs.size())},
                 {"tusk_version", TUSK_VERSION},
                 {"git_revision", GitRevision()}})
        {
            sqlite3_bind_text(st.get(), 1, k.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st.get(), 2, v.c_str(), -1, SQLITE_TRANSIENT);
            step(st.get());
        }
    }
    {
        auto st = prepare("INSERT INTO axes VALUES (?, ?, ?)");
        for (size_t i = 0; i < plan.axisNames.size(); ++i)
        {
            std::string keys;
            if (i < plan.axisKeys.size())
            {
                for (const auto& k : plan.axisKeys[i])
                {
                    keys += (keys.empty() ? "" : ",") + k;
                }
            }
            sqlite3_bind_int(st.get(), 1, static_cast<int>(i));
            sqlite3_bind_text(st.get(), 2, plan.axisNames[i].c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st.get(), 3, keys.c_str(), -1, SQLITE_TRANSIENT);
            step(st.get());
        }
    }
    std::string insert = "INSERT INTO runs VALUES (";
    for (size_t i = 0; i < cols.size(); ++i)
    {
        insert += i ? ", ?" : "?";
    }
    auto st = prepare(insert + ")");
    for (const auto& r : runs)
    {
        int k = 1;
        sqlite3_bind_text(st.get(), k++, r.run->id.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st.get(), k++, r.run->id.c_str(), -1, SQLITE_TRANSIENT);
        for (const auto& a : l.axes)
        {
            BindValue(st.get(), k++, AxisValue(r, a));
        }
        for (const auto& v : l.values)
        {
            BindValue(st.get(), k++, ValueOf(r, v));
        }
        if (l.policyColumn)
        {
            sqlite3_bind_text(st.get(), k++, r.run->policy.c_str(), -1, SQLITE_TRANSIENT);
        }
        if (l.seedColumn)
        {
            sqlite3_bind_int64(st.get(), k++, static_cast<sqlite3_int64>(r.run->seed));
        }
        sqlite3_bind_text(st.get(), k++, r.status.c_str(), -1, SQLITE_TRANSIENT);
        if (r.exitStatus >= 0)
        {
            sqlite3_bind_int(st.get(), k++, r.exitStatus);
        }
        else
        {
            sqlite3_bind_null(st.get(), k++);
        }
        sqlite3_bind_text(st.get(), k++, r.message.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st.get(), k++, r.scenarioName.c_str(), -1, SQLITE_TRANSIENT);
        for (const auto& m : l.metrics)
        {
            BindJson(st.get(), k++, r.summary.is_object() && r.summary.contains(m)
                                        ? r.summary[m]
                                        : nlohmann::ordered_json());
        }
        sqlite3_bind_text(st.get(), k++, r.run->hash.c_str(), -1, SQLITE_TRANSIENT);
        if (r.status == "pending")
        {
            sqlite3_bind_null(st.get(), k++);
        }
        else
        {
            sqlite3_bind_double(st.get(), k++, r.wallSeconds);
        }
        sqlite3_bind_text(st.get(), k++, r.backend.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st.get(), k++, r.host.c_str(), -1, SQLITE_TRANSIENT);
        step(st.get());
    }
    st.reset();
    Exec(db.get(), "COMMIT");
}

/** index.sqlite, written beside `path` and renamed over it: never half an index. */
void
WriteSqlite(const std::string& path, const SweepPlan& plan, const std::vector<IndexedRun>& runs)
{
    const std::string tmp = path + fmt::format(".tmp-{}", ::getpid());
    fs::remove(tmp);
    try
    {
        FillSqlite(tmp, plan, runs);
    }
    catch (const SqliteError& e)
    {
        std::error_code ec;
        fs::remove(tmp, ec);
        if (e.IsWriteFailure())
        {
            throw WriteError(std::string(e.what()) + " (no space left or a file size limit?)");
        }
        throw;
    }
    fs::rename(tmp, path);
}

} // namespace

std::vector<IndexedRun>
ReadIndex(const SweepPlan& plan)
{
    std::vector<IndexedRun> out;
    for (const auto& run : plan.runs)
    {
        IndexedRun r;
        r.run = &run;
        RunRecord rec;
        const bool hasRecord = ReadRunRecord(plan.root, run, rec);
        const std::string dir = plan.root + "/" + run.id;
        if (HasCompleteResults(dir, run.hash))
        {
            std::ifstream in(dir + "/manifest.json");
            const auto m = nlohmann::ordered_json::parse(in, nullptr, false);
            r.status = m.value("status", "") == "ok" ? "ok" : "failed";
            r.message = m.value("failure", "");
            r.exitStatus = r.status == "ok" ? 0 : 1;
            r.summary = m.value("summary", nlohmann::ordered_json());
            r.scenarioName = m.value("scenario_name", "");
            r.wallSeconds = m.value("wall_time_s", 0.0);
            if (hasRecord)
            {
                r.exitStatus = rec.exitStatus;
                r.backend = rec.backend;
                r.host = rec.host;
                r.wallSeconds = rec.wallSeconds;
            }
        }
        else if (hasRecord && rec.status == "error")
        {
            r.status = "error";
            r.exitStatus = rec.exitStatus;
            r.message = rec.message;
            r.wallSeconds = rec.wallSeconds;
            r.backend = rec.backend;
            r.host = rec.host;
        }
        else
        {
            r.status = "pending";
        }
        out.push_back(std::move(r));
    }
    return out;
}

IndexCounts
Count(const std::vector<IndexedRun>& runs)
{
    IndexCounts c;
    for (const auto& r : runs)
    {
        (r.status == "ok" ? c.ok : r.status == "failed" ? c.failed : r.status == "error" ? c.error : c.pending)++;
    }
    return c;
}

std::string
SweepCsv(const SweepPlan& plan, const std::vector<IndexedRun>& runs)
{
    const Layout l = MakeLayout(plan, runs);
    std::vector<std::string> header = {"run_id"};
    header.insert(header.end(), l.axes.begin(), l.axes.end());
    header.insert(header.end(), l.values.begin(), l.values.end());
    if (l.policyColumn)
    {
        header.push_back("policy");
    }
    if (l.seedColumn)
    {
        header.push_back("seed");
    }
    for (const char* c : {"status", "exit_status", "message", "scenario_name"})
    {
        header.push_back(c);
    }
    header.insert(header.end(), l.metrics.begin(), l.metrics.end());
    std::string s;
    for (size_t i = 0; i < header.size(); ++i)
    {
        s += (i ? "," : "") + CsvField(header[i]);
    }
    s += "\n";
    for (const auto& r : runs)
    {
        std::vector<std::string> f = {r.run->id};
        for (const auto& a : l.axes)
        {
            f.push_back(AxisValue(r, a));
        }
        for (const auto& v : l.values)
        {
            f.push_back(ValueOf(r, v));
        }
        if (l.policyColumn)
        {
            f.push_back(r.run->policy);
        }
        if (l.seedColumn)
        {
            f.push_back(std::to_string(r.run->seed));
        }
        f.push_back(r.status);
        f.push_back(r.exitStatus >= 0 ? std::to_string(r.exitStatus) : "");
        f.push_back(r.message);
        f.push_back(r.scenarioName);
        for (const auto& m : l.metrics)
        {
            f.push_back(r.summary.is_object() && r.summary.contains(m) ? JsonText(r.summary[m]) : "");
        }
        for (size_t i = 0; i < f.size(); ++i)
        {
            s += (i ? "," : "") + CsvField(f[i]);
        }
        s += "\n";
    }
    return s;
}

IndexCounts
WriteSweepIndex(const SweepPlan& plan)
{
    fs::create_directories(plan.root);
    const auto runs = ReadIndex(plan);
    WriteFileAtomic(plan.root + "/sweep.csv", SweepCsv(plan, runs));
    WriteSqlite(plan.root + "/index.sqlite", plan, runs);
    return Count(runs);
}

} // namespace tusk
