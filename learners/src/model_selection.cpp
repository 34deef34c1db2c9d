#include <mmp/learners/model_selection.hpp>

#include <mmp/core/averaging.hpp>
#include <mmp/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>

namespace mmp {

/*!
    The callback keeps its own copy of the learner's iterate average (the learners publish the
    current iterate through weights() before calling back), so that each curve point is the model
    training would return at that pass.  Online: round t ends pass t / n when n divides t, and its
    iterate is the latest.  Batch: at iteration t the learner reports w_t before stepping; its
    average holds w_2 .. w_t by then, i.e. the model it would return after t - 1 iterations (passes).
    Cutting plane: at iteration t it publishes its best iterate so far, which is what it returns
    after t iterations; BCFW: after pass t its w; L-BFGS: after iteration t its accepted iterate;
    nothing is averaged.
!*/
TrainedWithCurve trainWithCurve(const LearnerSettings& settings, const ExampleList& examples, int points,
                                const CurveCallback& at_pass) {
  using Clock = std::chrono::steady_clock;
  const bool online = settings.kind == LearnerKind::Online;
  // the cutting plane, BCFW and L-BFGS call back after each iteration or pass with what they would return
  const bool cutting_plane = settings.kind == LearnerKind::CuttingPlane || settings.kind == LearnerKind::Bcfw ||
                             settings.kind == LearnerKind::Lbfgs;
  const long per_pass = online ? static_cast<long>(examples.size()) : 1;  // callbacks per pass
  const long lag = online || cutting_plane ? 0 : 1;  // the batch learner calls back once before its first step
  const long stride = std::max(1L, settings.passes() / std::max(1, points));
  const std::unique_ptr<Learner> learner = makeLearner(settings);
  IterateAverage average(online          ? settings.online.averaging
                         : cutting_plane ? Averaging::None
                                         : settings.batch.averaging);
  TrainedWithCurve out;
  long last_pass = 0;  // the last pass given to at_pass (0: none)
  if (at_pass) {
    learner->setCallback([&](const TraceRecord& record) {
      const Clock::time_point start = Clock::now();
      const long step = record.iteration - lag;
      if (step >= 1) {
        average.add(learner->weights());  // the learner added the same iterate just before
        if (step % per_pass == 0 && (step / per_pass) % stride == 0) {
          last_pass = step / per_pass;
          at_pass(last_pass, average.mean());
        }
      }
      out.curve_seconds += secondsSince(start);
      return true;
    });
  }
  out.w = learner->train(examples);
  out.iterations = learner->iterations();
  out.passes = online ? settings.passes() : out.iterations;
  out.formulation = learner->formulation();
  out.info = describe(learner->info()) + ": " + learner->message();
  if (!online) {
    char objective[64];
    std::snprintf(objective, sizeof objective, ", objective %.6g", learner->objective());
    out.info += objective;
  }
  if (at_pass) {
    const Clock::time_point start = Clock::now();
    const long passes = (out.iterations + per_pass - 1) / per_pass;
    if (last_pass == 0 || last_pass != passes) at_pass(passes, out.w);
    out.curve_seconds += secondsSince(start);
  }
  return out;
}

std::optional<double> beyondGridEdge(const std::vector<double>& tried, double chosen) {
  std::vector<double> grid(tried);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  if (grid.size() < 2) return std::nullopt;
  if (chosen == grid.back()) return chosen * chosen / grid[grid.size() - 2];
  if (chosen == grid.front()) return chosen * chosen / grid[1];
  return std::nullopt;
}

HeldOutChoice chooseOnHeldOut(const LearnerSettings& settings, const ExampleList& fit,
                              const WeightsError& held_out_error, const HeldOutParams& params) {
  if (params.lambdas.empty()) throw InvalidArgument("chooseOnHeldOut: no candidate lambdas (params.lambdas is empty)");
  if (params.extend_at_edge < 0) throw InvalidArgument("chooseOnHeldOut: extend_at_edge must be >= 0");
  const int points = params.choose_passes ? static_cast<int>(std::min(50L, settings.passes())) : 0;
  struct Candidate {
    double lambda;
    long passes;
    double error;
  };
  std::vector<Candidate> candidates;
  std::vector<double> tried;
  HeldOutChoice choice;
  const auto evaluate = [&](double lambda) {
    LearnerSettings trial = settings;
    trial.setLambda(lambda);
    LambdaValidation v;
    CurveCallback at_pass;
    if (points > 0) {
      at_pass = [&](long pass, const Eigen::VectorXd& w) {
        v.curve_passes.push_back(pass);
        v.curve_error.push_back(held_out_error(w));
      };
    }
    const TrainedWithCurve model = trainWithCurve(trial, fit, points, at_pass);
    v.lambda = lambda;
    v.passes = model.passes;
    v.error = held_out_error(model.w);
    for (std::size_t i = 0; i < v.curve_passes.size(); ++i) {
      candidates.push_back({lambda, v.curve_passes[i], v.curve_error[i]});
      if (v.curve_error[i] < v.error) v.passes = v.curve_passes[i], v.error = v.curve_error[i];
    }
    if (v.curve_passes.empty()) candidates.push_back({lambda, v.passes, v.error});
    choice.per_lambda.push_back(std::move(v));
    tried.push_back(lambda);
  };
  const auto pick = [&] {
    double lowest = std::numeric_limits<double>::infinity();
    for (const Candidate& c : candidates) lowest = std::min(lowest, c.error);
    const Candidate* best = nullptr;
    for (const Candidate& c : candidates) {
      if (c.error <= lowest + params.tolerance && (best == nullptr || c.passes < best->passes)) best = &c;
    }
    return *best;
  };
  for (double lambda : params.lambdas) evaluate(lambda);
  Candidate picked = pick();
  for (int extra = 0; extra < params.extend_at_edge; ++extra) {
    const std::optional<double> next = beyondGridEdge(tried, picked.lambda);
    if (!next) break;
    evaluate(*next);
    picked = pick();
  }
  choice.chosen = settings;
  choice.chosen.setLambda(picked.lambda);
  if (params.choose_passes) choice.chosen.setPasses(picked.passes);
  return choice;
}

}  // namespace mmp
