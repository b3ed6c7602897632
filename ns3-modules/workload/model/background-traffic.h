/*
 * tusk: background traffic: flow-size CDFs and Poisson arrivals (pure, no ns-3 objects).
 *
 * The generator follows HPCC's traffic_gen/traffic_gen.py (alibaba-edu/High-Precision-
 * Congestion-Control): every host starts flows as a Poisson process with mean inter-arrival
 * time mean_size * 8 / (load * link rate), so that it offers `load` of its link on average;
 * each flow goes to a host drawn uniformly among the other chosen hosts; its size is drawn
 * from the CDF by linear interpolation between the points (traffic_gen's CustomRand), then
 * made a whole number of bytes (CdfSizeRounding).
 */
#ifndef TUSK_BACKGROUND_TRAFFIC_H
#define TUSK_BACKGROUND_TRAFFIC_H

#include "workload-spec.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief How a size drawn from a flow-size CDF (a real number of bytes) becomes whole bytes.
 */
enum class CdfSizeRounding
{
    /** Round up (the default): the sizes' CDF equals the file's at every point: a point
     *  (4096 B, 50 %) gives P(size <= 4096) = 50 %, and a segment ending at 4096 B yields
     *  sizes up to 4096 B. */
    Exact,
    /** Truncate, as HPCC's traffic_gen.py (`int(customRand.rand())`): every size in a segment
     *  is up to one byte short, so the steps of the sizes' CDF sit at 4095 / 16383 / 65535 B
     *  where the file says 4096 / 16384 / 65536 B. For flow lists identical to HPCC's. */
    HpccTruncate,
};

/** "exact" or "hpcc-truncate". */
const char* CdfSizeRoundingName(CdfSizeRounding rounding);

/**
 * \brief A flow-size distribution: points (size in bytes, cumulative percentage 0..100),
 * sizes in 0..2^53 and non-decreasing, percentages non-decreasing, the last one 100. Between
 * points the CDF is linear (sizes are uniform within a segment).
 */
class FlowSizeCdf
{
  public:
    FlowSizeCdf() = default;
    /** \throws InputError(file "", line 0, key "cdf") if the points break the rules above */
    explicit FlowSizeCdf(std::vector<std::pair<double, double>> points);

    /**
     * \brief Read an HPCC flow-size CDF file: one "size_bytes cdf_percent" pair per line
     * (the files of traffic_gen/); blank lines ignored.
     * \throws InputError(path, line, "cdf", ...) for an unreadable file, a malformed line or
     *         points that break the rules
     */
    static FlowSizeCdf Read(const std::string& path);

    /** Mean flow size, bytes: sum over segments of (x0 + x1)/2 * (y1 - y0)/100 (traffic_gen's
     *  CustomRand.getAvg). */
    double MeanBytes() const;

    /** The size at quantile u in [0, 1): linear interpolation, made whole bytes by
     *  `rounding`, at least 1 byte (traffic_gen: sizes <= 0 become 1). */
    uint64_t Sample(double u, CdfSizeRounding rounding = CdfSizeRounding::Exact) const;

    const std::vector<std::pair<double, double>>& Points() const { return m_points; }

  private:
    std::vector<std::pair<double, double>> m_points;
};

/** What background traffic to generate. */
struct BackgroundRequest
{
    std::vector<uint32_t> hosts; //!< hosts that send and receive, >= 2, distinct
    double load = 0.3;           //!< offered load per host, fraction of hostRateBps, (0, 1]
    uint64_t hostRateBps = 0;    //!< link rate of a host, bit/s, > 0
    uint64_t startPs = 0;        //!< first possible arrival, ps
    uint64_t durationPs = 0;     //!< arrivals in [startPs, startPs + durationPs), ps, > 0
    uint64_t seed = 1;           //!< std::mt19937_64 seed
    uint8_t priority = 3;        //!< traffic class of the flows
    uint32_t qps = 1;            //!< QPs per flow
    CdfSizeRounding sizeRounding = CdfSizeRounding::Exact; //!< sizes to whole bytes
};

/**
 * \brief Poisson background flows. Every flow is its own connection (qpGroup = its index in the
 * result), background = true, collective = -1. Ordered by start time (ties by host order).
 * Inter-arrival times are exponential with mean mean_size * 8 / (load * rate), drawn by
 * inversion from std::mt19937_64(seed) with 53-bit uniforms; destinations and sizes from the
 * same stream. Deterministic for a seed on every standard library.
 * \throws InputError key "BackgroundRequest.hosts" (fewer than 2, duplicates),
 *         "BackgroundRequest.load" (not in (0, 1]), "BackgroundRequest.durationPs" (0, or more
 *         than 5 million flows expected), "BackgroundRequest.hostRateBps" (0),
 *         "BackgroundRequest.cdf" (a mean flow size below 1 byte)
 */
std::vector<TransferSpec> MakePoissonBackground(const BackgroundRequest& request,
                                                const FlowSizeCdf& cdf);

} // namespace ns3

#endif
