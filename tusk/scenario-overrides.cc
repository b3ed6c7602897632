/*
 * tusk: `--set key.path=value` overrides, applied to the parsed scenario before it is read.
 */
#include "scenario-reader.h"

#include "scenario-text.h"

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

    // Walk to the parent table, creating missing tables.
    toml::table* table = &root;
    std::string path;
    for (size_t s = 0; s + 1 < segs.size(); ++s)
    {
        path += (s ? "." : "") + segs[s];
        toml::node* child = table->get(segs[s]);
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
    if (const toml::node* old = table->get(last))
    {
        Forget(old); // its memory may be reused by the new value
    }
    bool parsed = false;
    try
    {
        toml::table v = toml::parse(std::string_view("v = " + valueText),
                                    std::string_view(kSetFile));
        const toml::node* value = v.get("v");
        if (v.size() == 1 && value != nullptr)
        {
            value->visit([&](auto&& x) { table->insert_or_assign(last, x); });
            parsed = true;
        }
    }
    catch (const toml::parse_error&)
    {
    }
    if (!parsed)
    {
        table->insert_or_assign(last, valueText);
    }
    const toml::node* inserted = table->get(last);
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
