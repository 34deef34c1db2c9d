#include <mmp/maps/training/classifier_baseline.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/tasks/multiclass.hpp>
#include <mmp/core/random.hpp>
#include <mmp/learners/batch_subgradient.hpp>

#include <cmath>
#include <memory>

namespace mmp {

namespace {

using CellPool = std::vector<std::pair<const Region*, int>>;  // (region, cell) pairs of one label

// A K-class Crammer-Singer SVM (core's MulticlassExample) trained by the batch subgradient learner on
// draws[k] cells drawn (seeded, with replacement) from pools[k], labelled k, drawn from the last label
// to the first; a cell's input is its first d features.  Returns the K d weights.
Eigen::VectorXd trainCellSvm(const std::vector<CellPool>& pools, const std::vector<int>& draws, int d,
                             const ClassifierSettings& settings, int threads, double* training_accuracy) {
  Random rng(settings.seed);
  std::vector<std::unique_ptr<MulticlassExample>> examples;
  const int classes = static_cast<int>(pools.size());
  for (int label = classes - 1; label >= 0; --label) {
    const CellPool& pool = pools[static_cast<std::size_t>(label)];
    for (int i = 0; i < draws[static_cast<std::size_t>(label)]; ++i) {
      const auto& [region, cell] = pool[rng.below(pool.size())];
      const Eigen::VectorXd x = region->map->cellVector(cell).head(d).cast<double>();
      examples.push_back(std::make_unique<MulticlassExample>(x, label, classes));
    }
  }
  ExampleList list;
  for (const auto& e : examples) list.push_back(e.get());

  BatchSubgradient::Params params;
  params.lambda = settings.lambda;
  params.steps = StepSchedule::constant(settings.step_size);
  params.stop.max_iterations = settings.iterations;
  params.averaging = Averaging::Uniform;
  params.threads = threads;
  BatchSubgradient learner(params);
  const Eigen::VectorXd w = learner.train(list);
  int correct = 0;
  for (const auto& e : examples) correct += e->predict(w) == e->label();
  *training_accuracy = static_cast<double>(correct) / static_cast<double>(examples.size());
  return w;
}

}  // namespace

LinearClassifier trainPreferredClassifier(const std::vector<const Region*>& regions, int preferred, int features,
                                          const ClassifierSettings& settings, int threads) {
  std::vector<CellPool> pools(2);  // 0: other classes, 1: the preferred class
  for (const Region* region : regions) {
    if (region->cell_labels.empty() || !region->map) continue;
    for (int s = 0; s < region->cells(); ++s) {
      pools[region->cell_labels[static_cast<std::size_t>(s)] == preferred ? 1 : 0].push_back({region, s});
    }
  }
  if (pools[0].empty() || pools[1].empty()) {
    throw DataError("classifier baseline: the training labels hold no cell " +
                    std::string(pools[1].empty() ? "of" : "outside") + " the preferred class");
  }
  LinearClassifier classifier;
  const Eigen::VectorXd w =
      trainCellSvm(pools, {settings.samples - settings.samples / 2, settings.samples / 2}, features, settings, threads,
                   &classifier.training_accuracy);
  const Eigen::Index d = features;
  classifier.direction = w.segment(d, d) - w.segment(0, d);
  classifier.samples = settings.samples;
  return classifier;
}

ClassScorer trainClassScorer(const std::vector<const Region*>& regions, const std::vector<LabelClass>& classes,
                             const ClassifierSettings& settings, int threads) {
  std::vector<CellPool> pools(classes.size());
  for (const Region* region : regions) {
    if (region->cell_labels.empty() || !region->map) continue;
    for (int s = 0; s < region->cells(); ++s) {
      const int label = region->cell_labels[static_cast<std::size_t>(s)];
      for (std::size_t k = 0; k < classes.size(); ++k) {
        if (classes[k].index == label) pools[k].push_back({region, s});
      }
    }
  }
  ClassScorer scorer;
  std::vector<CellPool> present;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    if (pools[k].empty()) continue;
    scorer.classes.push_back(classes[k].name);
    present.push_back(std::move(pools[k]));
  }
  if (present.size() < 2) {
    throw DataError("features.class_scores: the training labels hold fewer than two of the declared classes");
  }
  const int per_class = std::max(1, settings.samples / static_cast<int>(present.size()));
  const int d = regions.front()->map->features();
  const Eigen::VectorXd w = trainCellSvm(present, std::vector<int>(present.size(), per_class), d, settings, threads,
                                         &scorer.training_accuracy);
  scorer.weights.resize(static_cast<Eigen::Index>(present.size()), d);
  for (Eigen::Index k = 0; k < scorer.weights.rows(); ++k) scorer.weights.row(k) = w.segment(k * d, d).transpose();
  return scorer;
}

std::vector<double> classifierCosts(const FeatureMap& map, const LinearClassifier& classifier, double cost_scale) {
  if (classifier.direction.size() > map.features()) {
    throw InvalidArgument("classifier baseline: the classifier has " + std::to_string(classifier.direction.size()) +
                          " weights for a map of " + std::to_string(map.features()) + " features");
  }
  std::vector<double> costs(static_cast<std::size_t>(map.cells()));
  for (int s = 0; s < map.cells(); ++s) {
    const double score = classifier.direction.dot(map.cellVector(s).head(classifier.direction.size()).cast<double>());
    const double p = 1.0 / (1.0 + std::exp(-score));
    costs[static_cast<std::size_t>(s)] = 1.0 + cost_scale * (1.0 - p);
  }
  return costs;
}

}  // namespace mmp
