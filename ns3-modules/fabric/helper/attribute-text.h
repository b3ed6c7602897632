/*
 * tusk: turning user text into an ns-3 attribute value without ever aborting.
 */
#ifndef TUSK_ATTRIBUTE_TEXT_H
#define TUSK_ATTRIBUTE_TEXT_H

#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/**
 * \brief Parse `text` as a value of the attribute `info`, checked by its checker.
 *
 * ns-3 aborts on some malformed text (a Time without a parsable number, a non-numeric
 * integer or double): those are screened here first. A TypeId-valued attribute must name a
 * TypeId derived from the parent of its default.
 * \return the value, or nullptr with `why` saying what was expected
 */
Ptr<AttributeValue> ParseAttributeText(const TypeId::AttributeInformation& info,
                                       const std::string& text,
                                       std::string& why);

} // namespace ns3

#endif
