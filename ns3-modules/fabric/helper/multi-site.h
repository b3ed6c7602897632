/*
 * tusk: a multi-site fabric: several leaf-spine sites joined by data-centre-interconnect (DCI)
 * switches and long-haul links. A pure builder (no ns-3 Simulator), like topology-builders.h.
 */
#ifndef TUSK_MULTI_SITE_H
#define TUSK_MULTI_SITE_H

#include "topology-builders.h"

#include <cstdint>

namespace ns3
{

/** Fiber propagation delay, ps per km (5 µs/km: light in glass at about c / 1.47). */
constexpr uint64_t kFiberPsPerKm = 5'000'000;

/**
 * \brief N sites, each a leaf-spine fabric (LeafSpineParams, the same for every site), joined
 * over long-haul links. Each site has `dciSwitches` data-centre-interconnect switches; every
 * DCI switch connects to every spine of its site with one link at the site's fabric rate; for
 * every pair of sites (a full mesh), DCI switch d of one site connects to DCI switch d of the
 * other with `longHaulLinks` parallel links of `longHaulRateBps` and `longHaulDelayPs`.
 * Between sites, traffic goes leaf -> spine -> DCI -> long haul -> DCI -> spine -> leaf.
 * DCI switches carry deep buffers (`dciBufferBytes`, TopoVertex::bufferBytes; 0 = the fabric's
 * switch buffer), as deep-buffer routers with off-chip memory do (Broadcom Jericho2: 8 GB HBM).
 */
struct MultiSiteParams : LeafSpineParams
{
    uint32_t sites = 2;
    uint32_t dciSwitches = 1;                      //!< DCI switches per site
    uint32_t longHaulLinks = 1;                    //!< parallel links per DCI pair of two sites
    uint64_t longHaulRateBps = 100'000'000'000ULL; //!< every long-haul link, bit/s
    uint64_t longHaulDelayPs = 1'000'000'000;      //!< one-way, ps (1 ms = 200 km at 5 µs/km)
    uint64_t dciBufferBytes = 8'000'000'000ULL;    //!< buffer of each DCI switch, bytes
};

/**
 * Vertices: hosts site by site (host h is on site h / (leaves * hostsPerLeaf), TopoVertex::pod
 * = site for every vertex), named "host<h>" with h the global host id as on every fabric; then per site
 * its leaves "s<site>.leaf<i>" (tier 1), spines "s<site>.spine<j>" (tier 2) and DCI switches
 * "s<site>.dci<d>" (tier 3). Links: each site's leaf-spine links (host links, then leaf-spine),
 * site by site; then each site's DCI-spine links; then the long-haul links (TopoLink::longHaul),
 * site pair by site pair (i < j), DCI by DCI.
 *
 * \throws InputError (file "", key "MultiSiteParams.<field>" or "LeafSpineParams.<field>") on
 * fewer than 2 sites, zero DCI switches, long-haul links or rate, more than 2^24 hosts or 65535
 * ports on a switch.
 */
TopologyGraph BuildMultiSite(const MultiSiteParams& p);

} // namespace ns3

#endif
