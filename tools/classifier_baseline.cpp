#include "classifier_baseline.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/multiclass.hpp>
#include <mmp/learners/batch_subgradient.hpp>

#include <cmath>
#include <memory>
#include <random>

namespace mmp::tools {

LinearClassifier trainPreferredClassifier(const std::vector<const Region*>& regions, int preferred,
                                          const ClassifierSettings& settings, int threads) {
  // Every labelled cell as (region, cell), split by class.
  std::vector<std::pair<const Region*, int>> positive, negative;
  for (const Region* region : regions) {
    if (region->cell_labels.empty() || !region->map) continue;
    for (int s = 0; s < region->cells(); ++s) {
      (region->cell_labels[static_cast<std::size_t>(s)] == preferred ? positive : negative).push_back({region, s});
    }
  }
  if (positive.empty() || negative.empty()) {
    throw DataError("classifier baseline: the training labels hold no cell " +
                    std::string(positive.empty() ? "of" : "outside") + " the preferred class");
  }
  std::mt19937_64 rng(settings.seed);
  std::vector<std::unique_ptr<MulticlassExample>> examples;
  const int d = regions.front()->map->features();
  auto draw = [&](const std::vector<std::pair<const Region*, int>>& pool, int label, int count) {
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    for (int i = 0; i < count; ++i) {
      const auto& [region, cell] = pool[pick(rng)];
      const Eigen::VectorXd x = region->map->cellVector(cell).cast<double>();
      examples.push_back(std::make_unique<MulticlassExample>(x, label, 2));
    }
  };
  draw(positive, 1, settings.samples / 2);
  draw(negative, 0, settings.samples - settings.samples / 2);
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

  LinearClassifier classifier;
  classifier.direction = w.segment(d, d) - w.segment(0, d);
  classifier.samples = static_cast<int>(examples.size());
  int correct = 0;
  for (const auto& e : examples) correct += e->predict(w) == e->label();
  classifier.training_accuracy = static_cast<double>(correct) / static_cast<double>(examples.size());
  return classifier;
}

std::vector<double> classifierCosts(const FeatureMap& map, const LinearClassifier& classifier, double cost_scale) {
  if (classifier.direction.size() != map.features()) {
    throw InvalidArgument("classifier baseline: the classifier has " + std::to_string(classifier.direction.size()) +
                          " weights for a map of " + std::to_string(map.features()) + " features");
  }
  std::vector<double> costs(static_cast<std::size_t>(map.cells()));
  for (int s = 0; s < map.cells(); ++s) {
    const double score = classifier.direction.dot(map.cellVector(s).cast<double>());
    const double p = 1.0 / (1.0 + std::exp(-score));
    costs[static_cast<std::size_t>(s)] = 1.0 + cost_scale * (1.0 - p);
  }
  return costs;
}

}  // namespace mmp::tools
