/*
 * tusk: the scenario sections of the congestion controls beyond DCQCN ([hpcc], [timely],
 * [swift], [dctcp], [nscc]) and of receiver credits ([rccc]): one row per key, naming the ns-3
 * attribute it sets, its unit and range.
 */
#ifndef TUSK_CC_SECTIONS_H
#define TUSK_CC_SECTIONS_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <string>
#include <vector>

namespace tusk
{

/** One key of a congestion-control section. */
struct CcKey
{
    enum Kind
    {
        REAL,      //!< a number, dimensionless or in the unit the help names
        INTEGER,   //!< a whole number
        BOOL,      //!< true / false
        TIME_US,   //!< µs (the key ends in _us)
        RATE_MBPS, //!< Mb/s (the key ends in _mbps)
        BYTES,     //!< bytes, or a size string (the key ends in _bytes)
    };
    const char* section;   //!< "hpcc", ...
    const char* key;       //!< "target_utilisation", ...
    const char* attribute; //!< the ns-3 attribute path it sets
    Kind kind;
    double lo;             //!< smallest value, in the key's unit
    double hi;             //!< largest value, in the key's unit
    const char* help;      //!< what it is (docs/scenario-format.md)
};

/** Every key of every congestion-control section, by section. */
const std::vector<CcKey>& CcKeys();
/** The sections' names, in order. */
const std::vector<std::string>& CcSections();
/** The row of `section`.`key`; nullptr if there is none. */
const CcKey* FindCcKey(const std::string& section, const std::string& key);
/** The row that sets attribute `path`; nullptr if none does. */
const CcKey* FindCcKeyByAttribute(const std::string& path);
/** The attribute value of `value` (in the key's unit). */
ns3::Ptr<ns3::AttributeValue> CcAttributeValue(const CcKey& k, double value);
/** The congestion control a section belongs to ("" for sections of any: rccc). */
std::string CcSectionOwner(const std::string& section);

} // namespace tusk

#endif
