#include "tables.hpp"

#include <cstdio>
#include <string>

namespace mmp::tools {

void printMethodTable(const Json& methods) {
  std::printf("%-11s %16s %15s %15s %14s %14s %16s %9s\n", "method", "cost ratio mean", "cost ratio p95",
              "dist mean (px)", "dist p95 (px)", "MHD mean (px)", "preferred share", "feasible");
  for (const auto& [name, m] : methods.items()) {
    std::printf("%-11s %16.3f %15.3f %15.1f %14.1f %14.1f %16.3f %9.2f\n", name.c_str(), m["cost_ratio_mean"].get<double>(),
                m["cost_ratio_p95"].get<double>(), m["dist_mean_px"].get<double>(), m["dist_p95_px"].get<double>(),
                m["mhd_mean_px"].get<double>(), m["preferred_share"].get<double>(), m["feasible_share"].get<double>());
  }
}

void printComparisons(const Json& comparisons) {
  for (const auto& [name, c] : comparisons.items()) {
    const std::string verdict = c["verdict"].get<std::string>();
    const std::string said = verdict == "could be chance" ? verdict : "learned " + verdict;
    std::printf("learned vs %-10s mean cost ratio %.3f lower, 95 %% paired-bootstrap interval [%.3f, %.3f]: %s\n",
                name.c_str(), c["gain"].get<double>(), c["ci95_low"].get<double>(), c["ci95_high"].get<double>(), said.c_str());
  }
}

}  // namespace mmp::tools
