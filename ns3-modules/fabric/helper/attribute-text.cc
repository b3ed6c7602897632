#include "attribute-text.h"

#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ns3
{

namespace
{

/** Digits, with one leading '-' or '+': what ns-3's integer attributes read whole. */
bool
IsInteger(const std::string& s)
{
    const size_t first = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return s.size() > first &&
           std::all_of(s.begin() + first, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool
IsNumber(const std::string& s, std::string* unit = nullptr)
{
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    // Not NaN or infinite: ns-3's Double checker aborts on NaN, and no tusk attribute means
    // anything by an infinite value.
    if (s.empty() || end == s.c_str() || !std::isfinite(v))
    {
        return false;
    }
    const std::string rest(end);
    if (unit)
    {
        *unit = rest;
        return true;
    }
    return rest.empty();
}

bool
IsTimeString(const std::string& s)
{
    std::string unit;
    if (!IsNumber(s, &unit))
    {
        return false;
    }
    for (const char* u : {"", "s", "ms", "us", "ns", "ps", "fs", "min", "h", "d", "y"})
    {
        if (unit == u)
        {
            return true;
        }
    }
    return false;
}

} // namespace

Ptr<AttributeValue>
ParseAttributeText(const TypeId::AttributeInformation& info, const std::string& text, std::string& why)
{
    const std::string type = info.checker->GetValueTypeName();
    if ((type == "ns3::DoubleValue" || type == "ns3::UintegerValue" || type == "ns3::IntegerValue") &&
        !IsNumber(text))
    {
        why = "expected a finite number; got \"" + text + "\"";
        return nullptr;
    }
    // ns-3 aborts on an integer attribute's text it cannot read to the end ("3.5", "1e3").
    if ((type == "ns3::UintegerValue" || type == "ns3::IntegerValue") && !IsInteger(text))
    {
        why = "expected a whole number; got \"" + text + "\"";
        return nullptr;
    }
    if (type == "ns3::TimeValue" && !IsTimeString(text))
    {
        why = "expected a time with a unit (\"50us\", \"1.5ms\"); got \"" + text + "\"";
        return nullptr;
    }
    if (type == "ns3::TypeIdValue" || type == "TypeIdValue")
    {
        TypeId chosen;
        const auto* current = dynamic_cast<const TypeIdValue*>(PeekPointer(info.initialValue));
        const TypeId base = current ? current->Get().GetParent() : TypeId::LookupByName("ns3::Object");
        if (!TypeId::LookupByNameFailSafe(text, &chosen) || !chosen.IsChildOf(base))
        {
            why = "\"" + text + "\" is not a TypeId derived from " + base.GetName();
            return nullptr;
        }
    }
    Ptr<AttributeValue> v = info.checker->CreateValidValue(StringValue(text));
    if (!v)
    {
        // The checker's range, as ns-3 states it ("uint32_t 0:64"), when it has one.
        const std::string range = info.checker->GetUnderlyingTypeInformation();
        why = "\"" + text + "\" is not a valid " + type + " here" +
              (range.find(':') != std::string::npos ? " (range: " + range + ")" : "") + " (" +
              info.help + ")";
    }
    return v;
}

} // namespace ns3
