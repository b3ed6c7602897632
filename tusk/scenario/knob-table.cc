#include "scenario/knob-table.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace tusk
{

bool
KnobDoc::ValidFor(const std::string& kind) const
{
    return kinds.empty() || kind.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string
TomlText(const nlohmann::json& v)
{
    if (v.is_array())
    {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
        {
            s += (i ? ", " : "") + TomlText(v[i]);
        }
        return s + "]";
    }
    if (v.is_number_float())
    {
        return FormatDouble(v.get<double>());
    }
    return v.dump(); // strings, integers and booleans are written alike in JSON and TOML
}

const std::vector<Section>&
Sections()
{
    static const std::vector<Section> sections = [] {
        std::vector<Section> s = {TopLevelKeys(), TopologyKeys(), FabricKeys(), NicKeys(),
                                  BufferKeys(),   PfcKeys(),      EcnKeys(),    DcqcnKeys()};
        for (auto& cc : CcKeySections())
        {
            s.push_back(std::move(cc));
        }
        for (auto&& rest : {LbKeys(), WorkloadKeys(), ScaleUpKeys(), JobsKeys(), BackgroundKeys(),
                            FailuresKeys(), FailureRatesKeys(), ProbesKeys(), OutputKeys(), SimulatorKeys(),
                            Ns3Keys()})
        {
            s.push_back(rest);
        }
        return s;
    }();
    return sections;
}

std::vector<KnobBlock>
KnobBlocks()
{
    std::vector<KnobBlock> out;
    for (const auto& s : Sections())
    {
        for (auto& b : s.blocks())
        {
            out.push_back(std::move(b));
        }
    }
    return out;
}

const std::vector<KindTable>&
KindTables()
{
    static const std::vector<KindTable> tables = {TopologyKindTable(), WorkloadKindTable()};
    return tables;
}

namespace
{

/** The blocks, built once, for lookups (their default texts are not used). */
const std::vector<KnobBlock>&
CachedBlocks()
{
    static const std::vector<KnobBlock> blocks = KnobBlocks();
    return blocks;
}

} // namespace

std::vector<std::string>
KnobsSettingAttribute(const std::string& path)
{
    std::vector<std::string> keys;
    for (const auto& b : CachedBlocks())
    {
        for (const auto& k : b.knobs)
        {
            const std::string key = KeyPath(b.table, k.name);
            if (std::find(k.attributes.begin(), k.attributes.end(), path) != k.attributes.end() &&
                std::find(keys.begin(), keys.end(), key) == keys.end())
            {
                keys.push_back(key);
            }
        }
    }
    return keys;
}

std::string
ScenarioKeysSetting(const std::string& path)
{
    const auto keys = KnobsSettingAttribute(path);
    std::string s;
    for (size_t i = 0; i < keys.size(); ++i)
    {
        s += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + keys[i];
    }
    return s;
}

std::vector<std::string>
AttributesSetByKnobs()
{
    std::set<std::string> all;
    for (const auto& b : CachedBlocks())
    {
        for (const auto& k : b.knobs)
        {
            all.insert(k.attributes.begin(), k.attributes.end());
        }
    }
    return {all.begin(), all.end()};
}

std::string
KnobForParam(const std::string& blockId, const std::string& param)
{
    for (const auto& b : CachedBlocks())
    {
        if (b.id != blockId)
        {
            continue;
        }
        for (const auto& k : b.knobs)
        {
            if (std::find(k.params.begin(), k.params.end(), param) != k.params.end())
            {
                return KeyPath(b.table, k.name);
            }
        }
    }
    return "";
}

std::string
KeyReferenceMarkdown(const KnobBlock& b)
{
    std::ostringstream os;
    os << "| key | type | unit |";
    if (b.presetColumns.empty())
    {
        os << " default |";
    }
    for (const auto& [preset, column] : b.presetColumns)
    {
        os << " preset `" << preset << "` |";
    }
    if (b.kindColumn)
    {
        os << " valid for `kind` |";
    }
    os << " meaning |\n|---|---|---|";
    const size_t extra = (b.presetColumns.empty() ? 1 : b.presetColumns.size()) + (b.kindColumn ? 1 : 0);
    for (size_t i = 0; i < extra; ++i)
    {
        os << "---|";
    }
    os << "---|\n";
    for (size_t i = 0; i < b.knobs.size(); ++i)
    {
        const KnobDoc& k = b.knobs[i];
        auto cell = [&os](const std::string& text) { os << (text.empty() ? "" : " " + text) << " |"; };
        os << "| `" << k.name << "` |";
        cell(k.type);
        cell(k.unit);
        if (b.presetColumns.empty())
        {
            cell(k.defaultText);
        }
        for (const auto& [preset, column] : b.presetColumns)
        {
            cell(column[i]);
        }
        if (b.kindColumn)
        {
            std::string kinds;
            for (const auto& kind : k.kinds)
            {
                kinds += (kinds.empty() ? "" : ", ") + kind;
            }
            cell(kinds.empty() ? "all" : kinds);
        }
        cell(k.doc);
        os << "\n";
    }
    return os.str();
}

std::string
UpdateKeyReference(const std::string& doc, std::vector<std::string>& problems)
{
    const std::string open = "<!-- keys: ";
    const std::string close = "<!-- /keys -->";
    const std::vector<KnobBlock> blocks = KnobBlocks();
    std::set<std::string> seen;
    std::istringstream in(doc);
    std::ostringstream out;
    std::string line;
    bool skipping = false;
    while (std::getline(in, line))
    {
        if (skipping)
        {
            if (line == close)
            {
                out << line << "\n";
                skipping = false;
            }
            continue;
        }
        out << line << "\n";
        if (line.rfind(open, 0) == 0 && line.size() > open.size() + 4 &&
            line.compare(line.size() - 4, 4, " -->") == 0)
        {
            const std::string id = line.substr(open.size(), line.size() - open.size() - 4);
            auto it = std::find_if(blocks.begin(), blocks.end(),
                                   [&id](const KnobBlock& b) { return b.id == id; });
            if (it == blocks.end())
            {
                problems.push_back("the marker \"" + line + "\" names no block of the knob table");
                continue;
            }
            seen.insert(id);
            out << KeyReferenceMarkdown(*it);
            skipping = true;
        }
    }
    if (skipping)
    {
        problems.push_back("a key block is not closed by \"" + close + "\"");
    }
    for (const auto& b : blocks)
    {
        if (seen.count(b.id) == 0)
        {
            problems.push_back("no \"" + open + b.id + " -->\" block for the keys of " +
                               (b.table.empty() ? std::string("the top level") : b.table));
        }
    }
    return out.str();
}

std::string
KeyListText()
{
    std::ostringstream os;
    for (const auto& b : KnobBlocks())
    {
        for (size_t i = 0; i < b.knobs.size(); ++i)
        {
            const KnobDoc& k = b.knobs[i];
            std::string def = k.defaultText;
            for (const auto& [preset, column] : b.presetColumns)
            {
                def += (def.empty() ? "" : ", ") + preset + ": " + column[i];
            }
            def.erase(std::remove(def.begin(), def.end(), '`'), def.end());
            std::string kinds;
            for (const auto& kind : k.kinds)
            {
                kinds += (kinds.empty() ? " [" : ", ") + kind;
            }
            std::string attributes;
            for (const auto& a : k.attributes)
            {
                attributes += (attributes.empty() ? " -> " : ", ") + a;
            }
            os << KeyPath(b.table, k.name) << (kinds.empty() ? "" : kinds + "]") << "  (" << k.type
               << (k.unit.empty() ? "" : ", " + k.unit) << ")  default " << (def.empty() ? "-" : def)
               << attributes << "\n";
        }
    }
    return os.str();
}

} // namespace tusk
