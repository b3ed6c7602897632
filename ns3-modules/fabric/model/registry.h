/*
 * tusk: Registry<Info>, a table of kinds by short name that each kind fills itself.
 *
 * A kind (a load-balancing policy, a path selector, a congestion control, a loss recovery, a
 * topology kind, a failure kind, a fabric kind) registers itself
 * with one static object in its own .cc file, run when its library loads (or when a plugin is
 * dlopen'ed). Nothing central lists the kinds: listings, `--set` choices and the names in
 * error messages come from what was registered.
 */
#ifndef TUSK_REGISTRY_H
#define TUSK_REGISTRY_H

#include "ns3/fatal-error.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \brief Where a name registered twice is reported while a plugin library loads (set by the
 * plugin loader around its dlopen, tusk/cli/plugins.cc), so that a clash with a built-in or an
 * earlier plugin is bad input rather than an abort; nullptr otherwise (a clash among built-in
 * kinds is a programming error and aborts).
 */
std::vector<std::string>* PluginRegistrationErrors();
/** Set (or clear, with nullptr) the list PluginRegistrationErrors() returns. */
void SetPluginRegistrationErrors(std::vector<std::string>* errors);

/** What a registration builds, for the duplicate message: its `typeId` where `Info` has one
 *  (the ns-3 TypeId), else its `description`. */
template <class Info, class = void>
struct RegistryOrigin
{
    static std::string Of(const Info& i) { return i.description; }
};

template <class Info>
struct RegistryOrigin<Info, std::void_t<decltype(std::declval<Info>().typeId)>>
{
    static std::string Of(const Info& i) { return i.typeId; }
};

/**
 * \brief The registered kinds of one sort, kept sorted by name.
 *
 * `Info` has at least `std::string name` (the short name) and either `std::string typeId`
 * (the ns-3 TypeId it builds) or `std::string description`. Keep one Registry per sort in a function-local static of one .cc file:
 * registrations run from other files' static initialisers, in an order the linker chooses, so
 * the table must exist on first use. Registrations happen while libraries load, before any
 * lookup; a pointer from Find() stays valid until the next Register().
 */
template <class Info>
class Registry
{
  public:
    /** \param what the sort in plural, for the duplicate message ("policies"). */
    explicit Registry(std::string what)
        : m_what(std::move(what))
    {
    }

    /**
     * \brief Add `info` under info.name. Aborts the program (NS_FATAL_ERROR, a programming
     * error found when the library loads) if the name is already taken.
     */
    void Register(Info info)
    {
        auto it = std::lower_bound(m_table.begin(), m_table.end(), info.name,
                                   [](const Info& a, const std::string& n) { return a.name < n; });
        if (it != m_table.end() && it->name == info.name)
        {
            if (std::vector<std::string>* errors = PluginRegistrationErrors())
            {
                // A plugin being loaded: its loader reports this as bad input (exit 2).
                errors->push_back("two " + m_what + " registered as \"" + info.name +
                                  "\": " + RegistryOrigin<Info>::Of(*it) + " and " +
                                  RegistryOrigin<Info>::Of(info));
                return;
            }
            NS_FATAL_ERROR("two " << m_what << " registered as \"" << info.name << "\": "
                                  << RegistryOrigin<Info>::Of(*it) << " and "
                                  << RegistryOrigin<Info>::Of(info));
        }
        m_table.insert(it, std::move(info));
    }

    /** The kind named `name`; nullptr if none is. */
    const Info* Find(const std::string& name) const
    {
        auto it = std::lower_bound(m_table.begin(), m_table.end(), name,
                                   [](const Info& a, const std::string& n) { return a.name < n; });
        return it != m_table.end() && it->name == name ? &*it : nullptr;
    }

    /** Every registered kind, sorted by name. */
    const std::vector<Info>& All() const { return m_table; }

    /** The names for an error message, each between `quote`s: `"a", "b"` or `a, b`. */
    std::string NameList(const std::string& quote = "") const
    {
        std::string names;
        for (const auto& i : m_table)
        {
            names += (names.empty() ? "" : ", ") + quote + i.name + quote;
        }
        return names;
    }

    /** The names, sorted. */
    std::vector<std::string> Names() const
    {
        std::vector<std::string> names;
        for (const auto& i : m_table)
        {
            names.push_back(i.name);
        }
        return names;
    }

  private:
    std::string m_what;
    std::vector<Info> m_table;
};

} // namespace ns3

#endif
