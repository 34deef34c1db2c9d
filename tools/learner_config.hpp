// Learner settings from a YAML section, shared by every subcommand that trains.
//
//   <kind_key>: online | batch   (learnerSettings: the kind, beside the two sections; the one place a
//                                 learner's name becomes a LearnerKind; a caller may add kinds)
//   online: {lambda, q, epochs, averaging, shuffle, seed, tolerance, time_budget_seconds}
//   batch:  {lambda, q, iterations, step: constant|gamma_over_t, step_size, averaging, threads,
//            tolerance, time_budget_seconds}
//   dlpw:   {lambda, epochs, passes, warm_start, shuffle, seed, time_budget_seconds}   (dlpwParams; pairwise models)
#pragma once

#include "config.hpp"

#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/online_greedy_projection.hpp>

namespace mmp::tools {

OnlineGreedyProjection::Params onlineParams(const ConfigNode& node, OnlineGreedyProjection::Params defaults);
BatchSubgradient::Params batchParams(const ConfigNode& node, BatchSubgradient::Params defaults);
Dlpw::Params dlpwParams(const ConfigNode& node, Dlpw::Params defaults);
/// The keys `kind_key` (the kind), `online` and `batch` of `config`, each over its part of `defaults`.
/// A front end with more kinds than these two (`mmp train`: learch) lists them in more_kinds: such a
/// kind is accepted and leaves the LearnerKind as in defaults, for the caller to read kind_key.
mmp::LearnerSettings learnerSettings(const ConfigNode& config, const std::string& kind_key, mmp::LearnerSettings defaults,
                                     const std::vector<std::string>& more_kinds = {});

/// The data folder: the --data-root flag if given, else $MMP_DATA_ROOT, else the config's
/// data_root (relative to the config file's folder).  Empty if none is set.
std::string resolveDataRoot(const std::string& flag, const ConfigNode& config);

}  // namespace mmp::tools
