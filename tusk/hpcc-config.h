/*
 * tusk: import of an HPCC simulator configuration file (alibaba-edu/High-Precision-Congestion-
 * Control, simulation/mix/config.txt): the keys that map onto tusk's lossless-RoCE model.
 */
#ifndef TUSK_HPCC_CONFIG_H
#define TUSK_HPCC_CONFIG_H

#include "scenario-spec.h"

#include <string>
#include <vector>

namespace tusk
{

/**
 * \brief Apply the mappable keys of an HPCC `config.txt` to `spec`; return one warning per key
 * that is ignored (with the reason).
 *
 * Mapped: CC_MODE (1 = DCQCN; any other mode is not modelled: warning, congestion control
 * left unchanged), ENABLE_QCN (ecn.enabled), BUFFER_SIZE (MiB, as HPCC's third.cc:
 * buffer.total_bytes),
 * USE_DYNAMIC_PFC_THRESHOLD (buffer.threshold), KMIN_MAP / KMAX_MAP (KB, per rate) and
 * PMAX_MAP (ecn.by_rate), PACKET_PAYLOAD_SIZE (nic.mtu_bytes), L2_ACK_INTERVAL
 * (nic.ack_interval), EWMA_GAIN, RP_TIMER (us), FAST_RECOVERY_TIMES, RATE_AI, RATE_HAI,
 * MIN_RATE ("Mb/s"), ALPHA_RESUME_INTERVAL (us), RATE_DECREASE_INTERVAL (us),
 * CLAMP_TARGET_RATE (dcqcn.*; the preset becomes "hpcc").
 *
 * \throws ns3::InputError (file, line, key) for a missing file or a malformed value of a
 *         mapped key.
 */
std::vector<std::string> ApplyHpccConfig(const std::string& path, ScenarioSpec& spec);

} // namespace tusk

#endif
