// bench_adapt: teaching a shipped model on a new site, as a learning curve (docs/teaching.md).
//
// On the whole-area holdout of each behaviour's config (tiles 3 and 8, areas no shipped model was
// trained on), in one of two protocols: "beside" cuts every part into its left half, which gives
// demonstrations, and its right half, which is scored and never demonstrated on; "across" teaches on
// parts 1-3 of an area and scores its parts 4-9 whole.  For each area and seed, k demonstrations
// are drawn from a pool planned on the area's left halves (A* on the behaviour's true costs between
// seeded pairs), taught one at a time to the shipped model (CostModelTeacher), and the model after k is
// scored on the area's right halves as `mmp train` scores a holdout (cost ratio against the reference
// paths, feasible share).  Beside it, the same learner from scratch on the same k demonstrations
// (uniform costs as the parent) and uniform costs.  Intervals are 95 % paired bootstraps over the
// scored pairs of each pair's mean over seeds.  --references adds the reference methods trained on
// the training areas: "classifier", the per-pixel classifier baseline as `mmp train` builds it (its
// figures do not depend on k), and "batch", the model trained again by the shipped model's own
// procedure (its config with the values its selection chose, the model's "selected" info; no new
// selection) on the training areas plus the k demonstrations, at the k of --batch-ks.
// --demonstrations drawn replaces each planned demonstration by what a person would draw over it: its
// ends and four waypoints joined straight.  --marks N teaches N avoid marks on each teaching half's
// dearest passable class as the half is first used.  --site-images all gives the teacher the area's
// scored images as well (features only, no labels or paths), as the page holds every image it is
// given.  The "drift" column is the largest move of a class's mean cost relative to the preferred
// class's on the scored halves, adapted against the parent (0.2: 20 %); "warned" the share of runs
// whose k-th teaching step warned of ground it moved unshown (unshownMoves).  Prints a table and,
// last, one JSON line; --png draws the curves.
#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/train_config.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/maps/training/setting_keys.hpp>
#include <mmp/maps/training/settings_selection.hpp>
#include <mmp/planning/path.hpp>

#include <CLI/CLI.hpp>
#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <iostream>
#include <map>

using namespace mmp;
using tools::Json;
using tools::TrainConfig;
using tools::loadTrainConfig;

namespace {

struct Options {
  std::vector<std::string> behaviours{"follow_road", "hide_in_vegetation", "cross_country", "amphibious"};
  std::vector<int> ks{0, 1, 2, 3, 5, 10};
  int seeds = 5;
  int pool = 3;    ///< demonstrations planned on each left half
  int pairs = 10;  ///< scored pairs on each right half
  AdaptationSettings adapt;
  std::string configs = "configs", models = "models", data_root, png;
  bool suggest = false;  ///< also teach in the order mmp suggest asks for (k <= 5)
  bool held_out = false;  ///< at each scored k >= 2: the held-out demonstrations' verdict against the scored halves'
  SuggestionSettings suggestion;  ///< its rule and committee (--suggest-rule, --suggest-spread)
  std::string suggest_ground = "teaching";  ///< where "change" measures the cost change: teaching or scored images
  std::string areas = "holdout";  ///< "holdout": tiles 3 and 8, final figures; "train": the training areas, to choose settings
  std::string protocol = "beside";  ///< "beside" or "across"
  std::vector<std::string> references;  ///< "classifier", "batch": methods trained on the training areas
  std::vector<int> batch_ks{3, 10, 20};  ///< the k at which the batch retrain runs (each in ks)
  std::vector<double> lambdas;          ///< --areas left-out: the candidates (default: adapt.lambda)
  std::vector<std::string> folds;       ///< --areas left-out: the training areas left out (default: every one)
  bool scratch = true;                  ///< also the learner from scratch and uniform costs (off for --areas left-out)
  int marks = 0;                        ///< avoid marks per teaching half, on the behaviour's dearest passable class
  std::string demonstrations = "planned";  ///< "planned": A* on the true costs; "drawn": a few waypoints of it joined straight
  std::string site_images = "taught";   ///< "taught": the teacher holds the taught images; "all": the area's scored ones too
  bool wants(const std::string& reference) const {
    return std::find(references.begin(), references.end(), reference) != references.end();
  }
};

// The part's number within its area: 7 for tile3_image_part_007 (0 if the name has none).
int partNumber(const std::string& name) {
  const std::size_t at = name.find_last_of('_');
  return at == std::string::npos ? 0 : std::atoi(name.c_str() + at + 1);
}

// One part of an area: what gives demonstrations (its left half, or the whole part across: features
// and demonstration pool) and what is scored (its right half, or the whole part across).
struct Part {
  std::string area, name;
  std::shared_ptr<const FeatureMap> left;  ///< null: the part gives no demonstration
  std::shared_ptr<const Region> left_region;  ///< the same, as a region (image, labels, map), for the batch retrain
  std::vector<std::vector<int>> pool;
  std::vector<std::vector<int>> marks;  ///< avoid marks on the left half (--marks), taught when the half is first used
  HoldoutImage right;
  bool scored = false;
};

RegionSpec half(const RegionSpec& spec, const cv::Mat& image, const cv::Mat& labels, int x0, int x1, const char* side) {
  RegionSpec h;
  h.name = spec.name + "-" + side;
  h.where = spec.where + " (" + side + " half)";
  h.area = spec.areaName();
  h.pixels = image(cv::Rect(x0, 0, x1 - x0, image.rows)).clone();
  h.label_pixels = labels(cv::Rect(x0, 0, x1 - x0, labels.rows)).clone();
  return h;
}

// n avoid marks on a region: blobs of its dearest passable class (by the behaviour's true costs), each
// the class's cells within 5 cells of a seeded cell of it, off the demonstrations' cells -- what a
// user who knows the site would stroke over a lake or a roof.  Fewer if the class is small or absent.
std::vector<std::vector<int>> avoidMarks(const Region& region, int n, const std::vector<std::vector<int>>& pool, std::uint64_t seed) {
  double dearest = 0.0;
  for (const double c : region.true_costs) {
    if (std::isfinite(c)) dearest = std::max(dearest, c);
  }
  std::vector<char> demonstrated(region.true_costs.size(), 0);
  for (const std::vector<int>& path : pool) {
    for (const int s : path) demonstrated[static_cast<std::size_t>(s)] = 1;
  }
  std::vector<int> candidates;
  for (int s = 0; s < static_cast<int>(region.true_costs.size()); ++s) {
    if (region.true_costs[s] == dearest && !demonstrated[s]) candidates.push_back(s);
  }
  const int cols = region.cols();
  Random rng(seed);
  std::vector<std::vector<int>> marks;
  for (int m = 0; m < n && candidates.size() >= 10; ++m) {
    const int centre = candidates[static_cast<std::size_t>(rng.below(candidates.size()))];
    std::vector<int> cells;
    for (const int s : candidates) {
      if (std::abs(s / cols - centre / cols) <= 5 && std::abs(s % cols - centre % cols) <= 5) cells.push_back(s);
    }
    marks.push_back(std::move(cells));
  }
  return marks;
}

// A path as a person draws it over a planned one: its start, goal and four waypoints evenly spaced along
// it, joined by straight lines -- near the preferred ground, not optimal, and possibly across a corner
// of ground the planned path went round.
std::vector<int> drawnPath(const std::vector<int>& planned, int cols) {
  constexpr int kWaypoints = 4;
  std::vector<std::pair<int, int>> points;
  for (int w = 0; w <= kWaypoints + 1; ++w) {
    const int cell = planned[static_cast<std::size_t>(w) * (planned.size() - 1) / (kWaypoints + 1)];
    if (points.empty() || points.back() != std::make_pair(cell / cols, cell % cols)) points.push_back({cell / cols, cell % cols});
  }
  return rasterizePolyline(points, cols);
}

std::vector<Part> loadParts(const TrainConfig& config, const CostModel& model, const Options& o, PipelineSettings& scoring) {
  const int k = config.features.cell_size;
  const bool across = o.protocol == "across";
  std::vector<Part> parts;
  scoring = config;
  scoring.evaluation.pairs = o.pairs;
  scoring.evaluation.class_mean = o.scratch;  // the misread-cells diagnostic at each k (not for --areas left-out)
  scoring.holdout.clear();
  std::vector<std::optional<RegionSpec>> teach;
  std::vector<int> scored_index;
  for (const RegionSpec& spec : o.areas == "train" ? config.train : config.holdout) {
    const cv::Mat image = loadImage(spec.image);
    const cv::Mat labels = loadLabelMask(spec.labels, config.classes);
    const int middle = image.cols / 2 / k * k;
    const bool teaches = !across || partNumber(spec.name) <= 3;
    const bool scored = !across || partNumber(spec.name) > 3;
    teach.push_back(!teaches ? std::nullopt
                             : std::optional<RegionSpec>(half(spec, image, labels, 0, across ? image.cols : middle, across ? "whole" : "left")));
    scored_index.push_back(scored ? static_cast<int>(scoring.holdout.size()) : -1);
    if (scored) scoring.holdout.push_back(half(spec, image, labels, across ? 0 : middle, image.cols, across ? "whole" : "right"));
    parts.push_back({spec.areaName(), spec.name, nullptr, nullptr, {}, {}, {}, scored});
  }
  std::vector<Part> usable;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    try {
      if (teach[i]) {
        Region left = loadRegion(*teach[i], config);
        parts[i].pool = plannedPaths(left, o.pool, config.evaluation.min_separation_px, k, 1000 + i, "bench_adapt pool");
        if (o.demonstrations == "drawn") {
          for (std::vector<int>& path : parts[i].pool) path = drawnPath(path, left.cols());
        }
        if (parts[i].pool.empty()) throw DataError("no demonstration could be planned on it");
        parts[i].marks = avoidMarks(left, o.marks, parts[i].pool, 2000 + i);
        parts[i].left = std::make_shared<const FeatureMap>(model.features().map(left.image));
        if (o.wants("batch")) {
          std::vector<float>().swap(left.raw.values);  // the map holds the features
          left.map = parts[i].left;
          parts[i].left_region = std::make_shared<const Region>(std::move(left));
        }
      }
      if (parts[i].scored) parts[i].right = loadHoldout(scoring, scored_index[i], model.features());
      usable.push_back(std::move(parts[i]));
    } catch (const DataError& e) {  // a part with no room for a pair at the configured separation
      std::fprintf(stderr, "  left out %s: %s\n", parts[i].name.c_str(), e.what());
    }
  }
  std::fprintf(stderr, "  %zu of %zu parts usable (%s)\n", usable.size(), parts.size(), o.protocol.c_str());
  return usable;
}

// The scores of `model` on the scored parts of `area`, pair by pair: its plans and, when `class_mean`
// is given, the class_mean diagnostic's (the model's costs averaged over each true class); when
// `classifier` and `classifier_scores` are given, the classifier baseline's on the same pairs.
std::vector<PlanScore> score(const PipelineSettings& scoring, const std::vector<Part>& parts, const std::string& area,
                             const CostModel& model, int threads, std::vector<PlanScore>* class_mean = nullptr,
                             const LinearClassifier* classifier = nullptr, std::vector<PlanScore>* classifier_scores = nullptr) {
  std::vector<const Part*> scored;
  for (const Part& p : parts) {
    if (p.area == area && p.scored) scored.push_back(&p);
  }
  std::vector<HoldoutResult> results(scored.size());  // the parts on `threads` threads, taken in order
  ThreadPool(threads).parallelFor(scored.size(), [&](std::size_t i) {
    results[i] = scoreHoldout(scoring, scored[i]->right, model, classifier_scores ? classifier : nullptr);
  });
  std::vector<PlanScore> out;
  for (const HoldoutResult& r : results) {
    const auto& s = r.scores.at(Method::Learned);
    out.insert(out.end(), s.begin(), s.end());
    if (class_mean && r.scores.count(Method::ClassMean)) class_mean->insert(class_mean->end(), r.scores.at(Method::ClassMean).begin(), r.scores.at(Method::ClassMean).end());
    if (classifier && classifier_scores) {
      classifier_scores->insert(classifier_scores->end(), r.scores.at(Method::Classifier).begin(), r.scores.at(Method::Classifier).end());
    }
  }
  return out;
}

// The settings the shipped model was trained with: its config with the values its settings selection
// chose, as the model records them (info "selected": "key value, key value, ..., passes N"; a value may
// be a list, "[7, 31]").  Throws mmp::DataError naming the model file if it records none.
PipelineSettings shippedSettings(const PipelineSettings& config, const CostModel& model, const std::string& file) {
  const auto found = model.info().find("selected");
  if (found == model.info().end()) {
    throw DataError(file + ": the model records no selected settings (info \"selected\"); the batch retrain trains by them");
  }
  std::vector<std::string> items(1);
  int depth = 0;
  for (char ch : found->second) {
    depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
    if (ch == ',' && depth == 0) {
      items.emplace_back();
    } else if (!(ch == ' ' && items.back().empty())) {
      items.back() += ch;
    }
  }
  PipelineSettings s = config;
  long passes = 0;
  for (const std::string& item : items) {
    const std::size_t space = item.find(' ');
    if (space == std::string::npos) throw DataError(file + ": selected settings: expected 'key value', got '" + item + "'");
    const std::string key = item.substr(0, space), value = item.substr(space + 1);
    if (key == "passes") {
      passes = std::stol(value);
    } else {
      applySetting(s, key, value);
    }
  }
  if (passes > 0) setBudgetPasses(s, passes);
  validate(s);
  return s;
}

// What the reference methods of --references are trained from: the training areas under the shipped
// model's own settings, loaded once per behaviour.
struct References {
  PipelineSettings settings;                  ///< the shipped model's training settings (shippedSettings)
  std::optional<TrainingData> training;       ///< the training areas, their demonstrations generated as training does
  std::optional<LinearClassifier> classifier; ///< the per-pixel classifier baseline, as mmp train builds it
  double load_seconds = 0.0, classifier_seconds = 0.0;
  double reproduction = 0.0;  ///< the batch retrain at k = 0 against the shipped model: largest relative cost difference
};

double secondsFrom(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The batch retrain: the shipped model's training procedure (its settings, from scratch, to the same
// number of passes) on the training areas plus the demonstrations, each on the left region of its part.
TrainedCostModel batchRetrain(const References& r, const std::vector<const Part*>& owners,
                              const std::vector<std::vector<int>>& demos) {
  TrainingData data = *r.training;  // the regions share their images and feature maps
  std::map<const Part*, std::size_t> region_of;
  for (std::size_t d = 0; d < demos.size(); ++d) {
    if (!region_of.count(owners[d])) {
      region_of[owners[d]] = data.regions.size();
      data.regions.push_back(*owners[d]->left_region);
      data.regions.back().demonstrations.clear();
    }
    data.regions[region_of[owners[d]]].demonstrations.push_back(demos[d]);
  }
  return train(data, r.settings);
}

// The largest relative difference between the costs of two models on a feature map.
double costDifference(const CostModel& a, const CostModel& b, const FeatureMap& map) {
  const std::vector<double> ca = a.costs(map).costs, cb = b.costs(map).costs;
  double worst = 0.0;
  for (std::size_t s = 0; s < ca.size(); ++s) {
    if (std::isfinite(ca[s]) && std::isfinite(cb[s])) worst = std::max(worst, std::abs(ca[s] - cb[s]) / std::max(1e-12, std::abs(cb[s])));
    else if (std::isfinite(ca[s]) != std::isfinite(cb[s])) worst = std::numeric_limits<double>::infinity();
  }
  return worst;
}

References loadReferences(const TrainConfig& config, const CostModel& parent, const std::string& file, const Options& o,
                          const std::vector<Part>& parts) {
  References r;
  r.settings = shippedSettings(config, parent, file);
  r.settings.threads = o.adapt.threads;
  auto start = std::chrono::steady_clock::now();
  r.training = loadTrainingData(r.settings);
  r.load_seconds = secondsFrom(start);
  std::fprintf(stderr, "  training areas loaded: %zu images in %.1f s\n", r.training->regions.size(), r.load_seconds);
  if (o.wants("classifier")) {
    start = std::chrono::steady_clock::now();
    r.classifier = trainBaseline(*r.training, r.settings);
    r.classifier_seconds = secondsFrom(start);
    if (!r.classifier) throw DataError(file + ": the config trains no classifier baseline (classifier.enabled false, or a training image without labels)");
  }
  if (o.wants("batch")) {  // the procedure at k = 0 is the shipped model's own training
    start = std::chrono::steady_clock::now();
    const TrainedCostModel again = train(*r.training, r.settings);
    const Part* first = nullptr;
    for (const Part& p : parts) first = first ? first : (p.left ? &p : nullptr);
    r.reproduction = first ? costDifference(again.model, parent, *first->left) : 0.0;
    std::fprintf(stderr, "  batch retrain at k = 0 in %.1f s: largest relative cost difference from the shipped model %.3g\n",
                 secondsFrom(start), r.reproduction);
  }
  return r;
}

// Uniform costs of the parent's kind: the parent a learner from scratch starts from.
CostModel uniformModel(const CostModel& parent) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(parent.weights().size());
  if (parent.form() == CostForm::Linear) w[kBiasIndex] = 1.0;  // LEARCH and networks: exponential
  return CostModel(parent.features(), w, parent.form(), {});
}

// LEARCH from uniform costs on the demonstrations alone (the teacher adapts models that have trees).
CostModel learchFromScratch(const CostModel& parent, const std::vector<const Part*>& owners,
                            const std::vector<std::vector<int>>& demos, const AdaptationSettings& a) {
  const PathExample::Params params = adaptationExampleParams(a, parent);  // exponential costs, as the teacher's
  std::vector<std::unique_ptr<PathExample>> owned;
  std::vector<const PathExample*> examples;
  for (std::size_t d = 0; d < demos.size(); ++d) {
    owned.push_back(std::make_unique<PathExample>(owners[d]->left, demos[d], params));
    examples.push_back(owned.back().get());
  }
  LearchResult r = learch(examples, Eigen::VectorXd::Zero(parent.weights().size()), adaptationLearch(a));
  return CostModel(parent.features(), std::move(r.weights), std::move(r.trees), {});
}

// Each class's mean cost over the cells of that true class on the scored halves of `area`, divided by
// the preferred class's (NaN where the class has no passable cell there): how the model prices the
// classes against the one a behaviour prefers.
std::vector<double> classCostRatios(const CostModel& model, const std::vector<Part>& parts, const std::string& area,
                                    const PipelineSettings& scoring) {
  const std::size_t classes = scoring.classes.size();
  std::vector<double> sum(classes, 0.0), count(classes, 0.0), log_costs;
  for (const Part& p : parts) {
    if (p.area != area || !p.scored) continue;
    model.logCosts(*p.right.region.map, log_costs);
    for (std::size_t s = 0; s < log_costs.size(); ++s) {
      const std::size_t c = p.right.region.cell_labels[s];
      if (c < classes && std::isfinite(log_costs[s])) {
        sum[c] += std::exp(log_costs[s]);
        count[c] += 1.0;
      }
    }
  }
  const std::size_t preferred = static_cast<std::size_t>(scoring.behaviour.preferred);
  std::vector<double> ratios(classes, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t c = 0; c < classes; ++c) {
    if (count[c] > 0.0 && count[preferred] > 0.0) ratios[c] = (sum[c] / count[c]) / (sum[preferred] / count[preferred]);
  }
  return ratios;
}

// The largest relative move of a class's cost ratio (classCostRatios) from the parent's, over the
// classes other than the preferred one: 0.2 means some class now costs 20 % more or less, relative to
// the preferred class, than the parent had it.
double classDrift(const std::vector<double>& parent, const std::vector<double>& adapted, int preferred) {
  double largest = 0.0;
  for (std::size_t c = 0; c < parent.size(); ++c) {
    if (static_cast<int>(c) != preferred && std::isfinite(parent[c]) && std::isfinite(adapted[c])) {
      largest = std::max(largest, std::abs(adapted[c] / parent[c] - 1.0));
    }
  }
  return largest;
}

// +1 better, -1 worse, 0 could be chance: the sign of a paired interval that excludes 0.
int verdictSign(const PairedComparison& c) { return c.low > 0.0 ? 1 : c.high < 0.0 ? -1 : 0; }

struct Curve {
  std::map<int, std::vector<std::vector<PlanScore>>> adapted, scratch;  // k -> per (area, seed) run: scores
  std::map<int, std::vector<std::vector<PlanScore>>> class_mean;         // k -> the adapted model's class_mean diagnostic
  std::map<int, std::vector<std::vector<PlanScore>>> suggested;         // k <= 5: the pool's most valuable pair next
  std::map<int, std::vector<double>> step_seconds;                      // k -> seconds of the k-th teach
  std::map<int, std::vector<double>> drift;                             // k -> per run: classDrift of the adapted model
  std::map<int, std::vector<double>> warned;                            // k -> per run: 1 if the k-th step warned of unshown moves
  // statistic -> k -> per run: (held-out verdict, scored verdict), -1/0/+1
  std::map<std::string, std::map<int, std::vector<std::pair<int, int>>>> verdicts;
  std::vector<std::vector<PlanScore>> zero, uniform;                     // per (area, seed) run
  std::vector<std::vector<PlanScore>> classifier;                        // per (area, seed) run (--references classifier)
  std::map<int, std::vector<std::vector<PlanScore>>> batch;             // k -> per (area, seed) run (--references batch)
  std::map<int, std::vector<double>> batch_seconds;                     // k -> seconds of each batch retrain
  std::optional<References> references;
};

// Each pair's cost ratio averaged over the seeds (runs of one area are `seeds` consecutive entries).
std::vector<PlanScore> seedMean(const std::vector<std::vector<PlanScore>>& runs, int seeds, double* feasible) {
  std::vector<PlanScore> out;
  double feasible_sum = 0.0;
  long count = 0;
  for (std::size_t first = 0; first < runs.size(); first += static_cast<std::size_t>(seeds)) {
    for (std::size_t p = 0; p < runs[first].size(); ++p) {
      PlanScore m;
      m.cost_ratio = 0.0;
      for (int s = 0; s < seeds; ++s) {
        const PlanScore& x = runs[first + static_cast<std::size_t>(s)][p];
        m.cost_ratio += x.cost_ratio / seeds;
        feasible_sum += x.feasible ? 1.0 : 0.0;
        ++count;
      }
      out.push_back(m);
    }
  }
  if (feasible) *feasible = count ? feasible_sum / static_cast<double>(count) : 0.0;
  return out;
}

double meanRatio(const std::vector<PlanScore>& s) {
  double sum = 0.0;
  for (const PlanScore& x : s) sum += x.cost_ratio;
  return s.empty() ? 0.0 : sum / static_cast<double>(s.size());
}

// With --site-images all: the area's scored images to the teacher (features only: what mmp serve holds
// of every image it is given).
void addSiteImages(CostModelTeacher& teacher, const std::vector<Part>& parts, const std::string& area, const Options& o) {
  for (const Part& p : parts) {
    if (o.site_images == "all" && p.area == area && p.scored) teacher.addImage(p.right.region.map, p.name + "-scored");
  }
}

// Teaching in the order `mmp suggest` would ask for: at each step the pool pair of the area that the
// current model values most (demonstrationValues, seeded by the run's seed), its true path taught.
void suggestedRun(const CostModel& parent, const std::vector<Part>& parts, const std::string& area,
                 const std::vector<std::pair<const Part*, std::size_t>>& pool, int seed, const Options& o,
                  const PipelineSettings& scoring, Curve& c) {
  int k_max = 0;
  for (int k : o.ks) k_max = k <= 5 ? std::max(k_max, k) : k_max;
  CostModelTeacher teacher(parent, o.adapt);
  addSiteImages(teacher, parts, area, o);
  std::map<const Part*, int> index;
  std::vector<bool> used(pool.size(), false);
  SuggestionSettings suggest = o.suggestion;
  suggest.seed = static_cast<std::uint64_t>(seed);
  suggest.threads = o.adapt.threads;
  std::vector<const FeatureMap*> ground;  // --suggest-ground scored: the images the model will plan on
  for (const Part& part : parts) {
    if (o.suggest_ground == "scored" && part.area == area && part.scored) ground.push_back(part.right.region.map.get());
  }
  for (int k = 1; k <= std::min<int>(k_max, static_cast<int>(pool.size())); ++k) {
    std::size_t best = pool.size();
    double best_value = -2.0;
    for (const Part& part : parts) {  // one valuation per part: its unused pool pairs
      if (part.area != area) continue;
      std::vector<std::size_t> which;
      std::vector<std::pair<int, int>> ends;
      for (std::size_t q = 0; q < pool.size(); ++q) {
        if (pool[q].first != &part || used[q]) continue;
        const std::vector<int>& demo = part.pool[pool[q].second];
        which.push_back(q);
        ends.push_back({demo.front(), demo.back()});
      }
      if (ends.empty()) continue;
      const std::vector<double> values = demonstrationValues(teacher.model(), *part.left, ends, suggest, ground);
      for (std::size_t v = 0; v < values.size(); ++v) {
        if (values[v] > best_value) best_value = values[v], best = which[v];
      }
    }
    used[best] = true;
    const Part* part = pool[best].first;
    if (!index.count(part)) index[part] = teacher.addImage(part->left, part->name + "-left");
    teacher.teach(index[part], part->pool[pool[best].second]);
    if (std::count(o.ks.begin(), o.ks.end(), k)) c.suggested[k].push_back(score(scoring, parts, area, teacher.model(), o.adapt.threads));
  }
}

// The curve of `parent` taught on `parts` (c.references, if set, adds the reference methods).
void runCurve(const std::string& behaviour, const CostModel& parent, const std::vector<Part>& parts,
              const PipelineSettings& scoring, const Options& o, Curve& c) {
  std::vector<std::string> areas;
  for (const Part& p : parts) {
    if (std::find(areas.begin(), areas.end(), p.area) == areas.end()) areas.push_back(p.area);
  }
  const int k_max = *std::max_element(o.ks.begin(), o.ks.end());
  const CostModel uniform = uniformModel(parent);
  const LinearClassifier* classifier = c.references && c.references->classifier ? &*c.references->classifier : nullptr;
  for (const std::string& area : areas) {
    std::vector<PlanScore> zero_class_mean, classifier_scores;
    const std::vector<PlanScore> zero = score(scoring, parts, area, parent, o.adapt.threads, &zero_class_mean, classifier, &classifier_scores);
    const std::vector<double> parent_ratios = classCostRatios(parent, parts, area, scoring);
    const std::vector<PlanScore> flat = o.scratch ? score(scoring, parts, area, uniform, o.adapt.threads) : std::vector<PlanScore>{};
    std::vector<std::pair<const Part*, std::size_t>> pool;  // (part, demonstration) of the area
    for (const Part& p : parts) {
      for (std::size_t d = 0; p.area == area && d < p.pool.size(); ++d) pool.push_back({&p, d});
    }
    for (int seed = 1; seed <= o.seeds; ++seed) {
      Random rng(static_cast<std::uint64_t>(seed));
      std::vector<std::pair<const Part*, std::size_t>> order = pool;
      rng.shuffle(order.begin(), order.end());
      c.zero.push_back(zero);
      c.class_mean[0].push_back(zero_class_mean);
      c.uniform.push_back(flat);
      if (classifier) c.classifier.push_back(classifier_scores);
      CostModelTeacher teacher(parent, o.adapt), scratch(uniform, o.adapt);
      addSiteImages(teacher, parts, area, o);
      addSiteImages(scratch, parts, area, o);  // the same images at the same indices
      std::map<const Part*, int> index;
      std::vector<const Part*> owners;
      std::vector<std::vector<int>> demos;
      for (int k = 1; k <= std::min<int>(k_max, static_cast<int>(order.size())); ++k) {
        const Part* part = order[static_cast<std::size_t>(k - 1)].first;
        if (!index.count(part)) {
          index[part] = teacher.addImage(part->left, part->name + "-left");
          scratch.addImage(part->left, part->name + "-left");
          for (const std::vector<int>& mark : part->marks) teacher.avoid(index[part], mark);
        }
        const std::vector<int>& demo = part->pool[order[static_cast<std::size_t>(k - 1)].second];
        owners.push_back(part);
        demos.push_back(demo);
        const TeachingStep step = teacher.teach(index[part], demo);
        if (step.info != Info::Success) std::fprintf(stderr, "  %s k = %d: %s\n", part->name.c_str(), k, step.message.c_str());
        c.warned[k].push_back(step.warnings.empty() ? 0.0 : 1.0);
        if (!step.warnings.empty() && seed == 1) std::fprintf(stderr, "  k = %d warning: %s\n", k, step.warnings.front().c_str());
        if (o.scratch && parent.hypothesis() != CostHypothesis::Learch) scratch.teach(index[part], demo);
        c.step_seconds[k].push_back(step.seconds);
        if (!std::count(o.ks.begin(), o.ks.end(), k)) continue;
        std::vector<PlanScore> class_mean;
        c.adapted[k].push_back(score(scoring, parts, area, teacher.model(), o.adapt.threads, &class_mean));
        if (o.held_out && k >= 2) {  // what a user without labels is told, against what the labels say
          const HeldOutPathReport held = heldOutDemonstrations(teacher);
          const int scored = verdictSign(comparePaired(c.adapted[k].back(), zero));
          const std::pair<const char*, const PairedComparison*> statistics[] = {
              {"loss", &held.gain}, {"mhd", &held.mhd_gain}, {"cost_ratio", &held.ratio_gain}};
          for (const auto& [name, gain] : statistics) c.verdicts[name][k].push_back({verdictSign(*gain), scored});
        }
        c.class_mean[k].push_back(std::move(class_mean));
        c.drift[k].push_back(classDrift(parent_ratios, classCostRatios(teacher.model(), parts, area, scoring), scoring.behaviour.preferred));
        if (o.scratch) {
          const CostModel from_scratch =
              parent.hypothesis() != CostHypothesis::Learch ? scratch.model() : learchFromScratch(parent, owners, demos, o.adapt);
          c.scratch[k].push_back(score(scoring, parts, area, from_scratch, o.adapt.threads));
        }
        if (o.wants("batch") && std::count(o.batch_ks.begin(), o.batch_ks.end(), k)) {
          const auto start = std::chrono::steady_clock::now();
          const TrainedCostModel retrained = batchRetrain(*c.references, owners, demos);
          c.batch_seconds[k].push_back(secondsFrom(start));
          c.batch[k].push_back(score(scoring, parts, area, retrained.model, o.adapt.threads));
        }
      }
      if (o.suggest) suggestedRun(parent, parts, area, pool, seed, o, scoring, c);
      std::fprintf(stderr, "  %s %s seed %d done\n", behaviour.c_str(), area.c_str(), seed);
    }
  }
}

Curve runBehaviour(const std::string& behaviour, const Options& o) {
  const TrainConfig config = loadTrainConfig(o.configs + "/" + behaviour + ".yaml", o.data_root);
  const CostModel parent = CostModel::load(o.models + "/" + behaviour + ".mmp");
  PipelineSettings scoring;
  const std::vector<Part> parts = loadParts(config, parent, o, scoring);
  Curve c;
  if (!o.references.empty()) c.references = loadReferences(config, parent, o.models + "/" + behaviour + ".mmp", o, parts);
  runCurve(behaviour, parent, parts, scoring, o, c);
  return c;
}

// --areas left-out: for each training area (of --folds), the shipped model's training procedure
// (shippedSettings) on the other training areas, then that model taught on the left-out area as the
// beside protocol teaches (left halves teach, right halves are scored) at each of --lambdas.  The
// holdout areas are never read.  One row per fold, lambda and k.
Json runLeftOut(const std::string& behaviour, const Options& o) {
  const TrainConfig config = loadTrainConfig(o.configs + "/" + behaviour + ".yaml", o.data_root);
  const std::string file = o.models + "/" + behaviour + ".mmp";
  PipelineSettings settings = shippedSettings(config, CostModel::load(file), file);
  settings.threads = o.adapt.threads;
  const std::vector<std::string> areas = trainingAreas(settings);
  for (const std::string& f : o.folds) {
    if (!std::count(areas.begin(), areas.end(), f)) throw InvalidArgument("--folds " + f + ": not a training area of " + config.source);
  }
  Json rows = Json::array();
  for (std::size_t i = 0; i < areas.size(); ++i) {
    if (!o.folds.empty() && !std::count(o.folds.begin(), o.folds.end(), areas[i])) continue;
    const PipelineSettings fold = validationFold(settings, static_cast<int>(i));
    const auto start = std::chrono::steady_clock::now();
    const CostModel model = [&fold] {
      const TrainingData data = loadTrainingData(fold);
      return train(data, fold).model;
    }();
    std::fprintf(stderr, "  %s without %s: loaded and trained in %.1f s\n", behaviour.c_str(), areas[i].c_str(), secondsFrom(start));
    TrainConfig left_out = config;
    left_out.train = fold.holdout;  // the left-out area's images: loadParts reads them as training areas
    Options lo = o;
    lo.areas = "train";
    lo.scratch = lo.suggest = false;
    lo.references.clear();
    PipelineSettings scoring;
    const std::vector<Part> parts = loadParts(left_out, model, lo, scoring);
    for (double lambda : o.lambdas.empty() ? std::vector<double>{o.adapt.lambda} : o.lambdas) {
      lo.adapt.lambda = lambda;
      Curve c;
      runCurve(behaviour, model, parts, scoring, lo, c);
      double zero_feasible = 0.0;
      const std::vector<PlanScore> zero = seedMean(c.zero, o.seeds, &zero_feasible);
      for (int k : o.ks) {
        double feasible = zero_feasible;
        const std::vector<PlanScore> a = k == 0 ? zero : seedMean(c.adapted.at(k), o.seeds, &feasible);
        const PairedComparison vs_zero = comparePaired(a, zero);
        std::printf("%-19s %-6s %7g %3d %7.3f (%.2f) %+7.3f [%+.3f, %+.3f] %8.3f %5zu\n", behaviour.c_str(), areas[i].c_str(), lambda,
                    k, meanRatio(a), feasible, vs_zero.gain, vs_zero.low, vs_zero.high, meanRatio(zero), a.size());
        rows.push_back({{"behaviour", behaviour}, {"fold", areas[i]}, {"lambda", lambda}, {"k", k}, {"adapted", meanRatio(a)},
                        {"adapted_feasible", feasible}, {"vs_zero_shot", {vs_zero.gain, vs_zero.low, vs_zero.high}},
                        {"zero_shot", meanRatio(zero)}, {"pairs", static_cast<int>(a.size())}});
      }
      std::fflush(stdout);
    }
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.adapt.threads = 2;
  CLI::App app{"bench_adapt: shipped models taught on new areas, scored where they gave no demonstration"};
  app.add_option("--behaviours", o.behaviours, "behaviours (configs/<b>.yaml, models/<b>.mmp)")->capture_default_str();
  app.add_option("--ks", o.ks, "numbers of demonstrations to score at")->capture_default_str();
  app.add_option("--seeds", o.seeds, "draws of which demonstrations")->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--pool", o.pool, "demonstrations planned on each left half")->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--pairs", o.pairs, "scored pairs on each right half")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--lambda", o.adapt.lambda, "the prior's strength (linear models)")->capture_default_str();
  app.add_option_function<std::string>("--prior", [&o](const std::string& prior) { o.adapt.prior = prior == "costs" ? AdaptationPrior::Costs : AdaptationPrior::Weights; },
                                       "what the prior keeps near the parent's (linear models): weights or costs")
      ->check(CLI::IsMember({"weights", "costs"}));
  app.add_option("--epochs", o.adapt.epochs, "linear models: the most oracle passes of the exact solver")->capture_default_str();
  app.add_option("--learch-rounds", o.adapt.learch_rounds, "trees added (LEARCH models)")->capture_default_str();
  app.add_option("--threads", o.adapt.threads, "oracle calls at once")->capture_default_str();
  app.add_option("--data-root", o.data_root, "the shared data folder (default: the configs' data_root)");
  app.add_option("--png", o.png, "a picture of the curves");
  app.add_flag("--suggest", o.suggest, "also teach the pairs mmp suggest values most, one at a time (k <= 5)");
  app.add_option_function<std::string>("--suggest-rule", [&o](const std::string& rule) { o.suggestion.rule = parseSuggestionRule(rule); },
                                       "with --suggest: how pairs are valued (change, committee; default change)")
      ->check(CLI::IsMember(suggestionRules()));
  app.add_option("--suggest-spread", o.suggestion.spread, "with --suggest: the committee's spread")->capture_default_str();
  app.add_option("--suggest-ground", o.suggest_ground, "with --suggest and the change rule: the cells whose cost change "
                                                       "is measured: teaching (the image of the pair) or scored (the "
                                                       "area's scored images, unlabelled: where the robot will plan)")
      ->capture_default_str()->check(CLI::IsMember({"teaching", "scored"}));
  app.add_option("--areas", o.areas, "holdout: the config's holdout areas (final figures); train: its training areas "
                                     "(to choose settings: the shipped models were trained on them); "
                                     "left-out: each training area taught and scored by a model trained without it")
      ->capture_default_str()->check(CLI::IsMember({"holdout", "train", "left-out"}));
  app.add_option("--protocol", o.protocol, "beside: each part's left half teaches, its right half is scored; across: parts "
                                           "1-3 of an area teach, parts 4-9 are scored")
      ->capture_default_str()->check(CLI::IsMember({"beside", "across"}));
  app.add_option("--references", o.references, "reference methods trained on the training areas: classifier (the per-pixel "
                                               "classifier baseline), batch (the shipped model's training on the training "
                                               "areas plus the k demonstrations)")
      ->check(CLI::IsMember({"classifier", "batch"}))->delimiter(',');
  app.add_option("--batch-ks", o.batch_ks, "the k at which the batch retrain runs (each one of --ks)")->capture_default_str();
  app.add_option("--site-images", o.site_images, "taught: the teacher holds the images it is taught on; all: also the area's "
                                                "scored images, unlabelled, without paths (as mmp serve holds every image it "
                                                "is given; the cost prior keeps their costs too)")
      ->capture_default_str()->check(CLI::IsMember({"taught", "all"}));
  app.add_option("--marks", o.marks, "avoid marks per teaching half on the behaviour's dearest passable class")
      ->capture_default_str()->check(CLI::Range(0, 20));
  app.add_flag("--held-out", o.held_out,
               "at each k >= 2: each demonstration held out (what mmp adapt tells a user without labels), its verdict "
               "counted against the scored halves' paired interval per run");
  app.add_option("--demonstrations", o.demonstrations,
                 "planned: A* on the behaviour's true costs; drawn: start, goal and four waypoints of that path joined straight")
      ->capture_default_str()->check(CLI::IsMember({"planned", "drawn"}));
  app.add_option("--lambdas", o.lambdas, "--areas left-out: the lambdas to try (default: --lambda)");
  app.add_option("--folds", o.folds, "--areas left-out: the training areas to leave out (default: every one)");
  CLI11_PARSE(app, argc, argv);
  try {
    o.adapt.validate();
    o.suggestion.validate();
    if (!o.references.empty() && o.areas == "train") {
      throw InvalidArgument("--references trains on the training areas; it cannot be scored on them (--areas train)");
    }
    for (int k : o.batch_ks) {
      if (o.wants("batch") && (k < 1 || !std::count(o.ks.begin(), o.ks.end(), k))) {
        throw InvalidArgument("--batch-ks " + std::to_string(k) + ": each must be one of --ks and at least 1");
      }
    }
    if (!o.references.empty() && o.areas == "left-out") throw InvalidArgument("--references goes with --areas holdout");
    if (o.areas == "left-out") {
      std::printf("%-19s %-6s %7s %3s %14s %26s %8s %5s\n", "behaviour", "fold", "lambda", "k", "adapted", "vs zero-shot", "zero",
                  "pairs");
      Json rows = Json::array();
      for (const std::string& b : o.behaviours) {
        for (Json& row : runLeftOut(b, o)) rows.push_back(std::move(row));
      }
      const Json settings = {{"lambdas", o.lambdas}, {"prior", describe(o.adapt.prior)}, {"epochs", o.adapt.epochs},
                             {"seeds", o.seeds}, {"pool", o.pool}, {"pairs", o.pairs}, {"folds", o.folds},
                             {"marks", o.marks}, {"site_images", o.site_images}, {"demonstrations", o.demonstrations}};
      std::printf("%s\n", tools::jsonText(Json{{"bench", "adapt"}, {"protocol", o.protocol}, {"areas", o.areas}, {"settings", settings},
                                               {"rows", rows}}, -1).c_str());
      return 0;
    }
    Json rows = Json::array();
    std::vector<PanelTile> charts;
    std::printf("%-19s %3s %14s %26s %14s %26s %8s %10s %8s %6s %6s\n", "behaviour", "k", "adapted", "vs zero-shot", "scratch",
                "adapted vs scratch", "uniform", "class_mean", "step s", "drift", "warned");
    for (const std::string& b : o.behaviours) {
      const Curve c = runBehaviour(b, o);
      double zero_feasible = 0.0, uniform_feasible = 0.0;
      const std::vector<PlanScore> zero = seedMean(c.zero, o.seeds, &zero_feasible);
      const std::vector<PlanScore> uniform = seedMean(c.uniform, o.seeds, &uniform_feasible);
      ChartSeries suggested_line{"adapted, suggested pairs", {}, {}, cv::Scalar(200, 60, 200)};
      ChartSeries adapted_line{"adapted, random pairs", {}, {}, cv::Scalar(180, 90, 30)}, scratch_line{"from scratch", {}, {}, cv::Scalar(40, 160, 40)},
          zero_line{"zero-shot (the shipped model)", {}, {}, cv::Scalar(40, 40, 220)}, uniform_line{"uniform costs", {}, {}, cv::Scalar(140, 140, 140)};
      double classifier_feasible = 0.0;
      const std::vector<PlanScore> classifier = seedMean(c.classifier, o.seeds, &classifier_feasible);
      Json references = Json::object();
      if (c.references) {
        references = {{"load_seconds", c.references->load_seconds}, {"classifier_seconds", c.references->classifier_seconds},
                      {"batch_k0_cost_difference", c.references->reproduction}};
      }
      for (int k : o.ks) {
        double feasible = zero_feasible, scratch_feasible = uniform_feasible;
        const std::vector<PlanScore> a = k == 0 ? zero : seedMean(c.adapted.at(k), o.seeds, &feasible);
        const std::vector<PlanScore> s = k == 0 ? uniform : seedMean(c.scratch.at(k), o.seeds, &scratch_feasible);
        const PairedComparison vs_zero = comparePaired(a, zero), vs_scratch = comparePaired(a, s);
        double step = 0.0;
        if (k > 0) {
          for (double x : c.step_seconds.at(k)) step += x / static_cast<double>(c.step_seconds.at(k).size());
        }
        const double class_mean = meanRatio(seedMean(c.class_mean.at(k), o.seeds, nullptr));
        double drift = 0.0, warned = 0.0;  // the mean over runs of the largest class move (classDrift), of warnings
        if (k > 0) {
          for (double x : c.drift.at(k)) drift += x / static_cast<double>(c.drift.at(k).size());
          for (double x : c.warned.at(k)) warned += x / static_cast<double>(c.warned.at(k).size());
        }
        std::printf("%-19s %3d %7.3f (%.2f) %+7.3f [%+.3f, %+.3f] %7.3f (%.2f) %+7.3f [%+.3f, %+.3f] %8.3f %10.3f %8.3f %6.3f %6.2f\n", b.c_str(), k,
                    meanRatio(a), feasible, vs_zero.gain, vs_zero.low, vs_zero.high, meanRatio(s), scratch_feasible,
                    vs_scratch.gain, vs_scratch.low, vs_scratch.high, meanRatio(uniform), class_mean, step, drift, warned);
        Json suggested, held_out_row;
        if (c.suggested.count(k)) {
          double suggested_feasible = 0.0;
          const std::vector<PlanScore> g = seedMean(c.suggested.at(k), o.seeds, &suggested_feasible);
          const PairedComparison vs_random = comparePaired(g, a);
          std::printf("%-19s %3d %7.3f (%.2f) suggested pairs; against random pairs %+7.3f [%+.3f, %+.3f]\n", "", k,
                      meanRatio(g), suggested_feasible, vs_random.gain, vs_random.low, vs_random.high);
          suggested_line.x.push_back(k);
          suggested_line.y.push_back(meanRatio(g));
          suggested = {{"ratio", meanRatio(g)}, {"feasible", suggested_feasible},
                       {"vs_random", {vs_random.gain, vs_random.low, vs_random.high}}};
          if (k == 3 && c.adapted.count(5)) {
            const PairedComparison three_vs_five = comparePaired(g, seedMean(c.adapted.at(5), o.seeds, nullptr));
            std::printf("%-19s     suggested at k = 3 against random at k = 5: %+7.3f [%+.3f, %+.3f]\n", "", three_vs_five.gain,
                        three_vs_five.low, three_vs_five.high);
            suggested["k3_vs_random_k5"] = {three_vs_five.gain, three_vs_five.low, three_vs_five.high};
          }
        }
        for (const auto& [statistic, by_k] : c.verdicts) {  // among runs whose scored halves tell (interval excludes 0)
          if (!by_k.count(k)) continue;
          int told = 0, agreed = 0, contradicted = 0, runs = 0, silent_spoke = 0;
          for (const auto& [held, scored] : by_k.at(k)) {
            ++runs;
            if (scored == 0) {
              silent_spoke += held != 0;
              continue;
            }
            ++told;
            agreed += held == scored;
            contradicted += held == -scored;
          }
          std::printf("%-19s %3d held-out verdict (%s) against the scored halves': of %d runs, %d where the halves tell; agrees %d, "
                      "contradicts %d, says 'could be chance' %d; speaks where the halves do not %d\n", "", k, statistic.c_str(), runs,
                      told, agreed, contradicted, told - agreed - contradicted, silent_spoke);
          held_out_row[statistic] = {{"runs", runs}, {"scored_tell", told}, {"agrees", agreed}, {"contradicts", contradicted},
                                     {"speaks_untold", silent_spoke}};
        }
        Json reference_row = Json::object();
        if (!classifier.empty()) {
          const PairedComparison vs = comparePaired(a, classifier);
          std::printf("%-19s %3d %7.3f (%.2f) classifier baseline; adapted against it %+7.3f [%+.3f, %+.3f]\n", "", k,
                      meanRatio(classifier), classifier_feasible, vs.gain, vs.low, vs.high);
          reference_row["classifier"] = meanRatio(classifier);
          reference_row["classifier_feasible"] = classifier_feasible;
          reference_row["vs_classifier"] = {vs.gain, vs.low, vs.high};
        }
        if (c.batch.count(k)) {
          double batch_feasible = 0.0, batch_seconds = 0.0;
          const std::vector<PlanScore> r = seedMean(c.batch.at(k), o.seeds, &batch_feasible);
          for (double x : c.batch_seconds.at(k)) batch_seconds += x / static_cast<double>(c.batch_seconds.at(k).size());
          const PairedComparison vs = comparePaired(a, r);
          std::printf("%-19s %3d %7.3f (%.2f) batch retrain (%.1f s); adapted against it %+7.3f [%+.3f, %+.3f]\n", "", k,
                      meanRatio(r), batch_feasible, batch_seconds, vs.gain, vs.low, vs.high);
          reference_row["batch"] = meanRatio(r);
          reference_row["batch_feasible"] = batch_feasible;
          reference_row["vs_batch"] = {vs.gain, vs.low, vs.high};
          reference_row["batch_seconds"] = batch_seconds;
        }
        rows.push_back({{"behaviour", b}, {"k", k}, {"adapted", meanRatio(a)}, {"adapted_feasible", feasible},
                        {"vs_zero_shot", {vs_zero.gain, vs_zero.low, vs_zero.high}}, {"scratch", meanRatio(s)},
                        {"scratch_feasible", scratch_feasible}, {"vs_scratch", {vs_scratch.gain, vs_scratch.low, vs_scratch.high}},
                        {"zero_shot", meanRatio(zero)}, {"uniform", meanRatio(uniform)}, {"class_mean", class_mean}, {"step_seconds", step},
                        {"class_drift", drift}, {"warned_share", warned}, {"held_out_verdicts", held_out_row},
                        {"pairs", static_cast<int>(a.size())}, {"suggested", suggested}});
        if (!reference_row.empty()) rows.back()["references"] = reference_row;
        if (!references.empty() && k == o.ks.front()) rows.back()["reference_training"] = references;
        for (ChartSeries* line : {&adapted_line, &scratch_line, &zero_line, &uniform_line}) line->x.push_back(k);
        adapted_line.y.push_back(meanRatio(a));
        scratch_line.y.push_back(meanRatio(s));
        zero_line.y.push_back(meanRatio(zero));
        uniform_line.y.push_back(meanRatio(uniform));
      }
      std::fflush(stdout);
      ChartStyle style;
      style.title = b + ": " + o.areas + " areas, " +
                    (o.protocol == "across" ? "parts 1-3 taught, 4-9 scored" : "left halves taught, right halves scored");
      style.x_label = "demonstrations taught";
      style.y_label = "mean cost ratio (lower is better)";
      if (!suggested_line.x.empty()) {  // from k = 0, the shipped model
        suggested_line.x.insert(suggested_line.x.begin(), 0.0);
        suggested_line.y.insert(suggested_line.y.begin(), meanRatio(zero));
      }
      charts.push_back({b, lineChart({adapted_line, suggested_line, scratch_line, zero_line, uniform_line}, style)});
    }
    if (!o.png.empty()) {
      cv::Mat picture;  // two charts a row
      for (std::size_t first = 0; first < charts.size(); first += 2) {
        const std::vector<PanelTile> row(charts.begin() + static_cast<std::ptrdiff_t>(first),
                                         charts.begin() + static_cast<std::ptrdiff_t>(std::min(first + 2, charts.size())));
        cv::Mat strip = makePanel(row, 420);
        if (picture.empty()) {
          picture = strip;
          continue;
        }
        const int width = std::max(picture.cols, strip.cols);
        cv::copyMakeBorder(picture, picture, 0, 0, 0, width - picture.cols, cv::BORDER_CONSTANT, cv::Scalar(255, 255, 255));
        cv::copyMakeBorder(strip, strip, 0, 0, 0, width - strip.cols, cv::BORDER_CONSTANT, cv::Scalar(255, 255, 255));
        cv::vconcat(picture, strip, picture);
      }
      writeImage(o.png, picture);
      std::printf("wrote %s\n", o.png.c_str());
    }
    const Json settings = {{"lambda", o.adapt.lambda}, {"prior", describe(o.adapt.prior)}, {"epochs", o.adapt.epochs}, {"learch_rounds", o.adapt.learch_rounds},
                           {"seeds", o.seeds}, {"pool", o.pool}, {"pairs", o.pairs}, {"marks", o.marks}, {"site_images", o.site_images},
                           {"demonstrations", o.demonstrations},
                           {"suggest_rule", describe(o.suggestion.rule)}, {"suggest_spread", o.suggestion.spread},
                           {"suggest_ground", o.suggest_ground},
                           {"references", o.references}, {"batch_ks", o.wants("batch") ? Json(o.batch_ks) : Json::array()}};
    std::printf("%s\n", tools::jsonText(Json{{"bench", "adapt"}, {"protocol", o.protocol}, {"areas", o.areas}, {"settings", settings}, {"rows", rows}}, -1).c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_adapt: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
