/*
 * tusk: `--set key.path=value` overrides, applied to the parsed scenario before it is read.
 */
#include "scenario/scenario-reader.h"

#include "scenario/scenario-text.h"

#include <algorithm>

namespace tusk
{

using ns3::InputError;

void
ScenarioReader::MarkOverride(const toml::node* n)
{
    m_overrideNodes.insert(n);
    if (auto* t = n->as_table())
    {
        for (auto&& [k, v] : *t)
        {
            MarkOverride(&v);
        }
    }
    else if (auto* a = n->as_array())
    {
        for (auto&& v : *a)
        {
            MarkOverride(&v);
        }
    }
}

void
ScenarioReader::Forget(const toml::node* n)
{
    m_overrideNodes.erase(n);
    m_rawText.erase(n);
    if (auto* t = n->as_table())
    {
        for (auto&& [k, v] : *t)
        {
            Forget(&v);
        }
    }
    else if (auto* a = n->as_array())
    {
        for (auto&& v : *a)
        {
            Forget(&v);
        }
    }
}

void
ScenarioReader::ApplyOverride(toml::table& root, const std::string& text)
{
    const std::string syntax =
        "expected KEY.PATH=VALUE, e.g. lb.policy=spray or workload.bytes=1GiB; got " +
        Quote(text);
    auto eq = text.find('=');
    if (eq == std::string::npos)
    {
        throw InputError(kSetFile, 0, Trim(text), syntax);
    }
    const std::string keyText = Trim(text.substr(0, eq));
    const std::string valueText = Trim(text.substr(eq + 1));

    // Split the key path: bare segments separated by '.', or "quoted" segments.
    std::vector<std::string> segs;
    size_t i = 0;
    while (true)
    {
        std::string seg;
        if (i < keyText.size() && keyText[i] == '"')
        {
            auto close = keyText.find('"', i + 1);
            if (close == std::string::npos)
            {
                throw InputError(kSetFile, 0, keyText, "unterminated quoted key; " + syntax);
            }
            seg = keyText.substr(i + 1, close - i - 1);
            i = close + 1;
            if (i < keyText.size() && keyText[i] != '.')
            {
                throw InputError(kSetFile,
                                 0,
                                 keyText,
                                 "'.' expected after a quoted key; " + syntax);
            }
        }
        else
        {
            auto dot = keyText.find('.', i);
            seg = keyText.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
            i = dot == std::string::npos ? keyText.size() : dot;
            if (seg.empty() ||
                seg.find_first_of(" \t\"") != std::string::npos)
            {
                throw InputError(kSetFile, 0, keyText, "empty or malformed key segment; " + syntax);
            }
        }
        segs.push_back(seg);
        if (i >= keyText.size())
        {
            break;
        }
        ++i; // the '.'
        if (i >= keyText.size())
        {
            throw InputError(kSetFile, 0, keyText, "key ends with '.'; " + syntax);
        }
    }
    // The keys of [ns3] and [lb.attributes] are free-form: everything after the table's path
    // is one key (an ns-3 path has no '.', but be lenient).
    auto joinFrom = [&segs](size_t from) {
        std::string k = segs[from];
        for (size_t j = from + 1; j < segs.size(); ++j)
        {
            k += "." + segs[j];
        }
        segs.resize(from);
        segs.push_back(k);
    };
    if (segs.size() > 2 && segs[0] == "ns3")
    {
        joinFrom(1);
    }
    else if (segs.size() > 3 && segs[0] == "lb" && segs[1] == "attributes")
    {
        joinFrom(2);
    }

    // A bare segment may end in an index, `failures[0]`: the table of that index in an array of
    // tables of the file (the free-form keys of [ns3] and [lb.attributes] are taken as typed).
    const size_t freeForm = segs[0] == "ns3" ? 1 : segs[0] == "lb" && segs.size() > 1 && segs[1] == "attributes" ? 2 : segs.size();
    std::vector<long> index(segs.size(), -1);
    for (size_t s = 0; s < std::min(freeForm, segs.size()); ++s)
    {
        std::string& seg = segs[s];
        const auto open = seg.find('[');
        if (open == std::string::npos)
        {
            continue;
        }
        const std::string digits = seg.substr(open + 1, seg.size() - open - 2);
        if (open == 0 || seg.back() != ']' || digits.empty() || digits.size() > 6 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
        {
            throw InputError(kSetFile, 0, keyText,
                             "malformed index in `" + seg + "`: expected NAME[N] with N a "
                             "non-negative integer, e.g. failures[0].at_us=50; " + syntax);
        }
        index[s] = std::stol(digits);
        seg.resize(open);
    }
    // `failures.0.at_us` (a sweep axis's spelling) is `failures[0].at_us`.
    for (size_t s = 1; s < std::min(freeForm, segs.size()); ++s)
    {
        if (index[s - 1] < 0 && !segs[s].empty() && segs[s].size() <= 6 &&
            segs[s].find_first_not_of("0123456789") == std::string::npos)
        {
            index[s - 1] = std::stol(segs[s]);
            segs.erase(segs.begin() + static_cast<long>(s));
            index.erase(index.begin() + static_cast<long>(s));
            --s;
        }
    }
    // The table of an indexed segment, or an error that says what the file has.
    auto element = [&](toml::table* parent, size_t s, const std::string& at) -> toml::node* {
        toml::node* n = parent->get(segs[s]);
        toml::array* arr = n != nullptr ? n->as_array() : nullptr;
        const std::string name = at + (at.empty() ? "" : ".") + segs[s];
        if (arr == nullptr)
        {
            throw InputError(kSetFile, 0, keyText,
                             "cannot index `" + name + "`: it is " +
                                 (n == nullptr ? std::string("not in the scenario") : Describe(*n)) +
                                 ", not an array (set `" + name + "` as a whole instead)");
        }
        if (static_cast<size_t>(index[s]) >= arr->size())
        {
            throw InputError(kSetFile, 0, keyText,
                             "index " + std::to_string(index[s]) + " is out of range: `" + name +
                                 "` has " + std::to_string(arr->size()) + " element" +
                                 (arr->size() == 1 ? "" : "s") +
                                 (arr->empty() ? "" : " (0.." + std::to_string(arr->size() - 1) + ")"));
        }
        return arr->get(static_cast<size_t>(index[s]));
    };

    // Walk to the parent table, creating missing tables.
    toml::table* table = &root;
    std::string path;
    for (size_t s = 0; s + 1 < segs.size(); ++s)
    {
        const std::string at = path;
        path += (s ? "." : "") + segs[s];
        toml::node* child = nullptr;
        if (index[s] >= 0)
        {
            child = element(table, s, at);
            path += "[" + std::to_string(index[s]) + "]";
        }
        else
        {
            child = table->get(segs[s]);
        }
        if (child == nullptr)
        {
            table->insert(segs[s], toml::table{});
            child = table->get(segs[s]);
            MarkOverride(child);
        }
        if (!child->is_table())
        {
            throw InputError(kSetFile,
                             0,
                             keyText,
                             "cannot set a key inside `" + path + "`: it is " + Describe(*child) +
                                 ", not a table (set `" + path + "` as a whole instead)");
        }
        table = child->as_table();
    }

    // The value: a TOML value if it parses as one, else the text as a string.
    const std::string& last = segs.back();
    toml::node* slot = index.back() >= 0 ? element(table, segs.size() - 1, path) : table->get(last);
    if (slot != nullptr)
    {
        Forget(slot); // its memory may be reused by the new value
    }
    // Into the table under `last`, or (an indexed last segment) in place of that element.
    auto assign = [&](auto&& x) {
        if (index.back() >= 0)
        {
            auto* arr = table->get(last)->as_array();
            const auto at = arr->begin() + index.back();
            arr->insert(arr->erase(at), x);
        }
        else
        {
            table->insert_or_assign(last, x);
        }
    };
    bool parsed = false;
    try
    {
        toml::table v = toml::parse(std::string_view("v = " + valueText),
                                    std::string_view(kSetFile));
        const toml::node* value = v.get("v");
        if (v.size() == 1 && value != nullptr)
        {
            value->visit([&](auto&& x) { assign(x); });
            parsed = true;
        }
    }
    catch (const toml::parse_error&)
    {
    }
    if (!parsed)
    {
        assign(valueText);
    }
    const toml::node* inserted = index.back() >= 0 ? table->get(last)->as_array()->get(index.back())
                                                   : table->get(last);
    MarkOverride(inserted);
    m_rawText[inserted] = valueText;
}

/** The tables whose valid keys depend on their `kind`, with the default kind. */
void
ScenarioReader::RememberFileKinds(const toml::table& root, const std::vector<KindTable>& kindTables)
{
    for (const auto& [name, defaultKind, rules] : kindTables)
    {
        const toml::table* t = root.get_as<toml::table>(name);
        const toml::node* kind = t ? t->get("kind") : nullptr;
        m_fileKinds[name] = kind == nullptr       ? defaultKind
                            : kind->is_string() ? kind->as_string()->get()
                                                : "";
    }
}

void
ScenarioReader::DropOtherKindKeys(toml::table& root, const std::vector<KindTable>& kindTables) const
{
    for (const auto& [name, defaultKind, rules] : kindTables)
    {
        toml::table* t = root.get_as<toml::table>(name);
        const toml::node* kind = t ? t->get("kind") : nullptr;
        if (kind == nullptr || !FromOverride(kind) || !kind->is_string() ||
            kind->as_string()->get() == m_fileKinds.at(name))
        {
            continue;
        }
        const std::string k = kind->as_string()->get();
        for (const auto& rule : rules)
        {
            const toml::node* n = t->get(rule.key);
            bool other = std::find(rule.kinds.begin(), rule.kinds.end(), k) == rule.kinds.end();
            if (n != nullptr && other && !FromOverride(n))
            {
                t->erase(rule.key);
            }
        }
    }
}

} // namespace tusk
