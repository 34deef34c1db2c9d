// Trains a ranking SVM on a small generated problem with an installed mmp, saves and reloads the
// model, and exits non-zero unless the learned ranking is right on held-out pairs.  It also computes
// the feature stack of a generated aerial scene, so mmp::maps (and its OpenCV dependency) resolve.
#include <mmp/core/model_file.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/tasks/ranking.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <cstdio>
#include <memory>

int main() {
  mmp::Random rng(42);  // the same problem with every standard library
  const Eigen::Vector3d hidden(1.0, -2.0, 0.5);
  auto draw = [&] {
    const double x = rng.normal(), y = rng.normal(), z = rng.normal();
    return Eigen::Vector3d(x, y, z);
  };
  std::vector<std::unique_ptr<mmp::RankingPair>> pairs;
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> held_out;
  for (int i = 0; i < 400; ++i) {
    Eigen::Vector3d a = draw(), b = draw();
    if (hidden.dot(a) < hidden.dot(b)) std::swap(a, b);
    if (i < 300) pairs.push_back(std::make_unique<mmp::RankingPair>(a, b));
    else held_out.emplace_back(a, b);
  }
  mmp::ExampleList list;
  for (const auto& p : pairs) list.push_back(p.get());

  mmp::BatchSubgradient::Params params;
  params.lambda = 1e-3;
  params.steps = mmp::StepSchedule::gammaOverT(10.0);
  params.averaging = mmp::Averaging::Uniform;
  params.stop.max_iterations = 300;
  mmp::BatchSubgradient learner(params);
  mmp::Model model;
  model.weights = learner.train(list);
  model.settings["learner"] = "batch";
  const std::string path = "mmp_consumer_model.mmp";
  mmp::saveModel(path, model);
  const Eigen::VectorXd w = mmp::loadModel(path, 3).weights;
  std::remove(path.c_str());

  int correct = 0;
  for (const auto& [a, b] : held_out) correct += w.dot(a) > w.dot(b);
  const double accuracy = correct / static_cast<double>(held_out.size());
  std::printf("mmp consumer: objective %.4f, held-out ranking accuracy %.3f (%s)\n", learner.objective(), accuracy,
              mmp::describe(learner.info()).c_str());
  mmp::SyntheticSceneParams scene_params;
  scene_params.rows = scene_params.cols = 96;
  const mmp::RawFeatures raw = mmp::computeRawFeatures(mmp::makeSyntheticScene(scene_params).image, {});
  const mmp::FeatureMap map = mmp::FeatureStack::fit({}, {&raw}).map(raw);
  std::printf("mmp consumer: feature map of a generated scene, %d x %d cells x %d features\n", map.rows(), map.cols(),
              map.features());
  return accuracy >= 0.9 && map.cells() == 24 * 24 ? 0 : 1;
}
