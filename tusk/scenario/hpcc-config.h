/*
 * tusk: import of an HPCC simulator configuration file (alibaba-edu/High-Precision-Congestion-
 * Control, simulation/mix/config.txt and the variants its run.py writes): the keys that map onto
 * tusk's lossless-RoCE model and its congestion controls.
 */
#ifndef TUSK_HPCC_CONFIG_H
#define TUSK_HPCC_CONFIG_H

#include "scenario/scenario-spec.h"

#include <string>
#include <vector>

namespace tusk
{

/**
 * \brief Apply the mappable keys of an HPCC `config.txt` to `spec`; return one warning per key
 * that is ignored (with the reason).
 *
 * CC_MODE selects the congestion control, and what the mode-dependent keys mean, as the
 * simulator's rdma-hw.cc does: 1 DCQCN (`dcqcn`; with ENABLE_QCN 0 the simulator's PFC-only
 * setup, `none`), 3 HPCC (`hpcc`), 7 TIMELY (`timely`), 8 DCTCP (`dctcp`); any other mode
 * (10 = HPCC-PINT) is not modelled: a warning, the control left as it was.
 *
 * Mapped: ENABLE_QCN (ecn.enabled), BUFFER_SIZE (MiB, as third.cc: buffer.total_bytes),
 * USE_DYNAMIC_PFC_THRESHOLD (buffer.threshold), KMIN_MAP / KMAX_MAP (KB, per rate; equal values
 * are a step at K) and PMAX_MAP (ecn.by_rate), PACKET_PAYLOAD_SIZE (nic.mtu_bytes),
 * L2_ACK_INTERVAL (nic.ack_interval), HAS_WIN / VAR_WIN (nic.sender_window: none, fixed,
 * variable), ACK_HIGH_PRIO (nic.control_priority: 0 = the data priority, as the simulator puts
 * ACKs in the data queue). Mode 1: EWMA_GAIN, RP_TIMER (us), FAST_RECOVERY_TIMES, RATE_AI,
 * RATE_HAI, MIN_RATE ("Mb/s"), ALPHA_RESUME_INTERVAL (us), RATE_DECREASE_INTERVAL (us),
 * CLAMP_TARGET_RATE (dcqcn.*, preset "hpcc", a CNP per marked packet). Mode 3: U_TARGET,
 * MI_THRESH, FAST_REACT, RATE_AI (W_AI = RATE_AI x T), MIN_RATE (hpcc.*). Mode 7: RATE_AI,
 * RATE_HAI, MIN_RATE (timely.*). Mode 8: EWMA_GAIN, DCTCP_RATE_AI (dctcp.*). Keys the simulator
 * ignores in the chosen mode are ignored silently; INT_MULTI is not needed (tusk's INT units
 * scale with each hop's rate, what run.py sets it to). Warnings name what is not modelled
 * (MULTI_RATE 1, SAMPLE_FEEDBACK 1, GLOBAL_T 0, RATE_BOUND 0, L2_BACK_TO_ZERO 1, chunk ACKs,
 * link errors and failures, HPCC-PINT, unknown keys) and the simulator's own run settings
 * (files, tracing, stop time), which the scenario replaces.
 *
 * A scenario key given on the command line with `--set` wins over the import (spec.keyLines
 * at line 0); every key the import set is recorded in spec.imported ("file:line KEY value"),
 * which the manifest echoes.
 *
 * \throws ns3::InputError (file, line, key) for a missing file or a malformed value of a
 *         mapped key.
 */
std::vector<std::string> ApplyHpccConfig(const std::string& path, ScenarioSpec& spec);

} // namespace tusk

#endif
