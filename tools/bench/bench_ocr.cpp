// bench_ocr: OCR word recognition with our chain learners (online Greedy Projection and batch
// subgradient, settings from configs/ocr_small.yaml and configs/ocr_large.yaml) and, side by side
// in the same run, on the same features and folds, dlib's structural_sequence_labeling_trainer
// (a cutting-plane structural SVM; C = 100 by default).  A benchmark, not a test.
//
// Prints a table (per fold, then per protocol and method) and, last, one JSON line
//   {"small":{"ours_err":..,"ours_s":..,"dlib_err":..,"dlib_s":..},"large":{...},"threads":..}
// where "ours" is the config's learner and seconds are training + testing summed over the folds.
//
//   build/bin/bench_ocr [--folds N] [--threads T] [--protocols small,large] [--no-dlib]
#include <mmp/frontend/config.hpp>
#include "dlib_chain.hpp"
#include <mmp/frontend/default_config.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/core/error.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using namespace mmp;
using namespace mmp::tools;
using Clock = std::chrono::steady_clock;

struct Totals {
  double error_sum = 0.0, train_seconds = 0.0, test_seconds = 0.0;
  int folds = 0;
  void add(const MethodFold& f) {
    error_sum += f.error, train_seconds += f.train_seconds, test_seconds += f.test_seconds, ++folds;
  }
  double meanError() const { return folds ? error_sum / folds : 0.0; }
  double seconds() const { return train_seconds + test_seconds; }
};

std::string methodName(LearnerKind kind) { return kind == LearnerKind::Online ? "online GP" : "batch subgradient"; }

struct BenchOptions {
  std::string config_dir;  ///< empty: each config found by defaultConfigPath
  std::string data_root;
  int folds = 10;
  int threads = 2;
  std::string protocols = "small,large";
  bool no_dlib = false;
  double dlib_c = 100.0;
};

int runBench(const BenchOptions& options) {
  std::vector<std::string> protocols;
  {
    std::stringstream in(options.protocols);
    std::string p;
    while (std::getline(in, p, ',')) protocols.push_back(describe(datasets::parseOcrProtocol(p)));
  }
  const auto configPath = [&](const std::string& protocol) {
    return benchConfigPath(options.config_dir, "ocr_" + protocol + ".yaml");
  };
  // The data root of the first protocol's config (as `mmp ocr` would find it).
  const ConfigNode first = ConfigNode::load(configPath(protocols.at(0)));
  const std::string path = datasets::locateOcrData(resolveDataRoot(options.data_root, first), first.file());
  const datasets::OcrDataset data = datasets::readOcrDataset(path);
  std::printf("bench_ocr: %zu words, %zu letters from %s (read in %.2f s); %d fold(s) per protocol\n",
              data.words.folds.size(), data.letters, path.c_str(), data.read_seconds, options.folds);
  std::printf("ours: online GP on 1 thread, batch subgradient on %d thread(s); dlib: "
              "structural_sequence_labeling_trainer, C = %g, %d thread(s); same features (ChainLayout) and folds\n\n",
              options.threads, options.dlib_c, options.threads);

  std::map<std::string, std::map<std::string, Totals>> totals;
  std::map<std::string, LearnerKind> ours_kind;
  std::printf("%-8s %4s  %-30s %9s %9s %8s\n", "protocol", "fold", "method", "test err", "train s", "test s");
  for (const std::string& name : protocols) {
    const ConfigNode config = ConfigNode::load(configPath(name));
    config.expectKeys(ocrConfigKeys());
    const datasets::OcrProtocol protocol = datasets::parseOcrProtocol(name);
    if (config.choice("protocol", name, {"small", "large"}) != name) config.fail("protocol", "expected '" + name + "' in this file");
    OcrLearnerSettings ours = ocrLearnerSettings(config);
    if (ours.learner.kind != LearnerKind::Online && ours.learner.kind != LearnerKind::Batch) {
      config.fail("learner", "bench_ocr compares the online and the batch learner: choose one of those as ours");
    }
    ours_kind[name] = ours.learner.kind;
    ours.learner.batch.threads = options.threads;
    for (int k = 0; k < options.folds; ++k) {
      const auto row = [&](const std::string& method, const MethodFold& f) {
        totals[name][method].add(f);
        std::printf("%-8s %4d  %-30s %9.4f %9.2f %8.2f\n", name.c_str(), k, method.c_str(), f.error, f.train_seconds,
                    f.test_seconds);
        std::fflush(stdout);
      };
      for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch}) {
        OcrLearnerSettings s = ours;
        s.learner.kind = kind;  // beta by length follows each learner's q
        const OcrFoldResult r = runOcrFold(data.words, protocol, k, s);
        row(methodName(kind), {r.test_error, r.train_seconds, r.test_seconds});
      }
      if (!options.no_dlib) {
        row("dlib", runDlibFold(data.words, datasets::foldSplit(data.words.folds, protocol, k), ours.start_end,
                                options.dlib_c, options.threads));
      }
    }
  }

  std::printf("\n%-8s %-20s %5s %10s %9s %8s %9s\n", "protocol", "method", "folds", "mean err", "train s", "test s",
              "total s");
  for (const std::string& name : protocols) {
    for (const auto& [method, t] : totals[name]) {
      std::printf("%-8s %-20s %5d %10.4f %9.2f %8.2f %9.2f\n", name.c_str(), method.c_str(), t.folds, t.meanError(),
                  t.train_seconds, t.test_seconds, t.seconds());
    }
  }
  Json json = Json::object();
  for (const std::string& name : protocols) {
    const Totals& ours = totals[name][methodName(ours_kind[name])];
    Json protocol = {{"ours_err", ours.meanError()}, {"ours_s", ours.seconds()}};
    if (!options.no_dlib) {
      const Totals& dlib_totals = totals[name]["dlib"];
      protocol["dlib_err"] = dlib_totals.meanError();
      protocol["dlib_s"] = dlib_totals.seconds();
    }
    json[name] = std::move(protocol);
  }
  json["threads"] = options.threads;
  std::printf("\n%s\n", jsonText(json, -1).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_ocr: OCR chain learners against dlib's structural_sequence_labeling_trainer"};
  BenchOptions options;
  app.add_option("--folds", options.folds, "folds per protocol, 1..10 (fewer for a quick look)")
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  app.add_option("--threads", options.threads, "threads for dlib and for our batch learner (online GP uses 1)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--protocols", options.protocols, "comma-separated: small, large")->capture_default_str();
  app.add_option("--config-dir", options.config_dir,
                 "folder with ocr_small.yaml and ocr_large.yaml (default: configs, else "
                 "<bench_ocr's folder>/../share/mmp/configs)");
  app.add_option("--data-root", options.data_root, "folder holding ocr/letter.data.gz (default: $MMP_DATA_ROOT or the configs' data_root)");
  app.add_option("--dlib-c", options.dlib_c, "dlib's C (its objective is 1/2 |w|^2 + C/n sum of slacks)")->capture_default_str();
  app.add_flag("--no-dlib", options.no_dlib, "run only our learners");
  try {
    app.parse(argc, argv);
    return runBench(options);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const mmp::Error& e) {
    std::cerr << "bench_ocr: error: " << e.what() << "\n";
    return 1;
  }
}
