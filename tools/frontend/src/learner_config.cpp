#include <mmp/frontend/learner_config.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/error.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace mmp::tools {

static const std::vector<std::string> kAveraging = {"none", "uniform", "late_weighted"};

OnlineGreedyProjection::Params onlineParams(const ConfigNode& node, OnlineGreedyProjection::Params p) {
  node.expectKeys({"lambda", "q", "epochs", "averaging", "shuffle", "seed", "batch", "threads", "tolerance",
                   "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, std::numeric_limits<double>::min(), kInf);
  p.q = static_cast<int>(node.integer("q", p.q, 1, 2));
  p.stop.max_iterations = node.integer("epochs", p.stop.max_iterations, 1, 1000000);
  p.averaging = parseAveraging(node.choice("averaging", describe(p.averaging), kAveraging));
  p.shuffle = node.boolean("shuffle", p.shuffle);
  p.seed = static_cast<std::uint64_t>(node.integer("seed", static_cast<long>(p.seed), 0));
  p.batch = static_cast<int>(node.integer("batch", p.batch, 1, 1000000));
  p.threads = static_cast<int>(node.integer("threads", p.threads, 0, 256));
  p.stop.tolerance = node.number("tolerance", p.stop.tolerance, 0.0, kInf);
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

BatchSubgradient::Params batchParams(const ConfigNode& node, BatchSubgradient::Params p) {
  node.expectKeys({"lambda", "q", "iterations", "step", "step_size", "averaging", "threads", "tolerance",
                   "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, 0.0, kInf);
  p.q = static_cast<int>(node.integer("q", p.q, 1, 2));
  p.stop.max_iterations = node.integer("iterations", p.stop.max_iterations, 1, 100000000);
  const bool constant = p.steps.kind() == StepSchedule::Kind::Constant;
  const std::string step = node.choice("step", constant ? "constant" : "gamma_over_t", {"constant", "gamma_over_t"});
  const double size = node.number("step_size", p.steps.parameter(), std::numeric_limits<double>::min(), kInf);
  p.steps = step == "constant" ? StepSchedule::constant(size) : StepSchedule::gammaOverT(size);
  p.averaging = parseAveraging(node.choice("averaging", describe(p.averaging), kAveraging));
  p.threads = static_cast<int>(node.integer("threads", p.threads, 0, 256));
  p.stop.tolerance = node.number("tolerance", p.stop.tolerance, 0.0, kInf);
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

Dlpw::Params dlpwParams(const ConfigNode& node, Dlpw::Params p) {
  node.expectKeys({"lambda", "epochs", "passes", "warm_start", "shuffle", "seed", "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, std::numeric_limits<double>::min(), kInf);
  p.stop.max_iterations = node.integer("epochs", p.stop.max_iterations, 1, 1000000);
  p.passes = static_cast<int>(node.integer("passes", p.passes, 0, 1000000));
  p.warm_start = node.boolean("warm_start", p.warm_start);
  p.shuffle = node.boolean("shuffle", p.shuffle);
  p.seed = static_cast<std::uint64_t>(node.integer("seed", static_cast<long>(p.seed), 0));
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

CuttingPlane::Params cuttingPlaneParams(const ConfigNode& node, CuttingPlane::Params p) {
  node.expectKeys({"lambda", "iterations", "tolerance", "absolute_tolerance", "plane_age_limit", "threads",
                   "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, std::numeric_limits<double>::min(), kInf);
  p.stop.max_iterations = node.integer("iterations", p.stop.max_iterations, 1, 100000000);
  p.stop.tolerance = node.number("tolerance", p.stop.tolerance, 0.0, kInf);
  p.absolute_tolerance = node.number("absolute_tolerance", p.absolute_tolerance, 0.0, kInf);
  p.plane_age_limit = node.integer("plane_age_limit", p.plane_age_limit, 1, 100000000);
  p.threads = static_cast<int>(node.integer("threads", p.threads, 0, 256));
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

Bcfw::Params bcfwParams(const ConfigNode& node, Bcfw::Params p) {
  node.expectKeys({"lambda", "passes", "tolerance", "absolute_tolerance", "certify_every", "averaging", "shuffle", "seed",
                   "threads", "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, std::numeric_limits<double>::min(), kInf);
  p.stop.max_iterations = node.integer("passes", p.stop.max_iterations, 1, 100000000);
  p.stop.tolerance = node.number("tolerance", p.stop.tolerance, 0.0, kInf);
  p.absolute_tolerance = node.number("absolute_tolerance", p.absolute_tolerance, 0.0, kInf);
  p.certify_every = node.integer("certify_every", p.certify_every, 1, 100000000);
  p.averaging = node.boolean("averaging", p.averaging);
  p.shuffle = node.boolean("shuffle", p.shuffle);
  p.seed = static_cast<std::uint64_t>(node.integer("seed", static_cast<long>(p.seed), 0));
  p.threads = static_cast<int>(node.integer("threads", p.threads, 0, 256));
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

Lbfgs::Params lbfgsParams(const ConfigNode& node, Lbfgs::Params p) {
  node.expectKeys({"lambda", "memory", "iterations", "tolerance", "past", "delta", "threads", "time_budget_seconds"});
  p.lambda = node.number("lambda", p.lambda, 0.0, kInf);
  p.memory = static_cast<int>(node.integer("memory", p.memory, 1, 1000));
  p.stop.max_iterations = node.integer("iterations", p.stop.max_iterations, 1, 100000000);
  p.stop.tolerance = node.number("tolerance", p.stop.tolerance, 0.0, kInf);
  p.past = static_cast<int>(node.integer("past", p.past, 0, 1000000));
  p.delta = node.number("delta", p.delta, 0.0, kInf);
  p.threads = static_cast<int>(node.integer("threads", p.threads, 0, 256));
  p.stop.time_budget_seconds = node.number("time_budget_seconds", p.stop.time_budget_seconds, 0.0, kInf);
  return p;
}

mmp::LearnerSettings learnerSettings(const ConfigNode& config, const std::string& kind_key, mmp::LearnerSettings s,
                                     const std::vector<std::string>& more_kinds,
                                     const std::pair<std::string, std::string>& objective_names) {
  std::vector<std::string> kinds = {"online", "batch"};
  kinds.insert(kinds.end(), more_kinds.begin(), more_kinds.end());
  const std::string kind = config.choice(kind_key, describe(s.kind), kinds);
  for (LearnerKind known :
       {LearnerKind::Online, LearnerKind::Batch, LearnerKind::Dlpw, LearnerKind::CuttingPlane, LearnerKind::Bcfw,
        LearnerKind::Lbfgs}) {
    if (kind == describe(known)) s.kind = known;
  }
  if (config.has("objective")) {
    const std::string& current = s.objective == TrainingObjective::Margin ? objective_names.first : objective_names.second;
    s.objective = config.choice("objective", current, {objective_names.first, objective_names.second}) == objective_names.first
                      ? TrainingObjective::Margin
                      : TrainingObjective::Likelihood;
  }
  s.online = onlineParams(config.child("online"), s.online);
  s.batch = batchParams(config.child("batch"), s.batch);
  if (config.has("cutting_plane")) s.cutting_plane = cuttingPlaneParams(config.child("cutting_plane"), s.cutting_plane);
  if (config.has("bcfw")) s.bcfw = bcfwParams(config.child("bcfw"), s.bcfw);
  if (config.has("lbfgs")) s.lbfgs = lbfgsParams(config.child("lbfgs"), s.lbfgs);
  return s;
}

namespace {
// A finite double as YAML reads it back exactly.
std::string yamlNumber(double v) { return exactNumberText(v); }
}  // namespace

void writeLearnerSections(YAML::Node& learner, const mmp::LearnerSettings& s) {
  YAML::Node online = learner["online"];
  online["lambda"] = yamlNumber(s.online.lambda);
  online["q"] = s.online.q;
  online["epochs"] = s.online.stop.max_iterations;
  online["averaging"] = describe(s.online.averaging);
  online["shuffle"] = s.online.shuffle;
  online["seed"] = s.online.seed;
  online["tolerance"] = yamlNumber(s.online.stop.tolerance);
  if (std::isfinite(s.online.stop.time_budget_seconds)) online["time_budget_seconds"] = yamlNumber(s.online.stop.time_budget_seconds);
  YAML::Node batch = learner["batch"];
  batch["lambda"] = yamlNumber(s.batch.lambda);
  batch["q"] = s.batch.q;
  batch["iterations"] = s.batch.stop.max_iterations;
  batch["step"] = s.batch.steps.kind() == StepSchedule::Kind::Constant ? "constant" : "gamma_over_t";
  batch["step_size"] = yamlNumber(s.batch.steps.parameter());
  batch["averaging"] = describe(s.batch.averaging);
  batch["threads"] = s.batch.threads;
  batch["tolerance"] = yamlNumber(s.batch.stop.tolerance);
  if (std::isfinite(s.batch.stop.time_budget_seconds)) batch["time_budget_seconds"] = yamlNumber(s.batch.stop.time_budget_seconds);
}

std::string resolveDataRoot(const std::string& flag, const ConfigNode& config) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("MMP_DATA_ROOT"); env != nullptr && *env != '\0') return env;
  const std::string root = config.text("data_root", "");
  if (root.empty() || root.front() == '/') return root;
  return config.folderOf("data_root") + "/" + root;  // relative to the file that says it: a base's own folder
}

}  // namespace mmp::tools
