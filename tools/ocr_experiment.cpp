#include "ocr_experiment.hpp"

#include "learner_config.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <sstream>

namespace mmp::tools {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<ChainExample> makeExamples(const OcrWords& words, const std::vector<std::size_t>& indices,
                                       const ChainOptions& options) {
  std::vector<ChainExample> examples;
  examples.reserve(indices.size());
  for (std::size_t i : indices) examples.emplace_back(words.data, i, options);
  return examples;
}

std::vector<const ChainExample*> pointers(const std::vector<ChainExample>& examples) {
  std::vector<const ChainExample*> out;
  out.reserve(examples.size());
  for (const auto& e : examples) out.push_back(&e);
  return out;
}

using FoldValidation = OcrFoldResult::Validation;

struct Trained {
  Eigen::VectorXd w;
  long iterations = 0;
  std::string info;
  double curve_seconds = 0.0;
};

/// What the curve is measured on (null: no curve).
struct CurveTarget {
  ErrorCurve* curve = nullptr;
  const std::vector<const ChainExample*>* train = nullptr;
  const std::vector<const ChainExample*>* test = nullptr;
  int points = 0;
};

void addCurvePoint(const CurveTarget& target, long passes, const Eigen::VectorXd& w) {
  target.curve->passes.push_back(passes);
  if (target.train != nullptr) target.curve->train_error.push_back(labelErrors(*target.train, w).rate());
  target.curve->test_error.push_back(labelErrors(*target.test, w).rate());
}

/*!
    Trains with the settings' learner.  With a curve target, the callback keeps its own copy of the
    learner's iterate average (the learners publish the current iterate through weights() before
    calling back), so that each curve point is the model training would return at that pass.
    Online: round t ends pass t / n when n divides t, and its iterate is the latest.  Batch: at
    iteration t the learner reports w_t before stepping; its average holds w_2 .. w_t by then, i.e.
    the model it would return after t - 1 iterations (passes).
!*/
Trained trainChain(const std::vector<ChainExample>& examples, const OcrLearnerSettings& settings,
                   const CurveTarget& target) {
  ExampleList list;
  list.reserve(examples.size());
  for (const auto& e : examples) list.push_back(&e);
  const LearnerSettings& s = settings.learner;
  const bool online = s.kind == LearnerKind::Online;
  const long per_pass = online ? static_cast<long>(examples.size()) : 1;  // callbacks per pass
  const long lag = online ? 0 : 1;  // the batch learner calls back once before its first step
  const long stride = target.curve ? std::max(1L, s.passes() / std::max(1, target.points)) : 1;
  const std::unique_ptr<Learner> learner = makeLearner(s);
  IterateAverage average(online ? s.online.averaging : s.batch.averaging);
  Trained out;
  if (target.curve) {
    learner->setCallback([&](const TraceRecord& record) {
      const Clock::time_point start = Clock::now();
      const long step = record.iteration - lag;
      if (step >= 1) {
        average.add(learner->weights());  // the learner added the same iterate just before
        if (step % per_pass == 0 && (step / per_pass) % stride == 0) addCurvePoint(target, step / per_pass, average.mean());
      }
      out.curve_seconds += secondsSince(start);
      return true;
    });
  }
  out.w = learner->train(list);
  out.iterations = learner->iterations();
  out.info = describe(learner->info()) + ": " + learner->message();
  if (!online) {
    char objective[64];
    std::snprintf(objective, sizeof objective, ", objective %.6g", learner->objective());
    out.info += objective;
  }
  if (target.curve) {
    const Clock::time_point start = Clock::now();
    const long passes = (out.iterations + per_pass - 1) / per_pass;
    if (target.curve->passes.empty() || target.curve->passes.back() != passes) addCurvePoint(target, passes, out.w);
    out.curve_seconds += secondsSince(start);
  }
  return out;
}

/*!
    Step 1 of runOcrFold: trains each of settings.validation_lambdas on a part of the fold's
    training words and records its letter error on the rest (after every pass if passes are chosen
    too) in `validation`; returns the settings with the fewest passes within the tolerance of the
    lowest held-out error (the first lambda on ties).
!*/
OcrLearnerSettings chooseOnHeldOut(const OcrWords& words, std::vector<std::size_t> train, int k,
                                   const OcrLearnerSettings& settings, std::vector<FoldValidation>& validation) {
  Random rng(settings.validation_seed + static_cast<std::uint64_t>(k));
  rng.shuffle(train.begin(), train.end());
  const auto held = static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(
      static_cast<std::size_t>(std::lround(settings.validation_fraction * static_cast<double>(train.size()))), 1,
      train.size() - 1));
  std::vector<std::size_t> fit(train.begin(), train.end() - held), check(train.end() - held, train.end());
  std::sort(fit.begin(), fit.end());
  std::sort(check.begin(), check.end());
  const std::vector<ChainExample> fit_examples = makeExamples(words, fit, settings.chainOptions());
  const std::vector<ChainExample> check_examples = makeExamples(words, check, settings.chainOptions());
  const std::vector<const ChainExample*> check_list = pointers(check_examples);
  const int points = settings.validation_passes ? static_cast<int>(std::min(50L, settings.learner.passes())) : 0;
  struct Candidate {
    double lambda;
    long passes;
    double error;
  };
  std::vector<Candidate> candidates;
  for (double lambda : settings.validation_lambdas) {
    OcrLearnerSettings trial = settings;
    trial.learner.setLambda(lambda);
    ErrorCurve curve;
    const Trained model = trainChain(fit_examples, trial, {points > 0 ? &curve : nullptr, nullptr, &check_list, points});
    FoldValidation best{lambda, settings.learner.passes(), labelErrors(check_list, model.w).rate(), curve.passes,
                        curve.test_error};
    for (std::size_t i = 0; i < curve.passes.size(); ++i) {
      candidates.push_back({lambda, curve.passes[i], curve.test_error[i]});
      if (curve.test_error[i] < best.error) best.passes = curve.passes[i], best.error = curve.test_error[i];
    }
    if (curve.passes.empty()) candidates.push_back({lambda, best.passes, best.error});
    validation.push_back(best);
  }
  double lowest = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) lowest = std::min(lowest, c.error);
  const Candidate* pick = nullptr;
  for (const Candidate& c : candidates) {
    if (c.error <= lowest + settings.validation_tolerance && (pick == nullptr || c.passes < pick->passes)) pick = &c;
  }
  OcrLearnerSettings chosen = settings;
  chosen.learner.setLambda(pick->lambda);
  if (settings.validation_passes) chosen.learner.setPasses(pick->passes);
  return chosen;
}

}  // namespace

LearnerSettings ocrLearnerDefaults() {
  LearnerSettings s;
  s.kind = LearnerKind::Online;
  s.online.lambda = 1e-2;
  s.online.stop.max_iterations = 20;
  s.online.averaging = Averaging::LateWeighted;
  s.online.shuffle = true;
  s.batch.lambda = 1e-2;
  s.batch.stop.max_iterations = 200;
  s.batch.averaging = Averaging::LateWeighted;
  return s;
}

ChainOptions OcrLearnerSettings::chainOptions() const {
  ChainOptions options;
  options.start_end = start_end;
  options.length_power = beta_by_length ? learner.q() : 0.0;
  return options;
}

std::string OcrLearnerSettings::describe() const {
  std::ostringstream s;
  s << learner.describe();
  if (beta_by_length) s << ", beta 1/length";
  if (!validation_lambdas.empty()) {
    s << ", lambda" << (validation_passes ? " and passes" : "") << " chosen on " << validation_fraction
      << " of the training words";
  }
  return s.str();
}

const std::vector<std::string>& ocrConfigKeys() {
  static const std::vector<std::string> keys = {"data_root", "protocol",  "folds",  "output_dir", "curve",
                                                "curve_points", "learner", "beta", "start_end", "online",
                                                "batch", "validation"};
  return keys;
}

OcrLearnerSettings ocrLearnerSettings(const ConfigNode& config) {
  OcrLearnerSettings s;
  s.learner = learnerSettings(config, s.learner);
  s.start_end = config.boolean("start_end", s.start_end);
  s.beta_by_length = config.choice("beta", s.beta_by_length ? "by_length" : "one", {"one", "by_length"}) == "by_length";
  const ConfigNode validation = config.child("validation");
  validation.expectKeys({"lambdas", "fraction", "seed", "choose_passes", "tolerance"});
  s.validation_lambdas = validation.numbers("lambdas", {}, std::numeric_limits<double>::min(),
                                            std::numeric_limits<double>::infinity());
  s.validation_fraction = validation.number("fraction", s.validation_fraction, 0.01, 0.9);
  s.validation_seed = static_cast<std::uint64_t>(validation.integer("seed", static_cast<long>(s.validation_seed), 0));
  s.validation_passes = validation.boolean("choose_passes", s.validation_passes);
  s.validation_tolerance = validation.number("tolerance", s.validation_tolerance, 0.0, 1.0);
  return s;
}

OcrFoldResult runOcrFold(const OcrWords& words, OcrProtocol protocol, int k, const OcrLearnerSettings& settings,
                         int curve_points) {
  OcrFoldResult result;
  result.fold = k;
  const FoldSplit split = foldSplit(words.folds, protocol, k);
  if (split.train.empty() || split.test.empty()) {
    throw DataError("OCR fold " + std::to_string(k) + " of the " + describe(protocol) +
                    " protocol has no training or no test words");
  }
  const Clock::time_point train_start = Clock::now();
  // 1) lambda (and passes) by held-out letter error inside the training words, if asked (never the test fold)
  const OcrLearnerSettings chosen =
      settings.validation_lambdas.empty() ? settings : chooseOnHeldOut(words, split.train, k, settings, result.validation);
  result.lambda = chosen.learner.lambda();
  result.passes = chosen.learner.passes();

  // 2) train on all training words
  const std::vector<ChainExample> train = makeExamples(words, split.train, settings.chainOptions());
  const Clock::time_point build_test_start = Clock::now();  // building the test examples is testing time
  const std::vector<ChainExample> test = makeExamples(words, split.test, settings.chainOptions());
  const double build_test_seconds = secondsSince(build_test_start);
  const std::vector<const ChainExample*> train_list = pointers(train), test_list = pointers(test);
  const CurveTarget target{curve_points > 0 ? &result.curve : nullptr, &train_list, &test_list, curve_points};
  const Trained model = trainChain(train, chosen, target);
  result.curve_seconds = model.curve_seconds;
  result.train_seconds = secondsSince(train_start) - model.curve_seconds - build_test_seconds;
  result.iterations = model.iterations;
  result.info = model.info;

  // 3) test
  const Clock::time_point test_start = Clock::now();
  const LabelErrors tested = labelErrors(test_list, model.w);
  result.test_seconds = secondsSince(test_start) + build_test_seconds;
  const LabelErrors trained = labelErrors(train_list, model.w);
  result.test_error = tested.rate();
  result.train_error = trained.rate();
  result.train_words = train.size();
  result.test_words = test.size();
  result.train_letters = trained.total;
  result.test_letters = tested.total;
  return result;
}

}  // namespace mmp::tools
