// `mmp multilabel --config configs/multilabel_yeast.yaml`: multilabel classification with the
// pairwise label model (seed 002, sec. 5) on the standard train/test split of Yeast or Scene: lambda
// chosen by cross-validation on the training rows, training by DLPW, online Greedy Projection or the
// batch learner, then test Hamming loss, subset error and seconds, written to results.json.
#include "commands.hpp"
#include <mmp/frontend/config.hpp>
#include <mmp/frontend/default_config.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/multilabel_experiment.hpp>
#include "progress.hpp"

#include <mmp/core/file_io.hpp>
#include "output_folder.hpp"

#include <cstdio>
#include <memory>

namespace mmp::tools {
namespace {

struct MultilabelCommandOptions {
  std::string config;
  std::string data_root;
  std::string output_dir;
};

// A data-set entry: {libsvm: FILE} or {arff: FILE, xml: FILE}, paths under the data root.
datasets::MultilabelTable readTable(const ConfigNode& entry, const std::string& root, int features, int labels) {
  entry.expectKeys({"libsvm", "arff", "xml"});
  const auto path = [&](const std::string& key) {
    const std::string relative = entry.text(key, "");
    return root.empty() || relative.front() == '/' ? relative : root + "/" + relative;
  };
  datasets::MultilabelTable table;
  if (entry.has("libsvm")) {
    if (entry.has("arff") || entry.has("xml")) entry.fail("libsvm", "give either libsvm or arff with xml, not both");
    table = datasets::readLibsvmMultilabel(path("libsvm"), features, labels);
  } else if (entry.has("arff")) {
    if (!entry.has("xml")) entry.fail("xml", "required with arff: the MULAN label file naming the label attributes");
    table = datasets::readMulanArff(path("arff"), path("xml"));
  } else {
    entry.fail("libsvm", "required: {libsvm: FILE} or {arff: FILE, xml: FILE}");
  }
  if ((labels > 0 && table.labels != labels) || (features > 0 && table.features != features)) {
    entry.fail(entry.has("arff") ? "arff" : "libsvm",
               table.source + " has " + std::to_string(table.labels) + " labels and " + std::to_string(table.features) +
                   " features; the config declares " + std::to_string(labels) + " and " + std::to_string(features));
  }
  return table;
}

void runMultilabelCommand(const MultilabelCommandOptions& options) {
  const ConfigNode config = ConfigNode::load(options.config);
  config.expectKeys({"data_root", "train", "test", "features", "labels", "graph", "inference", "learner", "validation",
                     "output_dir", "formulation"});
  const std::string root = resolveDataRoot(options.data_root, config);
  const int features = static_cast<int>(config.integer("features", 0, 0, 100000000));
  const int labels = static_cast<int>(config.integer("labels", 0, 0, 64));
  const MultilabelSettings settings = multilabelSettings(config);
  const std::string output_dir = !options.output_dir.empty() ? options.output_dir : config.text("output_dir", "out/multilabel");
  OutputFolder output(output_dir);

  const datasets::MultilabelTable train = readTable(config.child("train"), root, features, labels);
  const datasets::MultilabelTable test = readTable(config.child("test"), root, train.features, train.labels);
  std::printf("multilabel: %zu training and %zu test rows, %d features, %d labels (%s, %s)\n", train.size(), test.size(),
              train.features, train.labels, train.source.c_str(), test.source.c_str());
  std::printf("model: %s label graph, unary weights per label and feature (+ bias), pairwise per edge and state pair; "
              "%s inference; normalised Hamming loss\nlearner: %s, %s formulation\n",
              settings.graph.c_str(), settings.inference == MultilabelInference::Exact ? "exact (branch and bound)" : "LP relaxation (max-sum diffusion)",
              settings.learner.describe().c_str(), describe(settings.formulation).c_str());
  Progress progress("multilabel: ");
  const MultilabelResult r = runMultilabel(train, test, settings, [&](const std::string& stage) { progress.update(stage, 0, 0, ""); });
  progress.finish();
  Json validation_json = Json::array();
  if (!r.validation.empty()) {
    std::printf("\nlambda chosen by %d-fold cross-validation on the training rows (seed %llu):\n%10s %12s %12s %9s\n",
                settings.validation_folds, static_cast<unsigned long long>(settings.validation_seed), "lambda",
                "Hamming", "subset err", "seconds");
    for (const MultilabelValidation& v : r.validation) {
      std::printf("%10.3g %12.4f %12.4f %9.2f%s\n", v.lambda, v.held_out.hamming, v.held_out.subset, v.seconds,
                  v.lambda == r.lambda ? "  *" : "");
      validation_json.push_back({{"lambda", v.lambda}, {"hamming", v.held_out.hamming}, {"subset_error", v.held_out.subset},
                                 {"seconds", v.seconds}});
    }
  }
  std::printf("\n%-10s %10s %12s\n%-10s %10.4f %12.4f\n%-10s %10.4f %12.4f\n", "", "Hamming", "subset err", "train",
              r.train.hamming, r.train.subset, "test", r.test.hamming, r.test.subset);
  std::printf("lambda %g, %s formulation, %ld epochs/iterations, training %.2f s, testing %.2f s (%s)\n", r.lambda,
              describe(r.formulation).c_str(), r.passes, r.train_seconds, r.test_seconds, r.info.c_str());
  const Json json = {{"task", "multilabel"},
                     {"train", train.source},
                     {"test", test.source},
                     {"graph", settings.graph},
                     {"inference", settings.inference == MultilabelInference::Exact ? "exact" : "lp"},
                     {"learner", settings.learner.describe()},
                     {"formulation", describe(r.formulation)},
                     {"lambda", r.lambda},
                     {"validation", validation_json},
                     {"train_hamming", r.train.hamming},
                     {"train_subset_error", r.train.subset},
                     {"test_hamming", r.test.hamming},
                     {"test_subset_error", r.test.subset},
                     {"train_seconds", r.train_seconds},
                     {"test_seconds", r.test_seconds}};
  writeFileAtomically(output.file("results.json"), jsonText(json) + "\n");
  output.commit();
  std::printf("wrote %s: results.json\n", output.path().c_str());
}

}  // namespace

void addMultilabelCommand(CLI::App& app) {
  auto options = std::make_shared<MultilabelCommandOptions>();
  CLI::App* cmd = app.add_subcommand("multilabel", "Multilabel classification with a pairwise label model on Yeast or Scene (real data)");
  cmd->add_option("config,--config", options->config,
                  "YAML settings, configs/multilabel_yeast.yaml or multilabel_scene.yaml (default: configs/multilabel_yeast.yaml)");
  cmd->add_option("--data-root", options->data_root,
                  "folder holding multilabel/ (default: $MMP_DATA_ROOT or the config's data_root)");
  cmd->add_option("--output-dir", options->output_dir, "folder for results.json (default: the config's output_dir)");
  cmd->footer("Examples:\n  mmp multilabel\n  mmp multilabel configs/multilabel_scene.yaml");
  cmd->callback([options] {
    if (options->config.empty()) options->config = defaultConfigPath("multilabel_yeast.yaml", "--config", programFolder());
    runMultilabelCommand(*options);
  });
}

}  // namespace mmp::tools
