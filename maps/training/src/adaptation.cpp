#include <mmp/maps/training/adaptation.hpp>

#include "trainer.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner.hpp>
#include <mmp/maps/ground_scale.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <tuple>

namespace mmp {

PathExample::Params adaptationExampleParams(const AdaptationSettings& settings, const CostModel& parent) {
  PathExample::Params params;
  params.connectivity = Connectivity::Eight;
  params.loss.shape = settings.loss.shape;
  params.loss.radius = settings.loss.radius_px / parent.features().settings().cell_size;  // the loss lives on the cell grid
  params.loss.scale = settings.loss.scale;
  params.length_weighting = settings.loss.length_weighting;
  params.q = 1;
  params.cost_form = parent.form();  // exponential for LEARCH and networks
  return params;
}

LearchSettings adaptationLearch(const AdaptationSettings& settings) {
  LearchSettings s;
  s.rounds = settings.learch_rounds;
  s.step = settings.learch_step;
  s.depth = settings.learch_depth;
  s.threads = settings.threads;
  return s;
}

std::shared_ptr<const FeatureMap> teachingMap(const CostModel& model, const GeoImage& image) {
  model.checkImage(image.pixels.cols, image.pixels.rows);
  GeoImage framed = image;  // an image given without a frame (a plain array) stays in pixels
  if (framed.frame.rows == 0 && framed.frame.cols == 0) framed.frame = WorldFrame::unlocated(image.pixels.rows, image.pixels.cols);
  FeatureMap map = model.features().map(framed);
  // Cells holding a pixel without data cost +inf under the model: blocked for the planners here too
  // (an image without a mask of valid pixels has none).
  if (!framed.valid.empty()) {
    const CostGrid grid = model.costs(framed);
    if (!grid.unknown.empty()) map.setBlocked(grid.unknown);
  }
  return std::make_shared<const FeatureMap>(std::move(map));
}

std::shared_ptr<const std::vector<float>> teachingInputs(const CostModel& model, const GeoImage& image, const FeatureMap& map) {
  if (!model.readsPixels()) return nullptr;
  // A network reads the image's pixels as they are, a cell_size block a cell: on an image at another
  // resolution than the model's imagery they would not be the ground it learned (the map is resampled).
  if (const double mpp = metresPerPixel(image.frame); model.groundFactorOf(mpp) != 1.0) {
    throw InvalidArgument(model.source() + ": a network model is taught on images at its own resolution (" +
                          numberText(model.features().settings().ground_resolution) + " m per pixel) and this image is at " +
                          numberText(mpp) + " m: resample it first (gdalwarp -tr)");
  }
  const NetworkShape& shape = model.network().shape();
  auto inputs = std::make_shared<std::vector<float>>(networkInputs(
      image.pixels, model.features().settings().cell_size, shape.normalise ? colourStatistics(image.pixels, image.valid) : ColourStatistics{}));
  if (shape.feature_inputs > 0) appendFeatureInputs(map, *inputs);
  return inputs;
}

std::string describeAdaptation(const CostModel& parent, const AdaptationSettings& settings) {
  return makeTrainer(parent.hypothesis())->describeAdaptation(settings) + "; loss radius " + numberText(settings.loss.radius_px) +
         " px, scale " + numberText(settings.loss.scale);
}

std::string adaptationStrength(const CostModel& parent) { return makeTrainer(parent.hypothesis())->adaptationStrength(); }

CostModelTeacher::~CostModelTeacher() = default;

CostModelTeacher::CostModelTeacher(CostModel parent, AdaptationSettings settings)
    : parent_(std::move(parent)),
      settings_(std::move(settings)),
      trainer_(makeTrainer(parent_.hypothesis())),
      cache_(std::make_unique<TeachingCache>()),
      model_(parent_) {
  settings_.validate();
  const std::string refusal = trainer_->cannotAdapt(parent_);
  if (!refusal.empty()) throw InvalidArgument("adapting " + parent_.source() + ": " + refusal);
  // a loaded model's source is its file, quoted ('path')
  std::string file = parent_.source();
  if (file.size() >= 2 && file.front() == '\'' && file.back() == '\'') file = file.substr(1, file.size() - 2);
  if (!file.empty() && std::filesystem::is_regular_file(file)) parent_fingerprint_ = fileChecksum(file);
}

int CostModelTeacher::addImage(const GeoImage& image, const std::string& name, const std::string& fingerprint) {
  std::shared_ptr<const FeatureMap> map = teachingMap(parent_, image);
  std::shared_ptr<const std::vector<float>> inputs = teachingInputs(parent_, image, *map);
  return addImage(std::move(map), std::move(inputs), name, fingerprint);
}

int CostModelTeacher::addImage(std::shared_ptr<const FeatureMap> map, const std::string& name, const std::string& fingerprint) {
  return addImage(std::move(map), nullptr, name, fingerprint);
}

int CostModelTeacher::addImage(std::shared_ptr<const FeatureMap> map, std::shared_ptr<const std::vector<float>> inputs,
                               const std::string& name, const std::string& fingerprint) {
  if (parent_.readsPixels()) {
    const std::size_t planes = static_cast<std::size_t>(parent_.network().shape().inputs());
    if (!inputs) {
      throw InvalidArgument("teach: '" + name + "': a network model reads the image's pixels: give the image "
                            "(addImage(GeoImage)) or its inputs (teachingInputs) with the map");
    }
    if (map && inputs->size() != static_cast<std::size_t>(map->cells()) * planes) {
      throw InvalidArgument("teach: '" + name + "': " + std::to_string(inputs->size()) + " network inputs, the network reads " +
                            std::to_string(planes) + " planes of the map's " + std::to_string(map->cells()) + " cells");
    }
  } else {
    inputs = nullptr;
  }
  if (!map || map->features() != parent_.weights().size()) {
    throw InvalidArgument("teach: the feature map of '" + name + "' is not one of the parent's feature stack (" +
                          std::to_string(map ? map->features() : 0) + " features, the model " +
                          std::to_string(parent_.weights().size()) + ")");
  }
  images_.push_back({name, fingerprint, std::move(map), std::move(inputs)});
  parent_log_costs_.emplace_back();
  return static_cast<int>(images_.size()) - 1;
}

int CostModelTeacher::images() const { return static_cast<int>(images_.size()); }
int CostModelTeacher::rows(int image) const { return images_.at(static_cast<std::size_t>(image)).map->rows(); }
int CostModelTeacher::cols(int image) const { return images_.at(static_cast<std::size_t>(image)).map->cols(); }

void CostModelTeacher::checkDemonstration(int image, const std::vector<int>& cells) const {
  if (image < 0 || image >= images()) {
    throw InvalidArgument("teach: image " + std::to_string(image) + " is not one of the teacher's " +
                          std::to_string(images()) + " images (addImage gives the index)");
  }
  const TeachingImage& entry = images_[static_cast<std::size_t>(image)];
  const FeatureMap& map = *entry.map;
  if (cells.size() < 2) {
    throw DataError("demonstration on '" + entry.name + "': " + std::to_string(cells.size()) +
                    " cell(s); a path needs a start and a goal (at least 2 cells)");
  }
  if (cells.front() == cells.back()) {
    throw DataError("demonstration on '" + entry.name + "': it ends in the cell it starts from (row " +
                    std::to_string(cells.front() / map.cols()) + ", col " + std::to_string(cells.front() % map.cols()) +
                    "), a closed loop; a demonstration runs from one place to another: split the loop in two");
  }
  if (cells.size() > static_cast<std::size_t>(map.cells())) {  // so it goes back and forth (10^6 points between two cells)
    throw DataError("demonstration on '" + entry.name + "': " + std::to_string(cells.size()) + " cells, more than the image's " +
                    std::to_string(map.rows()) + " x " + std::to_string(map.cols()) +
                    ": it must visit cells again and again; give each path once, from its start to its goal");
  }
  try {
    validatePath(cells, map.rows(), map.cols(), Connectivity::Eight, map.blocked());  // unknown cells: blocked
  } catch (const Error& e) {
    throw DataError("demonstration on '" + entry.name + "' (" + std::to_string(map.rows()) + " x " +
                    std::to_string(map.cols()) + " cells of " + std::to_string(cellSize()) + " px): " + e.what());
  }
}

void checkDemonstrationName(const std::string& name) {
  const bool plain = std::none_of(name.begin(), name.end(), [](char c) {
    return c == ',' || c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (name.empty() || name.size() > 100 || !plain) {
    throw InvalidArgument("demonstration name '" + name.substr(0, 40) + "': give 1 to 100 characters without a comma, quote or "
                          "line break (a CSV's path column holds it)");
  }
}

TeachingStep CostModelTeacher::teach(int image, std::vector<int> cells) {
  return teach(std::vector<TaughtDemonstration>{{image, std::move(cells), {}}});
}

void CostModelTeacher::rename(std::size_t k, const std::string& name) {
  if (k >= demonstrations_.size()) {
    throw InvalidArgument("rename: demonstration " + std::to_string(k + 1) + " of " + std::to_string(demonstrations_.size()) + " taught");
  }
  checkDemonstrationName(name);
  for (std::size_t o = 0; o < demonstrations_.size(); ++o) {
    if (o != k && demonstrations_[o].name == name) {
      throw InvalidArgument("demonstration name '" + name + "' is taken: names are unique (a CSV's path column tells paths apart by them)");
    }
  }
  demonstrations_[k].name = name;
  recordProvenance(model_);
}

TeachingStep CostModelTeacher::teach(const std::vector<TaughtDemonstration>& demonstrations, const std::vector<TeachingMark>& marks) {
  for (std::size_t k = 0; k < demonstrations.size(); ++k) {
    const TaughtDemonstration& d = demonstrations[k];
    checkDemonstration(d.image, d.cells);
    if (d.name.empty()) continue;
    checkDemonstrationName(d.name);
    const auto same = [&d](const TaughtDemonstration& o) { return o.name == d.name; };
    if (std::any_of(demonstrations_.begin(), demonstrations_.end(), same) ||
        std::any_of(demonstrations.begin(), demonstrations.begin() + static_cast<std::ptrdiff_t>(k), same)) {
      throw InvalidArgument("demonstration name '" + d.name + "' is taken: names are unique (a CSV's path column tells paths apart by them)");
    }
  }
  std::vector<TeachingMark> checked;
  for (const TeachingMark& mark : marks) checked.push_back(checkedMark(mark));
  const std::size_t demonstrations_before = demonstrations_.size(), marks_before = marks_.size(), taught_before = taught_marks_.size();
  demonstrations_.insert(demonstrations_.end(), demonstrations.begin(), demonstrations.end());
  taught_marks_.insert(taught_marks_.end(), demonstrations.size(), false);
  for (TeachingMark& mark : checked) marks_.push_back(std::move(mark));
  taught_marks_.insert(taught_marks_.end(), marks.size(), true);
  cache_->remember(demonstrations.size() + marks.size());
  try {
    return adapt();
  } catch (...) {  // all or nothing: the teacher is as before
    cache_->restore(demonstrations.size() + marks.size());
    demonstrations_.resize(demonstrations_before);
    marks_.resize(marks_before);
    taught_marks_.resize(taught_before);
    throw;
  }
}

const char* markKindName(MarkKind kind) { return kind == MarkKind::Avoid ? "avoid" : "prefer"; }

TeachingStep CostModelTeacher::avoid(int image, std::vector<int> cells) { return teach({}, {{image, std::move(cells), MarkKind::Avoid}}); }

TeachingStep CostModelTeacher::prefer(int image, std::vector<int> cells) { return teach({}, {{image, std::move(cells), MarkKind::Prefer}}); }

TeachingMark CostModelTeacher::checkedMark(const TeachingMark& given) const {
  const std::string kind = markKindName(given.kind);
  if (given.image < 0 || given.image >= images()) {
    throw InvalidArgument(kind + ": image " + std::to_string(given.image) + " is not one of the teacher's " + std::to_string(images()) +
                          " images (addImage gives the index)");
  }
  const TeachingImage& entry = images_[static_cast<std::size_t>(given.image)];
  TeachingMark mark{given.image, {}, given.kind};
  for (std::size_t k = 0; k < given.cells.size(); ++k) {
    const int cell = given.cells[k];
    if (cell < 0 || cell >= entry.map->cells()) {
      throw DataError(kind + " mark on '" + entry.name + "': cell " + std::to_string(k) + " (" + std::to_string(cell) +
                      ") is off the image's " + std::to_string(entry.map->rows()) + " x " + std::to_string(entry.map->cols()) + " cells");
    }
    if (entry.map->blocked().empty() || !entry.map->blocked()[static_cast<std::size_t>(cell)]) mark.cells.push_back(cell);
  }
  std::sort(mark.cells.begin(), mark.cells.end());
  mark.cells.erase(std::unique(mark.cells.begin(), mark.cells.end()), mark.cells.end());
  if (mark.cells.empty()) throw DataError(kind + " mark on '" + entry.name + "': no passable cell (a mark needs ground)");
  return mark;
}

TeachingStep CostModelTeacher::undo() {
  if (taught_marks_.empty()) throw InvalidArgument("undo: no demonstration or mark has been taught");
  const std::vector<TaughtDemonstration> demonstrations = demonstrations_;  // restored if the re-adaptation fails
  const std::vector<TeachingMark> marks = marks_;
  const bool mark = taught_marks_.back();
  if (mark) marks_.pop_back(); else demonstrations_.pop_back();
  taught_marks_.pop_back();
  // The working sets the step before ended with: the same computation as that step's, to the bit.
  const std::shared_ptr<const WorkingSets> before = cache_->before.back();
  const WorkingSets after = cache_->working_sets;
  cache_->restore(1);
  try {
    return adapt();
  } catch (...) {
    cache_->before.push_back(before);
    cache_->working_sets = after;
    demonstrations_ = demonstrations;
    marks_ = marks;
    taught_marks_.push_back(mark);
    throw;
  }
}

std::vector<std::size_t> CostModelTeacher::canonicalOrder() const {
  // By image (its name and fingerprint, not the order images were added), then by the path's cells:
  // the learners see the same sequence whatever order the demonstrations were taught in.
  const auto key = [this](std::size_t k) {
    const TaughtDemonstration& d = demonstrations_[k];
    const TeachingImage& image = images_[static_cast<std::size_t>(d.image)];
    return std::tie(image.name, image.fingerprint, d.image, d.cells);
  };
  std::vector<std::size_t> order(demonstrations_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&key](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

std::vector<MarkMeans> CostModelTeacher::markConstraints() const {
  const auto meanOf = [this](int image, const std::vector<int>& cells, Eigen::VectorXd& sum, long& count) {
    const FeatureMap& map = *images_[static_cast<std::size_t>(image)].map;
    for (const int s : cells) sum += map.cellVector(s).cast<double>();
    count += static_cast<long>(cells.size());
  };
  const Eigen::Index d = parent_.weights().size();
  Eigen::VectorXd taught = Eigen::VectorXd::Zero(d);
  long taught_cells = 0;
  for (const std::size_t k : canonicalOrder()) meanOf(demonstrations_[k].image, demonstrations_[k].cells, taught, taught_cells);
  std::vector<std::size_t> order(marks_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
    const auto key = [this](std::size_t k) {
      const TeachingImage& image = images_[static_cast<std::size_t>(marks_[k].image)];
      return std::tie(image.name, image.fingerprint, marks_[k].image, marks_[k].cells, marks_[k].kind);
    };
    return key(a) < key(b);
  });
  std::vector<MarkMeans> constraints;
  for (const std::size_t k : order) {
    const TeachingMark& mark = marks_[k];
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(d);
    long count = 0;
    meanOf(mark.image, mark.cells, sum, count);
    Eigen::VectorXd reference = taught / static_cast<double>(std::max(1L, taught_cells));
    if (taught_cells == 0) {  // marks alone: held above the image's mean ground
      const FeatureMap& map = *images_[static_cast<std::size_t>(mark.image)].map;
      std::vector<int> passable;
      for (int s = 0; s < map.cells(); ++s) {
        if (map.blocked().empty() || !map.blocked()[static_cast<std::size_t>(s)]) passable.push_back(s);
      }
      reference.setZero();
      long n = 0;
      meanOf(mark.image, passable, reference, n);
      reference /= static_cast<double>(std::max(1L, n));
    }
    constraints.push_back({sum / static_cast<double>(count), reference, mark.kind, mark.image, mark.cells});
  }
  return constraints;
}

const std::vector<double>& CostModelTeacher::parentLogCosts(int image) const {
  std::vector<double>& costs = parent_log_costs_[static_cast<std::size_t>(image)];
  if (costs.empty()) teachingLogCosts(parent_, images_[static_cast<std::size_t>(image)], costs);
  return costs;
}

namespace {

// The prediction loss of plain A* between the example's ends on its image's log-costs (+inf without a path).
double planLoss(const PathExample& example, const std::vector<double>& log_costs) {
  const PlanResult plan = example.planLogCosts(log_costs, 0.0);
  return plan.status == PlanStatus::Success ? example.predictionLoss(plan.path) : std::numeric_limits<double>::infinity();
}

double mean(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

}  // namespace

std::vector<UnshownMove> unshownMoves(const std::vector<double>& parent, const std::vector<double>& adapted, const std::vector<int>& taught,
                                      double threshold) {
  if (parent.size() != adapted.size()) throw InvalidArgument("unshownMoves: parent and adapted log-costs of different images");
  std::vector<int> cells;  // passable under both, by the parent's log-cost
  for (std::size_t s = 0; s < parent.size(); ++s) {
    if (std::isfinite(parent[s]) && std::isfinite(adapted[s])) cells.push_back(static_cast<int>(s));
  }
  if (cells.size() < 10) return {};
  std::vector<char> is_taught(parent.size(), 0);
  std::vector<double> taught_parent;  // the taught cells' parent log-costs
  double taught_change = 0.0;
  for (const int s : taught) {
    if (s < 0 || s >= static_cast<int>(parent.size()) || is_taught[s] || !std::isfinite(parent[s]) || !std::isfinite(adapted[s])) continue;
    is_taught[s] = 1;
    taught_parent.push_back(parent[s]);
    taught_change += adapted[s] - parent[s];
  }
  if (taught_parent.empty()) return {};
  taught_change /= static_cast<double>(taught_parent.size());
  // The taught ground's range: a path's few dear or cheap cells (an edge, a shadow) do not widen it.
  std::sort(taught_parent.begin(), taught_parent.end());
  const auto quantile = [&taught_parent](double q) {
    return taught_parent[static_cast<std::size_t>(std::lround(q * static_cast<double>(taught_parent.size() - 1)))];
  };
  const double low = quantile(1.0 - kUnshownTaughtShare), high = quantile(kUnshownTaughtShare);
  // Percentiles of the parent's log-cost over the image; the untaught cells of each: change, count, range.
  std::stable_sort(cells.begin(), cells.end(), [&parent](int a, int b) { return parent[a] < parent[b]; });
  constexpr int kBins = 100;
  std::array<double, kBins> change{}, lowest{}, highest{};
  std::array<long, kBins> count{};
  lowest.fill(std::numeric_limits<double>::infinity());
  highest.fill(-std::numeric_limits<double>::infinity());
  for (std::size_t r = 0; r < cells.size(); ++r) {
    const int s = cells[r];
    if (is_taught[s]) continue;
    const std::size_t b = r * kBins / cells.size();
    change[b] += adapted[s] - parent[s];
    ++count[b];
    lowest[b] = std::min(lowest[b], parent[s]);
    highest[b] = std::max(highest[b], parent[s]);
  }
  std::vector<UnshownMove> moves;
  for (const bool dear : {true, false}) {
    UnshownMove move;
    move.dear = dear;
    for (int b = 0; b < kBins; ++b) {
      if (count[b] == 0 || (dear ? !(lowest[b] > high) : !(highest[b] < low))) continue;
      const double factor = std::exp(change[b] / static_cast<double>(count[b]) - taught_change);
      if (dear ? factor > 1.0 / threshold : factor < threshold) continue;
      if (move.first_percentile == 0) move.first_percentile = b + 1;
      move.last_percentile = b + 1;
      move.share += static_cast<double>(count[b]) / static_cast<double>(cells.size());
      move.factor = dear ? std::min(move.factor, factor) : std::max(move.factor, factor);
    }
    if (move.first_percentile > 0) moves.push_back(move);
  }
  return moves;
}

std::string describeUnshownMove(const UnshownMove& move, const std::string& image) {
  char text[400];
  const std::string percentiles = move.first_percentile == move.last_percentile
                                      ? "percentile " + std::to_string(move.first_percentile)
                                      : "percentiles " + std::to_string(move.first_percentile) + "-" + std::to_string(move.last_percentile);
  if (move.dear) {
    std::snprintf(text, sizeof text,
                  "'%s': ground the parent priced dearer than nine tenths of the taught ground (its cost %s, %.3g %% of the "
                  "image) now costs up to %.2gx less relative to your paths; mark it avoid if it should stay dear",
                  image.c_str(), percentiles.c_str(), 100.0 * move.share, 1.0 / move.factor);
  } else {
    std::snprintf(text, sizeof text,
                  "'%s': ground the parent priced cheaper than nine tenths of the taught ground (its cost %s, %.3g %% of the "
                  "image) now costs up to %.2gx more relative to your paths; mark it prefer if it should stay cheap",
                  image.c_str(), percentiles.c_str(), 100.0 * move.share, move.factor);
  }
  return text;
}

void CostModelTeacher::warnOfUnshownMoves(const std::map<int, std::vector<double>>& adapted_costs, TeachingStep& step) const {
  for (const auto& [image, costs] : adapted_costs) {
    std::vector<int> taught;
    for (const TaughtDemonstration& d : demonstrations_) {
      if (d.image == image) taught.insert(taught.end(), d.cells.begin(), d.cells.end());
    }
    for (const TeachingMark& mark : marks_) {
      if (mark.image == image) taught.insert(taught.end(), mark.cells.begin(), mark.cells.end());
    }
    for (const UnshownMove& move : unshownMoves(parentLogCosts(image), costs, taught)) {
      step.warnings.push_back(describeUnshownMove(move, images_[static_cast<std::size_t>(image)].name));
    }
  }
}

TeachingStep CostModelTeacher::adapt() {
  const auto start = std::chrono::steady_clock::now();
  TeachingStep step;
  step.demonstrations = static_cast<int>(demonstrations_.size());
  if (demonstrations_.empty() && marks_.empty()) {
    model_ = parent_;
    step.message = "no demonstration: the parent model";
    return step;
  }
  const PathExample::Params params = adaptationExampleParams(settings_, parent_);
  std::vector<const PathExample*> examples;
  std::vector<int> example_images;
  std::vector<const TaughtExample*> taught;  // in canonical order
  {
    std::map<std::pair<int, std::vector<int>>, TaughtExample> kept;  // the paths taught now: an undone one's goes
    for (const std::size_t k : canonicalOrder()) {
      const TaughtDemonstration& d = demonstrations_[k];
      const auto [at, added] = kept.try_emplace({d.image, d.cells});
      if (added) {
        const auto made = taught_examples_.find(at->first);
        if (made != taught_examples_.end()) at->second = made->second;
        else at->second.example = std::make_shared<const PathExample>(images_[static_cast<std::size_t>(d.image)].map, d.cells, params);
      }
      taught.push_back(&at->second);  // map nodes stay put when the map is moved
      examples.push_back(at->second.example.get());
      example_images.push_back(d.image);
    }
    taught_examples_ = std::move(kept);
  }
  const std::vector<MarkMeans> marks = markConstraints();
  cache_->image_moments.resize(images_.size());
  const AdaptationInput in{parent_, settings_, examples, example_images, images_, marks, *cache_};
  CostModel adapted = trainer_->adapt(in, parentInfo(), step);
  adapted.setDomain(parent_.domain());
  recordProvenance(adapted);
  std::map<int, std::vector<double>> adapted_costs;  // on each image with a demonstration
  std::vector<int> taught_images = example_images;
  for (const TeachingMark& mark : marks_) taught_images.push_back(mark.image);
  for (const int image : taught_images) {
    if (adapted_costs.count(image) == 0) teachingLogCosts(adapted, images_[static_cast<std::size_t>(image)], adapted_costs[image]);
  }
  // The prediction losses after and before (under the parent: once a path, kept), planned at once.
  std::vector<TaughtExample*> unplanned;
  std::vector<const std::vector<double>*> unplanned_costs;  // the parent's log-costs of its image
  for (auto& [key, e] : taught_examples_) {
    if (e.parent_loss) continue;
    unplanned.push_back(&e);
    unplanned_costs.push_back(&parentLogCosts(key.first));
  }
  std::vector<double> before(examples.size()), after(examples.size());
  if (!examples.empty()) {
    ThreadPool pool(settings_.threads);
    pool.parallelFor(examples.size() + unplanned.size(), [&](std::size_t i) {
      if (i < examples.size()) {
        after[i] = planLoss(*examples[i], adapted_costs.at(example_images[i]));
      } else {
        const std::size_t u = i - examples.size();
        unplanned[u]->parent_loss = planLoss(*unplanned[u]->example, *unplanned_costs[u]);
      }
    });
  }
  for (std::size_t k = 0; k < taught.size(); ++k) before[k] = *taught[k]->parent_loss;
  step.loss_before = mean(before);
  step.loss_after = mean(after);
  warnOfUnshownMoves(adapted_costs, step);
  model_ = std::move(adapted);
  step.seconds = secondsSince(start);
  return step;
}

std::map<std::string, std::string> CostModelTeacher::parentInfo() const {
  // The parent's holdout figures are the parent's, not the adapted model's: kept as parent_holdout*.
  std::map<std::string, std::string> info;
  for (const auto& [key, value] : parent_.info()) info[key.rfind("holdout", 0) == 0 ? "parent_" + key : key] = value;
  return info;
}

void CostModelTeacher::recordProvenance(CostModel& model) const {
  model.setInfo("adapted_from", (parent_.source().empty() ? std::string("(a model in memory)") : parent_.source()) +
                                    (parent_fingerprint_.empty() ? "" : " " + parent_fingerprint_));
  std::ostringstream images, demos;
  for (const TeachingImage& image : images_) {
    images << (images.tellp() > 0 ? "\n" : "") << image.name << (image.fingerprint.empty() ? "" : " " + image.fingerprint);
  }
  for (const TaughtDemonstration& d : demonstrations_) {
    const int cols = images_[static_cast<std::size_t>(d.image)].map->cols();
    demos << (demos.tellp() > 0 ? "\n" : "") << d.image << ":";
    for (std::size_t k = 0; k < d.cells.size(); ++k) {
      demos << (k ? " " : "") << d.cells[k] / cols << "," << d.cells[k] % cols;
    }
  }
  model.setInfo("adapted_by", describeAdaptation(parent_, settings_));
  model.setInfo("adapted_images", images.str());
  model.setInfo("adapted_demonstrations", demos.str());
  std::string names;
  bool named = false;
  for (std::size_t k = 0; k < demonstrations_.size(); ++k) {
    named = named || !demonstrations_[k].name.empty();
    names += (k ? "\n" : "") + (demonstrations_[k].name.empty() ? "path " + std::to_string(k + 1) : demonstrations_[k].name);
  }
  if (named) model.setInfo("adapted_demonstration_names", names);
  for (const MarkKind kind : {MarkKind::Avoid, MarkKind::Prefer}) {
    std::ostringstream marks;
    for (const TeachingMark& mark : marks_) {
      if (mark.kind != kind) continue;
      const int cols = images_[static_cast<std::size_t>(mark.image)].map->cols();
      marks << (marks.tellp() > 0 ? "\n" : "") << mark.image << ":";
      for (std::size_t k = 0; k < mark.cells.size(); ++k) marks << (k ? " " : "") << mark.cells[k] / cols << "," << mark.cells[k] % cols;
    }
    if (marks.tellp() > 0) model.setInfo(std::string("adapted_") + markKindName(kind), marks.str());
  }
}

namespace {

// The costs a teacher's image has under `model` (from its log-costs for a network, which reads pixels).
CostGrid teachingGrid(const CostModel& model, const TeachingImage& image) {
  if (!model.readsPixels()) return model.costs(*image.map);
  std::vector<double> log_costs;
  teachingLogCosts(model, image, log_costs);
  CostGrid grid;
  grid.rows = image.map->rows();
  grid.cols = image.map->cols();
  grid.cell_size = model.features().settings().cell_size;
  grid.frame = image.map->frame();
  grid.costs.resize(log_costs.size());
  for (std::size_t s = 0; s < log_costs.size(); ++s) grid.costs[s] = std::exp(log_costs[s]);  // +inf stays +inf
  return grid;
}

}  // namespace

HeldOutPathReport heldOutDemonstrations(const CostModelTeacher& teacher, const StageCallback& progress) {
  const std::vector<TaughtDemonstration>& demonstrations = teacher.demonstrations();
  const int n = static_cast<int>(demonstrations.size());
  if (n < 2) return {};
  const CostModel& parent = teacher.parent();
  const int cell_size = teacher.cellSize();
  const PathExample::Params params = adaptationExampleParams(teacher.settings(), parent);
  std::map<int, CostGrid> parent_grids;
  HeldOutTally tally;
  for (int d = 0; d < n; ++d) {
    if (progress) progress("scoring each demonstration held out", d, n, "");
    CostModelTeacher others(parent, teacher.settings());
    for (int i = 0; i < teacher.images(); ++i) {
      const TeachingImage& image = teacher.image(i);
      others.addImage(image.map, image.inputs, image.name, image.fingerprint);
    }
    std::vector<TaughtDemonstration> rest = demonstrations;
    rest.erase(rest.begin() + d);
    others.teach(rest, teacher.marks());
    const int image = demonstrations[static_cast<std::size_t>(d)].image;
    const TeachingImage& held = teacher.image(image);
    if (parent_grids.count(image) == 0) parent_grids[image] = teachingGrid(parent, held);
    const PathExample example(held.map, demonstrations[static_cast<std::size_t>(d)].cells, params);
    const CostGrid taught = teachingGrid(others.model(), held);
    tally.add(scoreHeldOut(parent_grids.at(image), example, cell_size), scoreHeldOut(taught, example, cell_size));
  }
  if (progress) progress("scoring each demonstration held out", n, n, "");
  return tally.finish();
}

}  // namespace mmp
