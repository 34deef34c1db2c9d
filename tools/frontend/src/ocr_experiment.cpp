#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/frontend/learner_config.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace mmp::tools {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<ChainExample> makeExamples(const datasets::OcrWords& words, const std::vector<std::size_t>& indices,
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

/// Appends the train and test letter errors of w at `pass` to `curve`.
CurveCallback curveOf(ErrorCurve& curve, const std::vector<const ChainExample*>& train,
                      const std::vector<const ChainExample*>& test) {
  return [&curve, &train, &test](long pass, const Eigen::VectorXd& w) {
    curve.passes.push_back(pass);
    curve.train_error.push_back(labelErrors(train, w).rate());
    curve.test_error.push_back(labelErrors(test, w).rate());
  };
}

ExampleList exampleList(const std::vector<ChainExample>& examples) {
  ExampleList list;
  list.reserve(examples.size());
  for (const auto& e : examples) list.push_back(&e);
  return list;
}

/*!
    Step 1 of runOcrFold: splits the fold's training words at random into a fit part and a held-out
    part (settings.validation_fraction of them) and chooses lambda (and passes) by the held-out
    letter error (chooseOnHeldOut, mmp/learners/model_selection.hpp); records each lambda's errors
    in `validation`.
!*/
OcrLearnerSettings chooseOnHeldOutWords(const datasets::OcrWords& words, std::vector<std::size_t> train, int k,
                                        const OcrLearnerSettings& settings,
                                        std::vector<LambdaValidation>& validation) {
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
  HeldOutParams params;
  params.lambdas = settings.validation_lambdas;
  params.choose_passes = settings.validation_passes;
  params.tolerance = settings.validation_tolerance;
  params.extend_at_edge = settings.validation_extend_at_edge;
  std::vector<FormulatedExample> adapters;
  HeldOutChoice choice = chooseOnHeldOut(
      settings.learner, formulate(exampleList(fit_examples), settings.formulation, adapters),
      [&check_list](const Eigen::VectorXd& w) { return labelErrors(check_list, w).rate(); }, params);
  validation = std::move(choice.per_lambda);
  OcrLearnerSettings chosen = settings;
  chosen.learner = choice.chosen;
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
  if (formulation != Formulation::Margin) s << ", " << mmp::describe(formulation) << " formulation";
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
                                                "batch", "cutting_plane", "bcfw", "lbfgs", "validation", "formulation",
                                                "objective"};
  return keys;
}

OcrLearnerSettings ocrLearnerSettings(const ConfigNode& config) {
  OcrLearnerSettings s;
  s.learner = learnerSettings(config, "learner", s.learner, {"cutting_plane", "bcfw", "lbfgs"});
  s.formulation = parseFormulation(
      config.choice("formulation", describe(s.formulation), {"margin", "slack", "slack_exact", "poslearn"}));
  if (s.learner.objective == TrainingObjective::Likelihood) {
    if (s.formulation != Formulation::Margin) {
      config.fail("formulation", "the likelihood objective (a CRF) has no formulation: leave it at margin, or use objective: margin");
    }
    if (s.learner.kind != LearnerKind::Online && s.learner.kind != LearnerKind::Batch &&
        s.learner.kind != LearnerKind::Lbfgs) {
      config.fail("learner", "the likelihood objective trains with online, batch or lbfgs; " + describe(s.learner.kind) +
                                 " trains the margin objective only");
    }
  } else if (s.learner.kind == LearnerKind::Lbfgs) {
    config.fail("learner", "lbfgs trains the likelihood objective only (a CRF): add objective: likelihood, or use "
                           "cutting_plane, bcfw, online or batch for the margin objective");
  }
  s.start_end = config.boolean("start_end", s.start_end);
  s.beta_by_length = config.choice("beta", s.beta_by_length ? "by_length" : "one", {"one", "by_length"}) == "by_length";
  const ConfigNode validation = config.child("validation");
  validation.expectKeys({"lambdas", "fraction", "seed", "choose_passes", "tolerance", "extend_at_edge"});
  s.validation_lambdas = validation.numbers("lambdas", {}, std::numeric_limits<double>::min(),
                                            std::numeric_limits<double>::infinity());
  s.validation_fraction = validation.number("fraction", s.validation_fraction, 0.01, 0.9);
  s.validation_seed = static_cast<std::uint64_t>(validation.integer("seed", static_cast<long>(s.validation_seed), 0));
  s.validation_passes = validation.boolean("choose_passes", s.validation_passes);
  s.validation_tolerance = validation.number("tolerance", s.validation_tolerance, 0.0, 1.0);
  s.validation_extend_at_edge = static_cast<int>(validation.integer("extend_at_edge", s.validation_extend_at_edge, 0, 10));
  return s;
}

OcrFoldResult runOcrFold(const datasets::OcrWords& words, datasets::OcrProtocol protocol, int k, const OcrLearnerSettings& settings,
                         int curve_points) {
  OcrFoldResult result;
  result.fold = k;
  const datasets::FoldSplit split = datasets::foldSplit(words.folds, protocol, k);
  if (split.train.empty() || split.test.empty()) {
    throw DataError("OCR fold " + std::to_string(k) + " of the " + describe(protocol) +
                    " protocol has no training or no test words");
  }
  const Clock::time_point train_start = Clock::now();
  // 1) lambda (and passes) by held-out letter error inside the training words, if asked (never the test fold)
  const OcrLearnerSettings chosen =
      settings.validation_lambdas.empty() ? settings
                                           : chooseOnHeldOutWords(words, split.train, k, settings, result.validation);
  result.validation_seconds = secondsSince(train_start);
  result.lambda = chosen.learner.lambda();

  // 2) train on all training words
  const std::vector<ChainExample> train = makeExamples(words, split.train, settings.chainOptions());
  const Clock::time_point build_test_start = Clock::now();  // building the test examples is testing time
  const std::vector<ChainExample> test = makeExamples(words, split.test, settings.chainOptions());
  const double build_test_seconds = secondsSince(build_test_start);
  const std::vector<const ChainExample*> train_list = pointers(train), test_list = pointers(test);
  std::vector<FormulatedExample> adapters;
  const TrainedWithCurve model = trainWithCurve(
      chosen.learner, formulate(exampleList(train), settings.formulation, adapters), curve_points,
      curve_points > 0 ? curveOf(result.curve, train_list, test_list) : CurveCallback());
  result.curve_seconds = model.curve_seconds;
  result.train_seconds = secondsSince(train_start) - model.curve_seconds - build_test_seconds;
  result.iterations = model.iterations;
  result.passes = model.passes;
  result.formulation = model.formulation;
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
