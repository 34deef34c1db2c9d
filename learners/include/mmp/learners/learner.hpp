// The one learner interface: every optimiser over the oracle contract is a Learner, with
// train(ExampleList), a callback per step, and the Eigen-style report it leaves behind (info(),
// iterations(), passes(), the trace).  Also the stopping rules and the trace record.
//
//   LearnerSettings settings;                     // mmp/learners/learner_settings.hpp
//   settings.kind = LearnerKind::Online;
//   std::unique_ptr<Learner> learner = makeLearner(settings);
//   Eigen::VectorXd w = learner->train(examples);
//
// Learners are written against the oracle contract (mmp/core/oracle.hpp) alone.
#pragma once

#include <mmp/core/formulation.hpp>
#include <mmp/core/oracle.hpp>
#include <mmp/core/projection.hpp>

#include <Eigen/Dense>
#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace mmp {

enum class Info {
  Success,         ///< the tolerance was met, or the iteration budget ran out with no tolerance set
  NoConvergence,   ///< a tolerance was set and not met before the iteration or time budget ran out
  NumericalIssue,  ///< a step produced NaN or Inf: the last good weights were kept
  InvalidInput,    ///< not run: the examples or parameters were unusable
};
std::string describe(Info info);

struct StopCriteria {
  long max_iterations = 100;  ///< batch: iterations; online: epochs over the stream
  /// Stop with Success once an iteration (batch) or epoch (online) moves w by at most
  /// tolerance * max(1, |w|).  0 disables the test.
  double tolerance = 0.0;
  double time_budget_seconds = std::numeric_limits<double>::infinity();
};

/// One line of a training curve.
struct TraceRecord {
  long iteration = 0;          ///< batch: iteration t; online: round t
  double value = 0.0;          ///< batch: c(w_t) of eq. 4; online: running mean prediction loss
  double weight_norm = 0.0;    ///< |w_t|
  double elapsed_seconds = 0.0;
  /// The duality gap certified at this point (c(w) - a dual value: the cutting plane's and BCFW's
  /// certificate), NaN where the learner has none.
  double gap = std::numeric_limits<double>::quiet_NaN();
};

/// Called once per iteration (batch) or round (online); returning false stops training.
using TraceCallback = std::function<bool(const TraceRecord&)>;

/// Why the weights w may not be kept, or "" if they may: a bound on what the weights mean, beyond
/// the learner's projection, e.g. a cost map's range (mmp/maps/cost_model.hpp: trainingCostFault).
/// Use a convex set of acceptable weights, so that averages of accepted iterates are accepted too.
using WeightCheck = std::function<std::string(const Eigen::VectorXd& w)>;

/// Which optimiser: BatchSubgradient, OnlineGreedyProjection, Dlpw (pairwise models only),
/// CuttingPlane or Bcfw (block-coordinate Frank-Wolfe; both unconstrained, q = 1), or Lbfgs
/// (limited-memory BFGS: the likelihood objective only, unconstrained).
enum class LearnerKind { Batch, Online, Dlpw, CuttingPlane, Bcfw, Lbfgs };
/// "batch", "online", "dlpw", "cutting_plane", "bcfw" or "lbfgs"; throws mmp::InvalidArgument naming the valid names otherwise.
LearnerKind parseLearnerKind(const std::string& name);
std::string describe(LearnerKind kind);

/// What a learner minimises: the max-margin objective of eq. 4 through the argmax oracle
/// (mmp/core/objective.hpp), or the conditional likelihood through the marginal interface
/// (mmp/core/likelihood_objective.hpp; examples must implement MarginalExample).  The online and
/// batch learners train both; L-BFGS the likelihood only; the others the margin objective only.
enum class TrainingObjective { Margin, Likelihood };
/// "margin" or "likelihood"; throws mmp::InvalidArgument naming the valid names otherwise.
TrainingObjective parseTrainingObjective(const std::string& name);
std::string describe(TrainingObjective objective);

/// An optimiser over the oracle contract, with the report and bookkeeping every learner keeps.
/// Not thread-safe: one thread trains a learner at a time.
class Learner {
 public:
  virtual ~Learner() = default;

  /*!
      requires: examples non-empty, of one dimension d; initial empty (zeros) or of size d
      ensures
          - returns the learned weights, also available as weights()
          - info() says why it stopped; on NumericalIssue the weights are the last finite iterate
          - throws mmp::InvalidArgument on bad parameters or examples
  !*/
  virtual const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) = 0;
  virtual LearnerKind kind() const = 0;
  /// The formulation the last train() optimised, read from its examples (mmp/core/formulation.hpp:
  /// FormulatedExample's, margin scaling for any other example).
  Formulation formulation() const { return formulation_; }
  /// Passes over the examples run: batch iterations or online epochs.
  virtual long passes() const = 0;
  /// Batch: c(weights()) of the objective it trained (eq. 4, or the likelihood objective).  Online:
  /// NaN (it never evaluates the whole objective).
  virtual double objective() const { return std::numeric_limits<double>::quiet_NaN(); }
  /// What TraceRecord::value is: "objective c(w), eq. 4" (the cutting plane: the least so far),
  /// "objective c(w), likelihood" or "running mean prediction loss per demonstration".
  virtual const char* traceValueName() const = 0;
  /// What a pass is called: "iteration", "epoch" or "pass".
  virtual const char* passName() const = 0;

  void setCallback(TraceCallback callback) { callback_ = std::move(callback); }
  /// The weights are checked before they are kept -- each iterate (batch, cutting plane, DLPW), or the
  /// model train() would return at the end of each epoch (online: its rounds' iterates may stray and
  /// come back) -- and one the check rejects stops training with Info::NumericalIssue, the last
  /// accepted weights and the check's reason in message().
  void setWeightCheck(WeightCheck check) { weight_check_ = std::move(check); }

  Info info() const { return info_; }
  const std::string& message() const { return message_; }  ///< why training stopped
  long iterations() const { return iterations_; }
  const Eigen::VectorXd& weights() const { return weights_; }
  /// Batch: one record per iteration.  Online: one per epoch (the callback sees every round).
  const std::vector<TraceRecord>& trace() const { return trace_; }
  double seconds() const { return seconds_; }

 protected:
  friend class LearnerRun;  // a train() call's bookkeeping (mmp/learners/learner_run.hpp)

  /// Resets the report and records the examples' formulation; throws if they mix formulations.
  void start(const ExampleList& examples);
  double elapsed() const;
  /// Passes the record to the callback; returns false if the callback asked to stop.
  bool report(const TraceRecord& record);
  /// Why a step's weights may not be kept ("is not finite", or the weight check's reason), "" if they may.
  std::string rejected(const Eigen::VectorXd& w) const;
  void finish(Info info, std::string message);
  /// The projected first iterate: `initial`, or zeros if it is empty; also stored as weights().
  Eigen::VectorXd startingPoint(Eigen::VectorXd initial, Eigen::Index d, const Projection& projection,
                                const char* learner);

  TraceCallback callback_;
  WeightCheck weight_check_;
  Info info_ = Info::InvalidInput;
  std::string message_ = "not trained";
  long iterations_ = 0;
  Eigen::VectorXd weights_;
  std::vector<TraceRecord> trace_;
  double seconds_ = 0.0;
  Formulation formulation_ = Formulation::Margin;
  std::chrono::steady_clock::time_point start_;
};

/// Seconds since `start` on the steady clock.
double secondsSince(std::chrono::steady_clock::time_point start);

}  // namespace mmp
