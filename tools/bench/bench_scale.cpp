// bench_scale: how mmp scales with image size and training data (a benchmark, not a test).
//
//   1. training: follow_road (configs/follow_road.yaml with the --set overrides below, no `select:`)
//      on every shared Dubai part outside the tiles its holdout list names; seconds to load the
//      images and to train (train_all_s).  Then the same config as shipped, selection included:
//      `mmp train CONFIG` as a child process, wall seconds and peak RSS (train_select_s).
//   2. feature bytes per cell of the trained model's maps.
//   3. an epoch on tile 8_004 (its generated demonstrations): the online learner for --epochs
//      epochs on that part alone (epoch_tile8_s; tile 8 is a holdout tile of the shipped configs,
//      so this part trains alone with no holdout), one pass of loss-augmented oracle calls over its
//      examples, and an oracle call's parts: the whole call (the map scored anew, and again reusing
//      the thread's scores of the same map and w), the loss-augmented cell costs, the A* search, at
//      the trained weights (oracle_*) and, as exponential costs exp(k w . f - l), with k raised
//      until the costs span 4e8 : 1 (oracle_wide_*: the regime of issue 28's first figures).
//   4. cost maps: `mmp costmap` (the real command, as a child process) with the trained model on
//      tile 8_004 (3.2 Mpx) and on a 60 Mpx image made by upscaling it with OpenCV (deleted
//      afterwards): wall seconds, Mpx/s and the child's peak RSS, side by side.
// Prints a table and, last, one JSON line.
#include <mmp/learners/learner.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/maps/imagery.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path_example.hpp>

#include <CLI/CLI.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <spawn.h>
#include <string>
#include <tuple>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using mmp::secondsSince;  // learners/learner.hpp


struct ChildRun {
  double seconds = 0.0;
  double peak_rss_mb = 0.0;
};

// Runs commands for main and reports their wall time and peak RSS.  It is forked before main loads
// anything: a child's peak RSS counts the memory of the process that spawned it (until the exec), so
// spawning from main after training would report main's size.
class Launcher {
 public:
  Launcher() {
    if (pipe(to_) != 0 || pipe(from_) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) serve();
  }
  ~Launcher() {
    close(to_[1]);
    waitpid(pid_, nullptr, 0);
  }

  /// Runs args (args[0] a path) with stdout discarded and stderr to `log` (kept if empty); throws if
  /// it fails.
  ChildRun run(const std::vector<std::string>& args, const std::string& log = "") {
    std::string request = log + '\0';
    for (const std::string& a : args) request += a + '\0';
    const std::uint64_t size = request.size();
    if (write(to_[1], &size, sizeof size) != sizeof size || write(to_[1], request.data(), size) != static_cast<ssize_t>(size)) {
      throw std::runtime_error("launcher: write failed");
    }
    double reply[3] = {};
    if (read(from_[0], reply, sizeof reply) != sizeof reply || reply[2] != 0.0) {
      throw std::runtime_error(args[0] + " " + args[1] + " failed" + (log.empty() ? "" : " (its messages: " + log + ")"));
    }
    return {reply[0], reply[1]};
  }

 private:
  [[noreturn]] void serve() {
    close(to_[1]);
    std::uint64_t size = 0;
    while (read(to_[0], &size, sizeof size) == sizeof size) {
      std::string request(size, '\0');
      if (read(to_[0], request.data(), size) != static_cast<ssize_t>(size)) break;
      const std::string log = request.c_str();
      std::vector<char*> argv;
      for (std::size_t i = log.size() + 1; i < request.size(); i += std::strlen(&request[i]) + 1) argv.push_back(&request[i]);
      argv.push_back(nullptr);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
      if (!log.empty()) posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const auto t0 = Clock::now();
      pid_t pid = 0;
      int status = 1;
      rusage usage{};
      if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) wait4(pid, &status, 0, &usage);
      posix_spawn_file_actions_destroy(&actions);
      const double reply[3] = {secondsSince(t0), static_cast<double>(usage.ru_maxrss) / 1024.0,  // kB on Linux
                               WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0.0 : 1.0};
      if (write(from_[1], reply, sizeof reply) != sizeof reply) break;
    }
    _exit(0);
  }

  int to_[2] = {-1, -1}, from_[2] = {-1, -1};
  pid_t pid_ = -1;
};

// The tile number of a Dubai part's file name ("tile8_image_part_004.jpg" -> 8), or -1.
int tileOf(const std::string& path) {
  static const std::regex pattern(R"(tile(\d+)_image_part_\d+)");
  std::smatch m;
  const std::string name = fs::path(path).filename().string();
  return std::regex_search(name, m, pattern) ? std::stoi(m[1]) : -1;
}

// The widest cost range the bench's second oracle measurement scales the weights to (issue 28's
// figure for follow_road's trained model on tile 8_004).
constexpr double kWideRange = 4e8;

struct OracleTimes {
  double call_ms = 0.0, reuse_call_ms = 0.0, costs_ms = 0.0, search_ms = 0.0, expansions = 0.0, range = 0.0;
};

// The widest range of passable loss-augmented costs, max / min, over the examples.
double costRange(const std::vector<mmp::PathExample>& examples, const Eigen::VectorXd& w) {
  double range = 0.0;
  std::vector<double> costs;
  for (const mmp::PathExample& example : examples) {
    example.augmentedCosts(w, 1.0, costs);
    double lowest = INFINITY, highest = 0.0;
    for (double c : costs) {
      if (std::isfinite(c)) lowest = std::min(lowest, c), highest = std::max(highest, c);
    }
    range = std::max(range, highest / lowest);
  }
  return range;
}

// Scores a one-by-two map on this thread, so that the next call on a real map scores that map anew
// (PathExample reuses a thread's last scores of the same map and weights).
void forgetScores() {
  static const auto map = std::make_shared<const mmp::FeatureMap>(1, 2, 1, std::vector<float>{1.0f, 1.0f});
  static const mmp::PathExample tiny(map, {0, 1}, mmp::PathExample::Params{});
  std::vector<double> costs;
  tiny.augmentedCosts(Eigen::VectorXd::Ones(1), 0.0, costs);
}

// Loss-augmented oracle calls on every example, `repeats` times each (the median of the repeats'
// means): the whole call (PathExample::solve) with the map scored anew, as each call of a step is on
// two threads; the same call again, reusing the scores this thread just made, as an online step's
// second call is on one thread (selection's folds); then the call's parts on their own -- the
// loss-augmented cell costs (scored anew) and the A* search on them.
OracleTimes timeOracle(const std::vector<mmp::PathExample>& examples, const Eigen::VectorXd& w, int repeats) {
  std::vector<double> call, reuse_call, costs_part, search;
  OracleTimes times;
  mmp::GridPlanner planner(examples.front().map().rows(), examples.front().map().cols());
  std::vector<double> costs;
  mmp::OracleResult result;
  const double n = static_cast<double>(examples.size());
  for (int repeat = 0; repeat < repeats; ++repeat) {
    double solve_s = 0.0, reuse_s = 0.0, costs_s = 0.0, search_s = 0.0;
    times.expansions = 0.0;
    for (const mmp::PathExample& example : examples) {
      forgetScores();
      auto t = Clock::now();
      example.solve(w, 1.0, result);
      solve_s += secondsSince(t);
      t = Clock::now();
      example.solve(w, 1.0, result);
      reuse_s += secondsSince(t);
      forgetScores();
      t = Clock::now();
      example.augmentedCosts(w, 1.0, costs);
      costs_s += secondsSince(t);
      t = Clock::now();
      const mmp::PlanResult plan = planner.plan(costs, example.start(), example.goal());
      search_s += secondsSince(t);
      times.expansions += static_cast<double>(plan.expansions) / n;
    }
    call.push_back(1e3 * solve_s / n);
    reuse_call.push_back(1e3 * reuse_s / n);
    if (repeat == 0) times.range = costRange(examples, w);
    costs_part.push_back(1e3 * costs_s / n);
    search.push_back(1e3 * search_s / n);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  times.call_ms = median(call);
  times.reuse_call_ms = median(reuse_call);
  times.costs_ms = median(costs_part);
  times.search_ms = median(search);
  return times;
}

void printOracle(const std::string& title, const OracleTimes& t, mmp::tools::Json& line, const std::string& key) {
  std::printf("%-44s %12.1f\n", (title + " ms").c_str(), t.call_ms);
  std::printf("%-44s %12.1f\n", "  the same call reusing its scores ms", t.reuse_call_ms);
  std::printf("%-44s %12.1f\n", "  of which loss-augmented cell costs ms", t.costs_ms);
  std::printf("%-44s %12.1f\n", "  of which A* ms", t.search_ms);
  std::printf("%-44s %12.0f\n", "  A* expansions per call", t.expansions);
  std::printf("%-44s %12.3g\n", "  widest passable cost range (max / min)", t.range);
  line[key + "_call_ms"] = t.call_ms;
  line[key + "_reuse_call_ms"] = t.reuse_call_ms;
  line[key + "_costs_ms"] = t.costs_ms;
  line[key + "_search_ms"] = t.search_ms;
  line[key + "_expansions"] = t.expansions;
  line[key + "_cost_range"] = t.range;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_scale: feature bytes, tiled cost maps, training epochs and whole-data training of mmp"};
  std::string config_path = "configs/follow_road.yaml", data_root, workdir;
  int epoch_passes = 5, oracle_repeats = 15;
  bool skip_training = false, skip_selection = false, skip_costmaps = false;
  // The settings follow_road's selection chooses (docs/scale.md: online learning, linear costs,
  // lambda 0.03, loss scale 1), which the shipped config leaves to `select:` and this bench does not run.
  std::vector<std::string> overrides = {"learner.costs=linear", "learner.online.lambda=0.03", "loss.scale=1"};
  app.add_option("--config", config_path, "the follow_road config")->capture_default_str();
  app.add_option("--data-root", data_root, "folder holding aerial/dubai_hitl (default: the config's)");
  app.add_option("--epochs", epoch_passes, "online epochs timed on tile 8_004")->capture_default_str();
  app.add_option("--oracle-repeats", oracle_repeats, "passes of oracle calls timed (the median is reported)")->capture_default_str();
  app.add_option("--workdir", workdir, "scratch folder (default: a new one under the system temp folder)");
  app.add_option("--set", overrides, "KEY=VALUE config overrides, as mmp train --set (replace the defaults)")->capture_default_str();
  app.add_flag("--skip-training", skip_training, "skip the whole-data training (cost maps use a model of tile 8_004)");
  app.add_flag("--skip-selection", skip_selection, "skip `mmp train CONFIG` with its selection (about 5 minutes on 2 cores)");
  app.add_flag("--skip-costmaps", skip_costmaps, "skip the cost maps (measure 4), e.g. to count an oracle call's instructions under callgrind");
  CLI11_PARSE(app, argc, argv);
  try {
    Launcher launcher;
    const fs::path mmp = fs::canonical("/proc/self/exe").parent_path() / "mmp";
    const bool own_workdir = workdir.empty();
    if (own_workdir) workdir = (fs::temp_directory_path() / ("mmp_bench_scale_" + std::to_string(getpid()))).string();
    fs::create_directories(workdir);
    mmp::tools::TrainConfig config = mmp::tools::loadTrainConfig(config_path, data_root, "", overrides);
    config.classifier.enabled = false;  // the baseline is not part of training

    // The tile 8_004 part (the config trains on it) and every part outside the holdout tiles.
    const fs::path images = fs::path(config.data_root) / "aerial/dubai_hitl/images";
    const fs::path labels = fs::path(config.data_root) / "aerial/dubai_hitl/labels_index";
    std::set<int> holdout_tiles;
    for (const mmp::RegionSpec& h : config.holdout) holdout_tiles.insert(tileOf(h.image));
    std::vector<mmp::RegionSpec> parts;
    mmp::RegionSpec tile8;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(images)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      mmp::RegionSpec r;
      r.name = file.stem().string();
      r.where = "train";
      r.image = file.string();
      r.labels = (labels / (r.name + ".png")).string();
      if (r.name == "tile8_image_part_004") tile8 = r;
      if (holdout_tiles.count(tileOf(r.image)) == 0) parts.push_back(r);
    }
    if (tile8.image.empty()) throw std::runtime_error("tile8_image_part_004.jpg is not in " + images.string());

    std::printf("%-44s %12s\n", "measure", "value");
    mmp::tools::Json line;

    // 1-2. Whole-data training.
    std::string model_path = (fs::path(workdir) / "model.mmp").string();
    if (!skip_training) {
      mmp::PipelineSettings all = config;
      all.train = parts;
      auto t0 = Clock::now();
      const mmp::TrainingData data = mmp::loadTrainingData(all);
      const double load_s = secondsSince(t0);
      t0 = Clock::now();
      const mmp::TrainedCostModel trained = mmp::train(data, all);
      const double train_s = secondsSince(t0);
      trained.model.save(model_path);
      std::string tiles;
      for (int t : holdout_tiles) tiles += (tiles.empty() ? "" : ",") + std::to_string(t);
      std::printf("%-44s %12zu\n", ("training parts (all but tiles " + tiles + ")").c_str(), parts.size());
      std::printf("%-44s %12d\n", "training demonstrations", trained.report.examples);
      std::printf("%-44s %12.1f\n", "load + features s", load_s);
      std::printf("%-44s %12.1f\n", "training s", train_s);
      std::printf("%-44s %12.1f\n", "train_all s (load + training)", load_s + train_s);
      std::printf("%-44s %12zu\n", "feature bytes per cell", data.regions[0].map->bytesPerCell());
      line["bytes_per_cell"] = data.regions[0].map->bytesPerCell();
      line["train_parts"] = parts.size();
      line["train_all_s"] = load_s + train_s;
    }

    // 1b. The config as shipped, selection included, as a user runs it.
    if (!skip_selection) {
      const std::string out = (fs::path(workdir) / "select_run").string();
      std::vector<std::string> args = {mmp.string(), "train", config_path, "--output-dir", out};
      if (!data_root.empty()) args.insert(args.end(), {"--data-root", data_root});
      const std::string log = (fs::path(workdir) / "select_run.log").string();
      const ChildRun run = launcher.run(args, log);
      std::printf("%-44s %12.1f\n", "mmp train CONFIG (selection included) s", run.seconds);
      std::printf("%-44s %12.0f\n", "  peak RSS MB", run.peak_rss_mb);
      line["train_select_s"] = run.seconds;
      line["train_select_rss_mb"] = run.peak_rss_mb;
      fs::remove_all(out);
      fs::remove(log);
    }

    // 3. Epochs on tile 8_004 alone.
    {
      // Tile 8 is a holdout tile of the shipped configs: this part trains alone here, and nothing is
      // scored on the holdout, so the holdout list goes (a holdout area must not be trained on).
      mmp::PipelineSettings one = config;
      one.train = {tile8};
      one.holdout.clear();
      one.learner.setPasses(epoch_passes);
      const mmp::TrainingData data = mmp::loadTrainingData(one);
      const mmp::TrainedCostModel trained = mmp::train(data, one);
      std::printf("%-44s %12d\n", "tile 8_004 demonstrations", trained.report.examples);
      std::printf("  learner: %s (%ld epochs)\n", trained.report.info.c_str(), trained.report.passes);
      std::printf("%-44s %12.3f\n", (std::string("tile 8_004 epoch s (") + mmp::describe(one.learner.kind) + ")").c_str(),
                  trained.report.epoch_seconds);
      std::printf("%-44s %12.3f\n", "tile 8_004 oracle pass s", trained.report.largest_epoch_seconds);
      line["epoch_tile8_s"] = trained.report.epoch_seconds;
      line["oracle_pass_tile8_s"] = trained.report.largest_epoch_seconds;
      if (!line.contains("bytes_per_cell")) line["bytes_per_cell"] = data.regions[0].map->bytesPerCell();
      // Where an oracle call's time goes: at the trained weights, and on exponential costs
      // exp(k w . f - l) with k raised until they span kWideRange : 1 (scaling k raises an
      // exponential range to the power k), the regime in which the open list cannot use its ring.
      const mmp::Region& region = data.regions[0];
      mmp::PathExample::Params params = mmp::exampleParams(one);
      params.loss_weights = mmp::classLossWeights(region, one);
      std::vector<mmp::PathExample> examples, exponential;
      for (const std::vector<int>& demo : region.demonstrations) examples.emplace_back(region.map, demo, params);
      params.cost_form = mmp::CostForm::Exponential;
      for (const std::vector<int>& demo : region.demonstrations) exponential.emplace_back(region.map, demo, params);
      const Eigen::VectorXd& w = trained.model.weights();
      printOracle("oracle call at the trained weights", timeOracle(examples, w, oracle_repeats), line, "oracle");
      // The loss discount does not scale with k: a few secant steps on log range against k.
      double k = 1.0, range = costRange(exponential, w);
      for (int step = 0; step < 6 && range > 1.0 && std::abs(std::log(range / kWideRange)) > 0.01; ++step) {
        k *= std::log(kWideRange) / std::log(range);
        range = costRange(exponential, k * w);
      }
      if (range > 1.0) {
        printOracle("oracle call, exp(" + std::to_string(k).substr(0, 4) + " w.f - l) (wide range)",
                    timeOracle(exponential, k * w, oracle_repeats), line, "oracle_wide");
      }
      std::printf("%-44s %12d\n", "  cells", region.map->cells());
      if (skip_training) trained.model.save(model_path);
    }

    // 4. Cost maps of a 3.2 Mpx and a 60 Mpx image.
    if (skip_costmaps) {
      fs::remove(model_path);
      if (own_workdir) fs::remove(workdir);
      std::printf("%s\n", mmp::tools::jsonText(line, -1).c_str());
      return 0;
    }
    const cv::Mat part = mmp::loadImage(tile8.image);
    const double factor = std::sqrt(60e6 / (static_cast<double>(part.rows) * part.cols));
    cv::Mat large;
    cv::resize(part, large, cv::Size(), factor, factor, cv::INTER_CUBIC);
    const std::string large_path = (fs::path(workdir) / "large.jpg").string();
    if (!cv::imwrite(large_path, large)) throw std::runtime_error("cannot write " + large_path);
    const double large_mpx = large.rows * static_cast<double>(large.cols) / 1e6;
    large.release();
    for (const auto& [key, image, mpx] : {std::tuple<std::string, std::string, double>{"3mpx", tile8.image, part.rows * static_cast<double>(part.cols) / 1e6},
                                         {"60mpx", large_path, large_mpx}}) {
      const ChildRun run = launcher.run({mmp.string(), "costmap", "--model", model_path, "--image", image, "--raw",
                                     (fs::path(workdir) / "costs.tiff").string()});
      std::printf("%-44s %12.2f\n", ("cost map " + key + " (" + std::to_string(mpx).substr(0, 5) + " Mpx) s").c_str(), run.seconds);
      std::printf("%-44s %12.1f\n", ("cost map " + key + " Mpx/s").c_str(), mpx / run.seconds);
      std::printf("%-44s %12.0f\n", ("cost map " + key + " peak RSS MB").c_str(), run.peak_rss_mb);
      line["costmap_" + key + "_s"] = run.seconds;
      line["costmap_" + key + "_mpx_per_s"] = mpx / run.seconds;
      line["costmap_" + key + "_rss_mb"] = run.peak_rss_mb;
    }
    for (const char* made : {"large.jpg", "costs.tiff", "model.mmp"}) fs::remove(fs::path(workdir) / made);
    if (own_workdir) fs::remove(workdir);
    std::printf("%s\n", mmp::tools::jsonText(line, -1).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_scale: %s\n", e.what());
    return 1;
  }
  return 0;
}
