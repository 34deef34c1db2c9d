#include "training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mmp;

namespace {

PipelineSettings networkSettings() {
  PipelineSettings config = test::syntheticSettings();
  config.train = {test::scene(1, 128), test::scene(2, 128)};
  config.train[1].area = "second";
  config.demonstrations.per_region = 6;
  config.learner.hypothesis = CostHypothesis::Network;
  NetworkTrainingSettings& n = config.learner.network;
  n.shape.channels = 6;
  n.shape.dilations = {1, 2, 4};
  n.epochs = 4;
  n.step = 1e-2;
  n.threads = 1;
  return config;
}

}  // namespace

// libtorch is loaded from libmmp_torch.so on the first network trained (network_torch_module.hpp).  Under an
// address-space limit too tight for it, training says it needs more memory: libtorch's start-up would
// otherwise hang or abort the process.  In a child process, so that the limit binds nothing else.
TEST_CASE("network training loads libtorch on first use and under a tight address-space limit says it needs more memory") {
  if (!networkTrainingAvailable()) return;
  std::ifstream maps_file("/proc/self/maps");
  const std::string maps{std::istreambuf_iterator<char>(maps_file), std::istreambuf_iterator<char>()};
  if (maps.find("libtorch") != std::string::npos || maps.find("libmmp_torch") != std::string::npos) {
    MESSAGE("libtorch already loaded in this process (run this case alone, as CTest does): limit not checked");
    return;
  }
  const PipelineSettings config = networkSettings();
  const TrainingData data = loadTrainingData(config);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int status = 3;
    try {
      std::ifstream status_file("/proc/self/status");
      long long vm_kb = 0;
      for (std::string line; std::getline(status_file, line);) {
        if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stoll(line.substr(7));
      }
      const rlim_t limit = static_cast<rlim_t>(vm_kb + 128 * 1024) * 1024;  // 128 MiB to spare: not enough
      const rlimit tight{limit, limit};
      if (setrlimit(RLIMIT_AS, &tight) != 0) _exit(4);
      train(data, config);
      status = 1;  // trained: the limit was not checked
    } catch (const Error& e) {
      status = std::string(e.what()).find("needs more memory") != std::string::npos &&
                       std::string(e.what()).find("ulimit -v") != std::string::npos
                   ? 0
                   : 2;
    } catch (...) {
      status = 5;
    }
    _exit(status);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: trained anyway, 2: another error, 5: not an mmp::Error
  // Without the limit the same training loads the module and runs.
  const TrainedCostModel trained = train(data, config);
  CHECK(trained.report.hypothesis == CostHypothesis::Network);
}

TEST_CASE("network training: settings checked by name, the report and model describe the run") {
  PipelineSettings config = networkSettings();
  PipelineSettings bad = config;
  bad.source = "mine";
  bad.learner.network.step = 0.0;
  CHECK_THROWS_WITH_AS(validate(bad), doctest::Contains("mine: learner.network.step = 0 is out of range"), ConfigError);
  bad = config;
  bad.learner.network.shape.dilations = {1, 0};
  CHECK_THROWS_WITH_AS(validate(bad), doctest::Contains("learner.network.dilations"), ConfigError);
  if (!networkTrainingAvailable()) {
    CHECK_THROWS_WITH_AS(train(loadTrainingData(config), config), doctest::Contains("no libtorch"), Error);
    return;
  }
  const TrainingData data = loadTrainingData(config);
  const TrainedCostModel trained = train(data, config);
  const TrainingReport& report = trained.report;
  CHECK(report.hypothesis == CostHypothesis::Network);
  CHECK(report.pass_name == "epoch");
  CHECK(report.examples == 12);
  CHECK(trained.model.form() == CostForm::Exponential);
  CHECK(trained.model.weights().isZero());  // the network alone
  CHECK(trained.model.network().shape().channels == 6);
  CHECK(trained.model.info().at("learner") == "network");
  CHECK(trained.model.info().at("network_validation_area") == "second");  // early stopping's area
  CHECK(report.info.find("kept epoch") != std::string::npos);
  CHECK(report.cost_range[0] > 0.0);
  CHECK(report.cost_range[1] < std::exp(NetworkShape::kBound));
  CHECK(std::isfinite(report.training_loss));
}

TEST_CASE("network training follows the demonstrations: the left-out area's margin violation falls, the costs gain contrast") {
  if (!networkTrainingAvailable()) return;
  PipelineSettings config = networkSettings();
  config.train = {test::scene(1, 128), test::scene(2, 128), test::scene(5, 128)};
  config.train[2].area = "left-out";
  config.demonstrations.per_region = 10;
  config.learner.network.epochs = 12;
  config.learner.network.early_stopping = true;
  config.learner.network.patience = 100;
  const TrainingData data = loadTrainingData(config);
  std::vector<NetworkEpoch> epochs;
  NetworkTrainingSettings settings = config.learner.network;
  // Through the library call directly, to see every epoch's validation loss.
  std::vector<std::unique_ptr<PathExample>> examples;
  std::vector<NetworkImage> images;
  for (const Region& r : data.regions) {
    NetworkImage image;
    image.name = r.spec.name;
    image.rows = r.rows();
    image.cols = r.cols();
    image.inputs = networkInputs(r.image, config.features.cell_size, colourStatistics(r.image));
    image.linear.assign(static_cast<std::size_t>(r.cells()), 0.0);
    image.validation = r.spec.area == "left-out";
    for (const std::vector<int>& demo : r.demonstrations) {
      examples.push_back(std::make_unique<PathExample>(r.map, demo, exampleParams(config)));
      image.examples.push_back(examples.back().get());
    }
    images.push_back(std::move(image));
  }
  const NetworkResult result = trainNetwork(images, settings, 0, [&](const NetworkEpoch& e) {
    epochs.push_back(e);
    return true;
  });
  REQUIRE(epochs.size() == 13);
  double best = epochs[0].validation_loss;
  for (const NetworkEpoch& e : epochs) best = std::min(best, e.validation_loss);
  CAPTURE(epochs[0].validation_loss);
  CAPTURE(best);
  CHECK(best < 0.9 * epochs[0].validation_loss);  // from uniform costs' (the output layer starts at 0)
  CHECK(epochs[result.kept_epochs[0]].validation_loss == best);
  // The report says when the best epoch was the last one: more epochs might have fitted better.
  const bool kept_last = result.kept_epochs[0] == settings.epochs;
  CHECK((result.message.find("the last: the validation loss was still falling") != std::string::npos) == kept_last);
  // The same run stopped at the first epoch that beat every earlier one: its best epoch is its last,
  // and it says so.
  int record = 1;
  while (epochs[static_cast<std::size_t>(record)].validation_loss >=
         std::min_element(epochs.begin(), epochs.begin() + record, [](const NetworkEpoch& a, const NetworkEpoch& b) {
           return a.validation_loss < b.validation_loss;
         })->validation_loss) {
    ++record;  // ends: some epoch is the best (checked above)
  }
  NetworkTrainingSettings shorter = settings;
  shorter.epochs = record;
  const NetworkResult short_run = trainNetwork(images, shorter, 0, {});
  CHECK(short_run.kept_epochs[0] == record);
  CHECK(short_run.message.find("the last: the validation loss was still falling") != std::string::npos);
  std::vector<double> log_costs;
  result.network.logCosts(images[0].inputs, images[0].rows, images[0].cols, log_costs);
  const auto [lowest, highest] = std::minmax_element(log_costs.begin(), log_costs.end());
  CHECK(*highest - *lowest > std::log(2.0));  // a map with contrast, not a constant

  // The C++ forward pass of the returned network is libtorch's, to float rounding.
  const NetworkImage& image = images[0];
  std::vector<double> ours;
  result.network.logCosts(image.inputs, image.rows, image.cols, ours);
  const std::vector<double> theirs = torchLogCosts(result.network, image.inputs, image.rows, image.cols);
  REQUIRE(ours.size() == theirs.size());
  double worst = 0.0;
  for (std::size_t s = 0; s < ours.size(); ++s) worst = std::max(worst, std::abs(ours[s] - theirs[s]));
  CHECK(worst < 1e-4);
}

TEST_CASE("network training is reproducible bit for bit at a fixed thread count, with every option on") {
  if (!networkTrainingAvailable()) return;
  PipelineSettings config = networkSettings();
  config.learner.network.epochs = 2;
  config.learner.network.shape.members = 2;
  config.learner.network.shape.kappa = 0.5;
  config.learner.network.smoothing_samples = 2;
  config.learner.network.label_weight = 0.1;
  config.learner.network.features = true;
  config.learner.network.shape.skip = true;
  const TrainingData data = loadTrainingData(config);
  auto weights = [&](int threads) {
    PipelineSettings s = config;
    s.threads = threads;
    Model stored;
    train(data, s).model.network().store(stored);
    return stored.arrays;
  };
  const auto a = weights(1), b = weights(1);
  REQUIRE(a.size() == 2u * 2u * (3u + 2u));  // members x layers x (weights, bias)
  for (const auto& entry : a) {  // not a structured binding: Clang 14 cannot capture one
    const std::string& name = entry.first;
    const std::vector<double>& values = entry.second;
    CAPTURE(name);
    REQUIRE(b.at(name).size() == values.size());
    CHECK(std::memcmp(values.data(), b.at(name).data(), sizeof(double) * values.size()) == 0);
  }
}

TEST_CASE("a network that reads the stacked features (and with them skipping to its head): libtorch's forward pass, saved and loaded") {
  if (!networkTrainingAvailable()) return;
  for (const bool skip : {false, true}) {
    CAPTURE(skip);
    PipelineSettings config = networkSettings();
    config.learner.network.features = true;
    config.learner.network.shape.skip = skip;
    const TrainingData data = loadTrainingData(config);
    const TrainedCostModel trained = train(data, config);
    const CostNetwork& network = trained.model.network();
    REQUIRE(network.shape().feature_inputs == data.stack.channels());
    CHECK(network.shape().feature_inputs == data.regions[0].map->channels());
    const int inputs_planes = NetworkShape::kColourInputs + data.stack.channels();
    CHECK(network.members()[0][0].in == inputs_planes);
    CHECK(network.members()[0][3].in == 6 + (skip ? inputs_planes : 0));  // the first 1 x 1 layer
    CHECK(network.reachCells() == 7);                                      // a skip reads no further
    const cv::Mat& image = data.regions[0].image;
    const CostGrid grid = trained.model.costs(image);
    std::vector<float> inputs = networkInputs(image, config.features.cell_size, colourStatistics(image));
    appendFeatureInputs(*data.regions[0].map, inputs);
    std::vector<double> ours;
    network.logCosts(inputs, grid.rows, grid.cols, ours);
    for (std::size_t s = 0; s < ours.size(); ++s) CHECK(grid.costs[s] == doctest::Approx(std::exp(ours[s])).epsilon(1e-9));
    const std::vector<double> theirs = torchLogCosts(network, inputs, grid.rows, grid.cols);
    double worst = 0.0, spread = 0.0;
    for (std::size_t s = 0; s < ours.size(); ++s) {
      worst = std::max(worst, std::abs(ours[s] - theirs[s]));
      spread = std::max(spread, std::abs(ours[s] - ours[0]));
    }
    CHECK(worst < 1e-4);
    CHECK(spread > 0.0);  // it learned something: the comparison is not of two constants
    test::TempDir dir;
    trained.model.save(dir.file("features.mmp"));
    const CostModel loaded = CostModel::load(dir.file("features.mmp"));
    CHECK(loaded.network().shape().skip == skip);
    CHECK(loaded.costs(image).costs == grid.costs);
  }
}

TEST_CASE("the label-trained segmenter: class logits, the classifier baseline's cost assignment, saved and loaded") {
  if (!networkTrainingAvailable()) return;
  PipelineSettings config = networkSettings();
  config.learner.network.segmenter = true;
  config.classifier.cost_scales = {2, 30};
  const TrainingData data = loadTrainingData(config);
  const TrainedCostModel trained = train(data, config);
  const NetworkShape& shape = trained.model.network().shape();
  REQUIRE(shape.classes == static_cast<int>(config.classes.size()));
  CHECK(config.classes[static_cast<std::size_t>(shape.preferred)].index == config.behaviour.preferred);
  CHECK((shape.cost_scale == 2.0 || shape.cost_scale == 30.0));
  CHECK(trained.report.trace_value.find("cross-entropy") != std::string::npos);
  for (const auto& [key, value] : trained.model.summary()) {
    if (key == "cost") CHECK(value.find("(1 + " + numberText(shape.cost_scale) + " (1 - p(class") != std::string::npos);
  }
  const cv::Mat& image = data.regions[0].image;
  const CostGrid grid = trained.model.costs(image);
  for (double c : grid.costs) CHECK((c >= 1.0 && c <= 1.0 + shape.cost_scale));
  // libtorch's forward pass of the segmenter is the C++ one, to float rounding.
  std::vector<float> inputs = networkInputs(image, config.features.cell_size, colourStatistics(image));
  REQUIRE(shape.feature_inputs == data.stack.channels());  // the same eyes as the cost network's
  appendFeatureInputs(*data.regions[0].map, inputs);
  std::vector<double> ours;
  trained.model.network().logCosts(inputs, grid.rows, grid.cols, ours);
  const std::vector<double> theirs = torchLogCosts(trained.model.network(), inputs, grid.rows, grid.cols);
  for (std::size_t s = 0; s < ours.size(); ++s) CHECK(ours[s] == doctest::Approx(theirs[s]).epsilon(1e-4));
  test::TempDir dir;
  trained.model.save(dir.file("segmenter.mmp"));
  CHECK(CostModel::load(dir.file("segmenter.mmp")).costs(image).costs == grid.costs);
  PipelineSettings unlabelled = config;
  unlabelled.train[0].synthetic.reset();
  unlabelled.train[0].image = "somewhere.png";
  CHECK_THROWS_WITH_AS(validate(unlabelled), doctest::Contains("learner.network.segmenter"), ConfigError);
  PipelineSettings started = config;
  started.learner.network.from_linear = true;
  CHECK_THROWS_WITH_AS(validate(started), doctest::Contains("learner.network.start: must be uniform for a segmenter"), ConfigError);
}

TEST_CASE("network training by Maximum Entropy IRL: costs above the floor, a falling NLL, the floor saved and loaded") {
  PipelineSettings config = networkSettings();
  config.learner.objective = TrainingObjective::Likelihood;
  PipelineSettings bad = config;
  bad.learner.network.smoothing_samples = 2;
  CHECK_THROWS_WITH_AS(validate(bad), doctest::Contains("learner.network.smoothing_samples: must be 1 with objective maxent"),
                       ConfigError);
  bad = config;
  bad.learner.network.segmenter = true;
  CHECK_THROWS_WITH_AS(validate(bad), doctest::Contains("maxent does not apply to a segmenter"), ConfigError);
  NetworkTrainingSettings floorless = config.learner.network;
  floorless.objective = TrainingObjective::Likelihood;
  CHECK_THROWS_WITH_AS(floorless.validate(), doctest::Contains("network.cost_floor = 0 is out of range"), InvalidArgument);
  if (!networkTrainingAvailable()) return;
  config.learner.network.early_stopping = false;  // every epoch steps
  config.learner.network.epochs = 5;
  const TrainingData data = loadTrainingData(config);
  const TrainedCostModel trained = train(data, config);
  const TrainingReport& report = trained.report;
  const double floor = trained.model.network().shape().cost_floor;
  CHECK(floor == doctest::Approx(2.0 * kMaxEntSafeCost));
  CHECK(report.trace_value.find("MaxEnt objective") != std::string::npos);
  REQUIRE(report.trace.size() == 6u);  // epochs 0..4 step, epoch 5 is scored
  CAPTURE(report.trace.front().value);
  CAPTURE(report.trace[4].value);
  CHECK(report.trace[4].value < report.trace.front().value);  // the demonstrations grew likelier
  CHECK(report.cost_range[0] >= floor);
  CHECK(report.cost_range[1] > report.cost_range[0] + 0.01);  // not a constant
  const cv::Mat& image = data.regions[0].image;
  const CostGrid grid = trained.model.costs(image);
  for (double c : grid.costs) CHECK(c >= floor);
  CHECK(trained.model.costBounds()[0] >= floor);
  test::TempDir dir;
  trained.model.save(dir.file("maxent.mmp"));
  const CostModel loaded = CostModel::load(dir.file("maxent.mmp"));
  CHECK(loaded.network().shape().cost_floor == floor);
  CHECK(loaded.costs(image).costs == grid.costs);
}
