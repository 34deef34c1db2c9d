// `mmp ocr`: sequence labelling of Taskar's OCR words with the chain model (Viterbi, Hamming loss)
// over ten folds, as in sec. 6.1 of the subgradient paper.  Protocol "small" trains on fold k and
// tests on the other nine (the paper's 600 training words), "large" trains on the other nine and
// tests on fold k (5,500 training words).  Prints per-fold and mean letter error and seconds,
// writes results.json and error_per_epoch.png (training and test error per pass, Figure 1) to
// the config's output_dir.
#include "commands.hpp"
#include <mmp/frontend/config.hpp>
#include <mmp/frontend/default_config.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/ocr_experiment.hpp>
#include "output_folder.hpp"
#include "progress.hpp"

#include <mmp/core/file_io.hpp>
#include <mmp/maps/render.hpp>

#include <cstdio>
#include <memory>

namespace mmp::tools {
namespace {

struct OcrOptions {
  std::string config;  ///< empty: defaultConfigPath("ocr_small.yaml")
  std::string data_root;
  std::vector<double> lambdas;  ///< choose lambda by validation among these
  std::string output_dir;
  int folds = -1;  ///< run only the first N folds of the config
  bool choose_passes = false;
};

/// Mean over folds of the curve points that every fold has.
ErrorCurve meanCurve(const std::vector<OcrFoldResult>& folds) {
  ErrorCurve mean;
  if (folds.empty()) return mean;
  std::size_t points = folds[0].curve.passes.size();
  for (const auto& f : folds) points = std::min(points, f.curve.passes.size());
  for (std::size_t i = 0; i < points; ++i) {
    double train = 0.0, test = 0.0;
    for (const auto& f : folds) train += f.curve.train_error[i], test += f.curve.test_error[i];
    mean.passes.push_back(folds[0].curve.passes[i]);
    mean.train_error.push_back(train / static_cast<double>(folds.size()));
    mean.test_error.push_back(test / static_cast<double>(folds.size()));
  }
  return mean;
}

/// The held-out errors of every fold's validation split (inside its training words), averaged over
/// the folds: a steadier basis for fixing lambda and the pass count in a config than one fold's.
void printValidationSummary(const std::vector<OcrFoldResult>& results) {
  std::printf("\nheld-out letter error (validation split of the training words) averaged over the folds:\n");
  std::printf("%10s %12s %14s %14s\n", "lambda", "best passes", "mean held-out", "at last pass");
  for (std::size_t j = 0; j < results[0].validation.size(); ++j) {
    std::vector<double> sum;
    bool aligned = true;
    for (const auto& r : results) {
      const auto& v = r.validation.at(j);
      if (v.curve_error.empty()) {
        sum.resize(1, 0.0);
        sum[0] += v.error;
        continue;
      }
      if (sum.empty()) sum.assign(v.curve_error.size(), 0.0);
      aligned = aligned && v.curve_error.size() == sum.size();
      for (std::size_t i = 0; i < std::min(sum.size(), v.curve_error.size()); ++i) sum[i] += v.curve_error[i];
    }
    if (!aligned) continue;
    std::size_t best = 0;
    for (std::size_t i = 1; i < sum.size(); ++i) {
      if (sum[i] < sum[best]) best = i;
    }
    const double n = static_cast<double>(results.size());
    const auto& first = results[0].validation[j];
    const long passes = first.curve_passes.empty() ? first.passes : first.curve_passes[best];
    std::printf("%10.3g %12ld %14.4f %14.4f\n", first.lambda, passes, sum[best] / n, sum.back() / n);
  }
  std::printf("\n");
}

/// One fold of results.json: its sizes, figures and seconds, and its validation and curve if run.
Json foldJson(const OcrFoldResult& r, bool curve) {
  Json fold = {{"fold", r.fold},
               {"train_words", r.train_words},
               {"test_words", r.test_words},
               {"train_letters", r.train_letters},
               {"test_letters", r.test_letters},
               {"lambda", r.lambda},
               {"train_error", r.train_error},
               {"test_error", r.test_error},
               {"train_seconds", r.train_seconds},
               {"test_seconds", r.test_seconds},
               {"passes", r.passes},
               {"iterations", r.iterations},
               {"formulation", describe(r.formulation)},
               {"info", r.info}};
  for (const auto& v : r.validation) {
    fold["validation"].push_back({{"lambda", v.lambda},
                                  {"passes", v.passes},
                                  {"held_out_error", v.error},
                                  {"held_out_curve", {{"passes", v.curve_passes}, {"error", v.curve_error}}}});
  }
  if (curve) {
    fold["curve"] = {{"passes", r.curve.passes}, {"train_error", r.curve.train_error}, {"test_error", r.curve.test_error}};
  }
  return fold;
}

void runOcr(const OcrOptions& options) {
  const ConfigNode config = ConfigNode::load(options.config);
  config.expectKeys(ocrConfigKeys());
  const datasets::OcrProtocol protocol = datasets::parseOcrProtocol(config.choice("protocol", "small", {"small", "large"}));
  std::vector<long> folds = config.integers("folds", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 9);
  if (folds.empty()) config.fail("folds", "expected at least one fold");
  if (options.folds > 0 && options.folds < static_cast<int>(folds.size())) folds.resize(options.folds);
  const bool curve = config.boolean("curve", true);
  const int curve_points = static_cast<int>(config.integer("curve_points", 50, 1, 100000));
  OcrLearnerSettings settings = ocrLearnerSettings(config);
  if (!options.lambdas.empty()) settings.validation_lambdas = options.lambdas;
  if (options.choose_passes) settings.validation_passes = true;
  if (settings.validation_passes && settings.validation_lambdas.empty()) {
    settings.validation_lambdas = {settings.learner.lambda()};  // passes alone
  }
  const std::string output_dir =
      !options.output_dir.empty() ? options.output_dir : config.text("output_dir", "out/ocr_" + describe(protocol));
  const std::string path = datasets::locateOcrData(resolveDataRoot(options.data_root, config), options.config);
  OutputFolder output(output_dir);  // made now: a bad path fails before the folds run

  const datasets::OcrDataset data = datasets::readOcrDataset(path);
  std::printf("OCR words: %zu words, %zu letters read from %s in %.2f s\n", data.words.folds.size(), data.letters,
              path.c_str(), data.read_seconds);
  std::printf("chain model: 26 labels, 128 pixels + bias, transitions%s; %s\n",
              settings.start_end ? ", start and end weights" : "",
              settings.learner.objective == TrainingObjective::Likelihood
                  ? "CRF trained by conditional likelihood (forward-backward), Viterbi decoding"
                  : "Viterbi, Hamming loss per letter");
  std::printf("protocol %s (%s); %s\n\n", describe(protocol).c_str(),
              protocol == datasets::OcrProtocol::Small ? "train on fold k, test on the other nine"
                                             : "train on the other nine folds, test on fold k",
              settings.describe().c_str());

  std::printf("%4s %11s %10s %9s %6s %10s %9s %9s %8s  %s\n", "fold", "train words", "test words", "lambda", "passes",
              "train err", "test err", "train s", "test s", "info");
  std::vector<OcrFoldResult> results;
  double train_s = 0.0, test_s = 0.0, curve_s = 0.0, error_sum = 0.0;
  for (long k : folds) {
    Progress progress("fold " + std::to_string(k));
    progress.update(0, 1);
    results.push_back(runOcrFold(data.words, protocol, static_cast<int>(k), settings, curve ? curve_points : 0));
    progress.finish();
    const OcrFoldResult& r = results.back();
    std::printf("%4d %11zu %10zu %9.3g %6ld %10.4f %9.4f %9.2f %8.2f  %s\n", r.fold, r.train_words, r.test_words,
                r.lambda, r.passes, r.train_error, r.test_error, r.train_seconds, r.test_seconds, r.info.c_str());
    std::fflush(stdout);
    train_s += r.train_seconds, test_s += r.test_seconds, curve_s += r.curve_seconds, error_sum += r.test_error;
  }
  const double mean_error = error_sum / static_cast<double>(results.size());
  if (!results[0].validation.empty()) printValidationSummary(results);
  std::printf("mean test letter error %.4f over %zu folds; %.2f s training + %.2f s testing = %.2f s (one thread)\n",
              mean_error, results.size(), train_s, test_s, train_s + test_s);
  if (curve) std::printf("the error curves took another %.2f s (not counted above)\n", curve_s);

  Json json = {{"task", "ocr"},          {"protocol", describe(protocol)},  {"data", path},
               {"learner", settings.describe()}, {"mean_test_error", mean_error}, {"train_seconds", train_s},
               {"test_seconds", test_s},         {"threads", 1},                   {"folds", Json::array()}};
  for (const OcrFoldResult& r : results) json["folds"].push_back(foldJson(r, curve));
  writeFileAtomically(output.file("results.json"), jsonText(json, -1) + "\n");
  if (curve) {
    const ErrorCurve mean = meanCurve(results);
    const std::vector<double> x(mean.passes.begin(), mean.passes.end());
    const std::string unit = settings.learner.kind == LearnerKind::Online ? "epoch"
                             : settings.learner.kind == LearnerKind::Bcfw ? "pass"
                                                                         : "iteration";
    const ChartStyle style{"OCR " + describe(protocol) + " protocol, " + describe(settings.learner.kind) +
                               " learner: mean over " + std::to_string(results.size()) + " folds",
                           unit + " (one pass over the training words)", "letter error", 900, 560};
    writeImage(output.file("error_per_epoch.png"),
               lineChart({{"training error", x, mean.train_error, cv::Scalar(40, 160, 40)},
                          {"test error", x, mean.test_error, cv::Scalar(40, 40, 210)}},
                         style));
  }
  output.commit();
  std::printf("wrote %s: results.json%s\n", output.path().c_str(), curve ? " error_per_epoch.png" : "");
}

}  // namespace

void addOcrCommand(CLI::App& app) {
  auto options = std::make_shared<OcrOptions>();
  CLI::App* cmd = app.add_subcommand("ocr", "OCR word recognition with the chain model over ten folds (real data)");
  cmd->add_option("config,--config", options->config,
                  "YAML settings, configs/ocr_small.yaml or ocr_large.yaml (default: configs/ocr_small.yaml, else "
                  "<mmp's folder>/../share/mmp/configs/ocr_small.yaml)");
  cmd->add_option("--data-root", options->data_root, "folder holding ocr/letter.data.gz (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--lambdas", options->lambdas,
                  "choose lambda per fold among these (comma-separated) by letter error on held-out training words")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& item) {
            double value = 0.0;
            return CLI::detail::lexical_cast(item, value) && value > 0.0 ? std::string() : "'" + item + "' is not a number > 0";
          },
          "NUMBER > 0"));
  cmd->add_flag("--choose-passes", options->choose_passes,
               "with --lambdas: also choose the number of epochs/iterations on the held-out training words");
  cmd->add_option("--folds", options->folds, "run only the first N folds of the config (a quick look)");
  cmd->add_option("--output-dir", options->output_dir, "folder for results.json and error_per_epoch.png (default: the config's output_dir)");
  cmd->footer("Examples:\n  mmp ocr --folds 1\n  mmp ocr configs/ocr_large.yaml");
  cmd->callback([options] {
    if (options->config.empty()) options->config = defaultConfigPath("ocr_small.yaml", "--config", programFolder());
    runOcr(*options);
  });
}

}  // namespace mmp::tools
