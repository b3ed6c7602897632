/*
 * tusk: `tusk kinds`, every kind registered in this process by sort (built in and from
 * plugins) with what each needs, and the sorts still chosen by name in tusk's own code.
 */
#ifndef TUSK_KINDS_H
#define TUSK_KINDS_H

#include <string>

namespace tusk
{

/**
 * \brief The text of `tusk kinds`: the policies (lb.policy), path selectors
 * (lb.path_selector), congestion controls (nic.congestion_control), loss recoveries
 * (nic.receiver, nic.transport), topology kinds (topology.kind) and failure kinds
 * (failures[i].kind) registered now, one block per kind (name, TypeId where it has one,
 * description; needs; source), then the plugins loaded and the sorts that are not registered
 * yet.
 */
std::string KindsText();

} // namespace tusk

#endif
