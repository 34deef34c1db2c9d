// LearnerSettings: which learner, and the parameters of each, in one plain struct; makeLearner turns
// it into a Learner.  A front end reads the kind once (parseLearnerKind) and never compares names again.
//
//   LearnerSettings s;                   // batch subgradient with its documented defaults
//   s.kind = LearnerKind::Online;
//   s.setLambda(1e-3);                   // the chosen learner's lambda
//   s.setProjection(positiveCostProjection(d, 0, 1.0, 0.05));
//   std::unique_ptr<Learner> learner = makeLearner(s);
#pragma once

#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/bcfw.hpp>
#include <mmp/learners/cutting_plane.hpp>
#include <mmp/learners/dlpw.hpp>
#include <mmp/learners/lbfgs.hpp>
#include <mmp/learners/online_greedy_projection.hpp>

#include <memory>
#include <string>

namespace mmp {

struct LearnerSettings {
  LearnerKind kind = LearnerKind::Batch;
  /// What the learner minimises; makeLearner hands it to the online or batch learner's Params,
  /// refuses Likelihood for the learners that train the margin objective only and Margin for L-BFGS.
  TrainingObjective objective = TrainingObjective::Margin;
  OnlineGreedyProjection::Params online;  ///< used when kind is Online
  BatchSubgradient::Params batch;         ///< used when kind is Batch
  Dlpw::Params dlpw;                      ///< used when kind is Dlpw (pairwise models only)
  CuttingPlane::Params cutting_plane;     ///< used when kind is CuttingPlane
  Bcfw::Params bcfw;                      ///< used when kind is Bcfw
  Lbfgs::Params lbfgs;                    ///< used when kind is Lbfgs (the likelihood objective only)

  /// The chosen learner's lambda, slack norm (DLPW, the cutting plane and BCFW: 1) and pass budget
  /// (iterations, epochs or passes).
  double lambda() const;
  void setLambda(double lambda);
  int q() const;
  long passes() const;
  void setPasses(long passes);
  /// Sets the projection of the online and the batch learner (DLPW keeps its ball; the cutting
  /// plane, BCFW and L-BFGS are unconstrained and ignore it: do not choose them where w must stay in a set).
  void setProjection(const ProjectionPtr& projection);
  /// How many times the callback is called at most on `examples` examples: batch, cutting-plane or
  /// L-BFGS iterations, or online steps (epochs x ceil(examples / batch)).  For progress bars.
  long callbacks(long examples) const;
  /// One line for a table: "online GP, lambda 0.01, 20 epochs, averaging late_weighted" (", likelihood
  /// objective" appended when it is the likelihood).
  std::string describe() const;
};

/// The learner of settings.kind with its parameters and settings.objective; throws
/// mmp::InvalidArgument on bad parameters, for the likelihood objective with a learner other than
/// online, batch or L-BFGS, or for the margin objective with L-BFGS.
std::unique_ptr<Learner> makeLearner(const LearnerSettings& settings);

}  // namespace mmp
