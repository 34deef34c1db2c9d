// Learner settings from a YAML section, shared by every subcommand that trains.
//
//   <kind_key>: online | batch   (learnerSettings: the kind, beside the sections; the one place a
//                                 learner's name becomes a LearnerKind; a caller may add kinds)
//   objective: margin | likelihood   (beside the kind, if the caller's expectKeys allows it)
//   online: {lambda, q, epochs, averaging, shuffle, seed, tolerance, time_budget_seconds}
//   batch:  {lambda, q, iterations, step: constant|gamma_over_t, step_size, averaging, threads,
//            tolerance, time_budget_seconds}
//   dlpw:   {lambda, epochs, passes, warm_start, shuffle, seed, time_budget_seconds}   (dlpwParams; pairwise models)
//   cutting_plane: {lambda, iterations, tolerance, absolute_tolerance, plane_age_limit, threads,
//                   time_budget_seconds}   (cuttingPlaneParams; unconstrained, q = 1)
//   bcfw:   {lambda, passes, tolerance, absolute_tolerance, certify_every, averaging, shuffle, seed,
//            threads, time_budget_seconds}   (bcfwParams; unconstrained, q = 1)
#pragma once

#include <mmp/frontend/config.hpp>

#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/cutting_plane.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/online_greedy_projection.hpp>

namespace mmp::tools {

OnlineGreedyProjection::Params onlineParams(const ConfigNode& node, OnlineGreedyProjection::Params defaults);
BatchSubgradient::Params batchParams(const ConfigNode& node, BatchSubgradient::Params defaults);
Dlpw::Params dlpwParams(const ConfigNode& node, Dlpw::Params defaults);
CuttingPlane::Params cuttingPlaneParams(const ConfigNode& node, CuttingPlane::Params defaults);
Bcfw::Params bcfwParams(const ConfigNode& node, Bcfw::Params defaults);
Lbfgs::Params lbfgsParams(const ConfigNode& node, Lbfgs::Params defaults);
/// The keys `kind_key` (the kind), `objective` (if present), `online`, `batch`, `cutting_plane`, `bcfw` and `lbfgs` of `config`, each over its
/// part of `defaults` (a section the caller's expectKeys does not allow is absent: its defaults stay).
/// online and batch are always accepted; a front end offering more lists them in more_kinds.  A
/// LearnerKind's name there ("cutting_plane", "dlpw", "bcfw", "lbfgs") sets the kind; any other ("learch" of
/// `mmp train`) leaves the LearnerKind as in defaults, for the caller to read kind_key.  The
/// cutting plane, BCFW and L-BFGS are unconstrained, so only front ends without a projection (OCR,
/// multilabel) offer them.  objective_names: the names of the margin and the likelihood objective in
/// this front end (`mmp train` calls the likelihood of paths "maxent").
mmp::LearnerSettings learnerSettings(const ConfigNode& config, const std::string& kind_key, mmp::LearnerSettings defaults,
                                     const std::vector<std::string>& more_kinds = {},
                                     const std::pair<std::string, std::string>& objective_names = {"margin", "likelihood"});

/// The `online` and `batch` sections as a config would write them, every key with its value in `s` (an
/// unlimited time budget left out: it is the default) (the inverse of learnerSettings' sections, for `mmp train --print-config`).
void writeLearnerSections(YAML::Node& learner, const mmp::LearnerSettings& s);

/// The data folder: the --data-root flag if given, else $MMP_DATA_ROOT, else the config's
/// data_root (relative to the folder of the file that sets it: a base config's own folder).  Empty if none is set.
std::string resolveDataRoot(const std::string& flag, const ConfigNode& config);

}  // namespace mmp::tools
