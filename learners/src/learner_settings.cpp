#include <mmp/learners/learner_settings.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <sstream>

namespace mmp {
namespace {

// The pass budget of the chosen learner: epochs (online, DLPW) or iterations (batch).
template <typename Settings>
auto& stopOf(Settings& s) {
  switch (s.kind) {
    case LearnerKind::Online: return s.online.stop;
    case LearnerKind::Dlpw: return s.dlpw.stop;
    case LearnerKind::CuttingPlane: return s.cutting_plane.stop;
    case LearnerKind::Bcfw: return s.bcfw.stop;
    case LearnerKind::Lbfgs: return s.lbfgs.stop;
    case LearnerKind::Batch: break;
  }
  return s.batch.stop;
}

template <typename Settings>
auto& lambdaOf(Settings& s) {
  switch (s.kind) {
    case LearnerKind::Online: return s.online.lambda;
    case LearnerKind::Dlpw: return s.dlpw.lambda;
    case LearnerKind::CuttingPlane: return s.cutting_plane.lambda;
    case LearnerKind::Bcfw: return s.bcfw.lambda;
    case LearnerKind::Lbfgs: return s.lbfgs.lambda;
    case LearnerKind::Batch: break;
  }
  return s.batch.lambda;
}

}  // namespace

double LearnerSettings::lambda() const { return lambdaOf(*this); }
void LearnerSettings::setLambda(double lambda) { lambdaOf(*this) = lambda; }
int LearnerSettings::q() const {
  switch (kind) {
    case LearnerKind::Online: return online.q;
    case LearnerKind::Dlpw:
    case LearnerKind::CuttingPlane:
    case LearnerKind::Bcfw:
    case LearnerKind::Lbfgs: return 1;
    case LearnerKind::Batch: break;
  }
  return batch.q;
}

long LearnerSettings::passes() const { return stopOf(*this).max_iterations; }
void LearnerSettings::setPasses(long passes) { stopOf(*this).max_iterations = passes; }

void LearnerSettings::setProjection(const ProjectionPtr& projection) {
  online.projection = projection;
  batch.projection = projection;
}

long LearnerSettings::callbacks(long examples) const {
  const long batch = std::max(1, online.batch);
  return kind == LearnerKind::Online ? online.stop.max_iterations * ((examples + batch - 1) / batch) : passes();
}

std::string LearnerSettings::describe() const {
  std::ostringstream s;
  switch (kind) {
    case LearnerKind::Online:
      s << "online GP, lambda " << online.lambda << ", " << online.stop.max_iterations << " epochs, averaging "
        << mmp::describe(online.averaging);
      if (online.batch > 1) s << ", mini-batches of " << online.batch;
      break;
    case LearnerKind::Dlpw:
      s << "DLPW, lambda " << dlpw.lambda << ", " << dlpw.stop.max_iterations << " epochs, "
        << (dlpw.passes == 0 ? std::string("LP to convergence") : std::to_string(dlpw.passes) + " diffusion passes")
        << " a step" << (dlpw.warm_start ? ", warm starts" : "");
      break;
    case LearnerKind::CuttingPlane:
      s << "cutting plane, lambda " << cutting_plane.lambda << ", relative gap " << cutting_plane.stop.tolerance
        << ", up to " << cutting_plane.stop.max_iterations << " iterations";
      break;
    case LearnerKind::Bcfw:
      s << "BCFW, lambda " << bcfw.lambda << ", relative gap " << bcfw.stop.tolerance << ", up to "
        << bcfw.stop.max_iterations << " passes";
      if (bcfw.certify_every > 1) s << ", gap every " << bcfw.certify_every << " passes";
      break;
    case LearnerKind::Lbfgs:
      s << "L-BFGS, lambda " << lbfgs.lambda << ", memory " << lbfgs.memory << ", gradient tolerance "
        << lbfgs.stop.tolerance << ", up to " << lbfgs.stop.max_iterations << " iterations";
      break;
    case LearnerKind::Batch:
      s << "batch subgradient, lambda " << batch.lambda << ", " << batch.stop.max_iterations << " iterations, "
        << batch.steps.describe() << ", averaging " << mmp::describe(batch.averaging);
      break;
  }
  if (objective == TrainingObjective::Likelihood) s << ", likelihood objective";
  return s.str();
}

std::unique_ptr<Learner> makeLearner(const LearnerSettings& settings) {
  if (settings.objective == TrainingObjective::Likelihood && settings.kind != LearnerKind::Online &&
      settings.kind != LearnerKind::Batch && settings.kind != LearnerKind::Lbfgs) {
    throw InvalidArgument("learner " + mmp::describe(settings.kind) +
                          " trains the margin objective only; the likelihood objective trains with online, batch or lbfgs");
  }
  if (settings.objective == TrainingObjective::Margin && settings.kind == LearnerKind::Lbfgs) {
    throw InvalidArgument("learner lbfgs trains the likelihood objective only (the margin objective's hinge is not "
                          "smooth); use cutting_plane, bcfw, batch or online for it");
  }
  switch (settings.kind) {
    case LearnerKind::Online: {
      OnlineGreedyProjection::Params p = settings.online;
      p.objective = settings.objective;
      return std::make_unique<OnlineGreedyProjection>(std::move(p));
    }
    case LearnerKind::Dlpw: return std::make_unique<Dlpw>(settings.dlpw);
    case LearnerKind::CuttingPlane: return std::make_unique<CuttingPlane>(settings.cutting_plane);
    case LearnerKind::Bcfw: return std::make_unique<Bcfw>(settings.bcfw);
    case LearnerKind::Lbfgs: return std::make_unique<Lbfgs>(settings.lbfgs);
    case LearnerKind::Batch: break;
  }
  BatchSubgradient::Params p = settings.batch;
  p.objective = settings.objective;
  return std::make_unique<BatchSubgradient>(std::move(p));
}

}  // namespace mmp
