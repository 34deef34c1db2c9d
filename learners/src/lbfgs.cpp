#include <mmp/learners/lbfgs.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/learners/learner_run.hpp>

#include <lbfgs.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>

namespace mmp {
namespace {

static_assert(sizeof(lbfgsfloatval_t) == sizeof(double), "liblbfgs must be built with double precision (LBFGS_FLOAT 64)");

// What train() gives liblbfgs's two callbacks.  They must not throw through liblbfgs's C frames, so
// each catches and keeps what it caught.  A progress callback that returns non-zero ends the run and
// lbfgs() returns that value: ours returns LBFGSERR_CANCELED, which liblbfgs never returns itself.
struct Callbacks {
  std::function<double(const double* x, double* g, int n)> evaluate;
  std::function<int(const double* x, double fx, int k)> progress;
};

lbfgsfloatval_t evaluateThunk(void* instance, const lbfgsfloatval_t* x, lbfgsfloatval_t* g, int n, lbfgsfloatval_t) {
  return static_cast<Callbacks*>(instance)->evaluate(x, g, n);
}

int progressThunk(void* instance, const lbfgsfloatval_t* x, const lbfgsfloatval_t*, lbfgsfloatval_t fx,
                  lbfgsfloatval_t, lbfgsfloatval_t, lbfgsfloatval_t, int, int k, int) {
  return static_cast<Callbacks*>(instance)->progress(x, fx, k);
}

// liblbfgs's status codes that end a run without meeting a tolerance, in words.
std::string describeStatus(int status) {
  switch (status) {
    case LBFGSERR_ROUNDING_ERROR: return "rounding errors prevent further progress";
    case LBFGSERR_MINIMUMSTEP: return "the line search step became smaller than its minimum";
    case LBFGSERR_MAXIMUMSTEP: return "the line search step became larger than its maximum";
    case LBFGSERR_MAXIMUMLINESEARCH: return "the line search reached its maximum number of evaluations";
    case LBFGSERR_WIDTHTOOSMALL: return "the line search's interval became too small";
    case LBFGSERR_INCREASEGRADIENT: return "the search direction does not descend";
    case LBFGSERR_INVALIDPARAMETERS: return "the line search met a logic error";
    case LBFGSERR_OUTOFINTERVAL: return "the line search step left its interval";
    case LBFGSERR_INCORRECT_TMINMAX: return "the line search's interval bounds crossed";
    case LBFGSERR_OUTOFMEMORY: return "out of memory";
    default: return "liblbfgs status " + std::to_string(status);
  }
}

}  // namespace

Lbfgs::Lbfgs(Params params) : params_(std::move(params)) {
  if (!(params_.lambda >= 0.0) || !std::isfinite(params_.lambda)) throw InvalidArgument("L-BFGS: lambda must be >= 0 and finite");
  if (params_.memory < 1) throw InvalidArgument("L-BFGS: memory must be >= 1");
  if (params_.stop.max_iterations < 1 || params_.stop.max_iterations > std::numeric_limits<int>::max()) {
    throw InvalidArgument("L-BFGS: max_iterations must be in 1 .. 2^31 - 1");
  }
  if (!(params_.stop.tolerance >= 0.0)) throw InvalidArgument("L-BFGS: tolerance must be >= 0");
  if (params_.past < 0) throw InvalidArgument("L-BFGS: past must be >= 0");
  if (!(params_.delta >= 0.0)) throw InvalidArgument("L-BFGS: delta must be >= 0");
  if (params_.threads < 0) throw InvalidArgument("L-BFGS: threads must be >= 0");
}

const Eigen::VectorXd& Lbfgs::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  evaluations_ = 0;
  objective_ = std::numeric_limits<double>::quiet_NaN();
  const LikelihoodObjective likelihood(examples, params_.lambda);  // refuses examples without marginals
  const Eigen::Index d = likelihood.dimension();
  const Eigen::VectorXd w0 = startingPoint(std::move(initial), d, *noProjection(), "L-BFGS");
  if (d > std::numeric_limits<int>::max()) throw InvalidArgument("L-BFGS: dimension above 2^31 - 1");
  const int n = static_cast<int>(d);

  ThreadPool pool(params_.threads);
  Eigen::VectorXd g(d);
  // Why the last line-search point failed, "" once an iterate is accepted after it.
  std::string failed_point;
  // Why the progress callback ended the run, or, when liblbfgs ended it, its status in words (below).
  LearnerRun run(*this, params_.stop, false, std::string());
  Callbacks callbacks;
  callbacks.evaluate = [&](const double* x, double* gradient, int) -> double {
    ++evaluations_;
    try {
      const double value = likelihood.evaluate(Eigen::Map<const Eigen::VectorXd>(x, d), &g, &pool);
      Eigen::Map<Eigen::VectorXd>(gradient, d) = g;
      if (evaluations_ == 1) objective_ = value;  // the start's, until an iterate is accepted
      return value;
    } catch (const NumericalError& e) {
      // an infinite value makes the line search step back; if it cannot, the run ends below
      failed_point = std::string("a marginal call failed at a line-search point (") + e.what() + ")";
      Eigen::Map<Eigen::VectorXd>(gradient, d).setZero();
      return std::numeric_limits<double>::infinity();
    }
  };
  callbacks.progress = [&](const double* x, double fx, int k) -> int {
    const Eigen::Map<const Eigen::VectorXd> w(x, d);
    iterations_ = k;
    if (!std::isfinite(fx)) {
      run.fail("the objective is not finite at iteration " + std::to_string(k) + "; kept the last accepted weights");
      return LBFGSERR_CANCELED;
    }
    if (run.refuses(w, "the iterate of iteration", k, "kept the last accepted weights")) return LBFGSERR_CANCELED;
    failed_point.clear();  // the line search recovered from a failed point
    weights_ = w;
    objective_ = fx;
    if (!run.trace({k, fx, weights_.norm(), elapsed()}, "at iteration", k) || run.outOfTime()) return LBFGSERR_CANCELED;
    return 0;
  };

  lbfgs_parameter_t settings;
  lbfgs_parameter_init(&settings);
  settings.m = params_.memory;
  settings.epsilon = params_.stop.tolerance;
  settings.past = params_.past;
  settings.delta = params_.delta;
  settings.max_iterations = static_cast<int>(params_.stop.max_iterations);
  const std::unique_ptr<lbfgsfloatval_t, void (*)(lbfgsfloatval_t*)> x(lbfgs_malloc(n), lbfgs_free);
  if (!x) throw std::bad_alloc();
  Eigen::Map<Eigen::VectorXd>(x.get(), d) = w0;
  lbfgsfloatval_t fx = 0.0;
  const int status = lbfgs(n, x.get(), &fx, evaluateThunk, progressThunk, &callbacks, &settings);

  if (status == LBFGS_SUCCESS) {
    run.succeed("gradient below tolerance at iteration " + std::to_string(iterations_));
  } else if (status == LBFGS_STOP) {
    run.succeed("objective fell by at most " + numberText(params_.delta) + " (relative) over the last " +
                std::to_string(params_.past) + " iterations, at iteration " + std::to_string(iterations_));
  } else if (status == LBFGS_ALREADY_MINIMIZED) {
    run.succeed("the starting point's gradient is below tolerance");
  } else if (status == LBFGSERR_MAXIMUMITERATION) {
    run.stop(Info::NoConvergence, "reached max_iterations = " + std::to_string(params_.stop.max_iterations));
  } else if (status != LBFGSERR_CANCELED) {  // cancelled, the progress callback's reason stands
    if (!failed_point.empty()) {
      run.fail(failed_point + "; kept the last accepted weights");
    } else {
      run.stop(Info::NoConvergence, describeStatus(status) + " at iteration " + std::to_string(iterations_) +
                                        "; kept the last accepted weights");
    }
  }
  run.finish();
  return weights_;
}

}  // namespace mmp
