#include <mmp/learners/learner_settings.hpp>

#include <sstream>

namespace mmp {

double LearnerSettings::lambda() const { return kind == LearnerKind::Online ? online.lambda : batch.lambda; }
void LearnerSettings::setLambda(double lambda) { (kind == LearnerKind::Online ? online.lambda : batch.lambda) = lambda; }
int LearnerSettings::q() const { return kind == LearnerKind::Online ? online.q : batch.q; }

long LearnerSettings::passes() const {
  return kind == LearnerKind::Online ? online.stop.max_iterations : batch.stop.max_iterations;
}

void LearnerSettings::setPasses(long passes) {
  (kind == LearnerKind::Online ? online.stop.max_iterations : batch.stop.max_iterations) = passes;
}

void LearnerSettings::setProjection(const ProjectionPtr& projection) {
  online.projection = projection;
  batch.projection = projection;
}

long LearnerSettings::callbacks(long examples) const {
  return kind == LearnerKind::Online ? online.stop.max_iterations * examples : batch.stop.max_iterations;
}

std::string LearnerSettings::describe() const {
  std::ostringstream s;
  if (kind == LearnerKind::Online) {
    s << "online GP, lambda " << online.lambda << ", " << online.stop.max_iterations << " epochs, averaging "
      << mmp::describe(online.averaging);
  } else {
    s << "batch subgradient, lambda " << batch.lambda << ", " << batch.stop.max_iterations << " iterations, "
      << batch.steps.describe() << ", averaging " << mmp::describe(batch.averaging);
  }
  return s.str();
}

std::unique_ptr<Learner> makeLearner(const LearnerSettings& settings) {
  if (settings.kind == LearnerKind::Online) return std::make_unique<OnlineGreedyProjection>(settings.online);
  return std::make_unique<BatchSubgradient>(settings.batch);
}

}  // namespace mmp
