/*
 * tusk: importer for htsim connection matrices (.cm).
 *
 * Source of the format: uet-htsim, htsim/sim/datacenter/connection_matrix.cpp
 * (ConnectionMatrix::load / save) and connection_matrix.h, with the use of the fields in
 * htsim/sim/datacenter/main_uec.cpp, htsim/sim/uec.cpp (UecSrc::connectPort) and
 * htsim/sim/trigger.cpp (SingleShot / MultiShot / Barrier triggers).
 *
 * Syntax, one item per line, tokens separated by blanks:
 *
 *   Nodes N                       header: number of hosts (required, N >= 1)
 *   Connections C                 header: number of connection lines (required)
 *   Triggers T                    header: number of trigger lines (optional, default 0)
 *   Failures F                    header: number of failure lines (optional, default 0)
 *   SRC->DST [id K] (start T | trigger K) size B
 *            [send_done_trigger K] [recv_done_trigger K] [prio P]
 *                                 a connection; fields after SRC->DST in any order
 *   trigger id K (oneshot | multishot | barrier count N)
 *                                 a trigger; may come before or after its users
 *   failure ...                   a link failure (see below)
 *
 * Semantics, as in htsim:
 *   - SRC, DST: host ids < Nodes, SRC != DST.
 *   - start T: start time in microseconds (htsim's save() writes it with "%f"; UecSrc turns it
 *     into time with timeFromUs). T is a non-negative decimal (e.g. 0, 12, 1.5, 0.000000) and
 *     is converted exactly to picoseconds (at most 6 fractional digits may be non-zero).
 *   - trigger K: the connection starts when trigger K fires (htsim: TRIGGER_START), then
 *     startPs = 0. A connection has exactly one of start / trigger.
 *   - size B: payload bytes, >= 1 (htsim treats 0 as "no size").
 *   - id K: flow id, >= 1 (htsim rejects 0), unique. Without id, the connection's externalId
 *     is its 1-based position among the connections; all externalIds must be unique.
 *   - send_done_trigger K / recv_done_trigger K: activate trigger K when the sender has the
 *     last ACK / when the receiver has the last byte.
 *   - prio P: traffic class, 0..7 (htsim parses it but its datacenter mains ignore it);
 *     default 3.
 *   - oneshot fires on its first activation and starts every waiting connection; multishot
 *     starts the next waiting connection (in file order) on each activation; barrier fires
 *     once after `count` activations.
 *
 * Mapping: connection i (file order) → WorkloadSpec::transfers[i] with qpGroup = i;
 * trigger line j (file order) → WorkloadSpec::triggers[j] with externalId = K. Trigger ids in
 * connections are resolved to indices.
 *
 * Stricter than htsim (htsim would crash, hang or silently misread these; we throw):
 * missing/extra values, repeated fields, unknown tokens (the message names the closest valid
 * one), trailing tokens, non-numeric/negative/overflowing numbers, header lines after the
 * first connection, repeated headers, count mismatches, undefined or duplicate trigger ids,
 * `count` on a non-barrier trigger, and connections that can never start (their trigger can
 * never fire given the activations in the file: a cycle, or a barrier that gets fewer
 * activations than its count). `failure` lines (switch_type/switch_id/link_id) are
 * recognised but rejected: link failures belong in the scenario's failure list.
 *
 * Tolerated: blank lines, lines starting with '#' anywhere, tabs, CRLF line ends, a UTF-8
 * byte-order mark, a missing newline at the end of the file.
 */
#ifndef TUSK_HTSIM_CM_READER_H
#define TUSK_HTSIM_CM_READER_H

#include "workload/model/workload-spec.h"

#include <cstdint>
#include <string>

namespace ns3
{

/** An htsim connection matrix as read: the host count it declares and the workload. */
struct HtsimConnectionMatrix
{
    uint32_t nodes = 0;    //!< value of the `Nodes` header: hosts the topology must provide
    WorkloadSpec workload; //!< connections and triggers
};

/**
 * \brief Read an htsim .cm file (syntax above).
 * \param path file to read
 * \return the declared node count and the workload
 * \throws InputError(path, line, key, message) for every problem, line 0 when the problem
 *         is not tied to one line (unreadable file, missing header in an empty file); key is
 *         the header or field name ("Nodes", "size", "trigger", ...) or "file".
 */
HtsimConnectionMatrix ReadHtsimConnectionMatrix(const std::string& path);

/**
 * \brief Read an htsim .cm file and return its workload (see ReadHtsimConnectionMatrix).
 * \throws InputError as ReadHtsimConnectionMatrix
 */
WorkloadSpec ReadHtsimCm(const std::string& path);

} // namespace ns3

#endif
