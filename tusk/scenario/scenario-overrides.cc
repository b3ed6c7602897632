/*
 * tusk: `--set key.path=value` overrides, applied to the parsed scenario before it is read.
 */
#include "scenario/scenario-reader.h"

#include "scenario/key-path.h"
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

    // The key path (key-path.h): its keys, and the array index after each (-1: none).
    KeyPath keyPath;
    try
    {
        keyPath = ParseKeyPath(keyText);
    }
    catch (const KeyPathError& e)
    {
        throw InputError(kSetFile, 0, keyText, std::string(e.what()) + "; " + syntax);
    }
    const std::vector<std::string>& segs = keyPath.keys;
    const std::vector<long>& index = keyPath.index;
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
    const toml::table value = ParseOverrideValue(valueText);
    value.get("v")->visit([&](auto&& x) { assign(x); });
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
