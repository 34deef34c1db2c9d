#include <mmp/maps/training/setting_keys.hpp>

#include "setting_key_builders.hpp"

#include <mmp/maps/cost_model.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace mmp {
namespace {

using namespace setting_rows;

using S = PipelineSettings;

SettingKey colourSpacesKey() {
  SettingKey k;
  k.key = "features.colour_spaces";
  k.type = SettingType::Choices;
  k.valid = {"rgb", "hsv", "lab"};
  k.meaning = "colour spaces whose channels become features; at least one";
  k.get = [](const S& s) {
    std::vector<std::string> spaces;
    if (s.features.rgb) spaces.push_back("rgb");
    if (s.features.hsv) spaces.push_back("hsv");
    if (s.features.lab) spaces.push_back("lab");
    return list(spaces);
  };
  k.set = [](S& s, const SettingValue& v) {
    if (v.choices.empty()) throw InvalidArgument("list at least one of rgb, hsv, lab");
    const auto uses = [&](const char* c) { return std::find(v.choices.begin(), v.choices.end(), c) != v.choices.end(); };
    s.features.rgb = uses("rgb");
    s.features.hsv = uses("hsv");
    s.features.lab = uses("lab");
  };
  return k;
}

SettingKey textureWindowsKey() {
  SettingKey k;
  k.key = "features.texture_windows";
  k.type = SettingType::Integers;
  k.low = 3;
  k.high = 255;
  k.meaning = "odd window sides (pixels) of the local standard deviation (texture) features";
  k.get = [](const S& s) {
    return list(std::vector<long>(s.features.texture_windows.begin(), s.features.texture_windows.end()));
  };
  k.set = [](S& s, const SettingValue& v) {
    std::vector<int> windows;
    for (std::size_t i = 0; i < v.integers.size(); ++i) {
      if (v.integers[i] % 2 == 0) {
        throw InvalidArgument("[" + std::to_string(i) + "]: a window side must be odd, got " + std::to_string(v.integers[i]));
      }
      windows.push_back(static_cast<int>(v.integers[i]));
    }
    s.features.texture_windows = windows;
  };
  return selectable(k);
}

// features.bins, which also sets complements' default (on for plain features, off with bins).
SettingKey binsKey() {
  SettingKey k = integerKey<int>("features.bins", 0, 64,
                                 "soft bins per feature, 0 or 2..64 (0: the plain value, with its complement by default)",
                                 [](S& s) -> int& { return s.features.bins; });
  k.set = [](S& s, const SettingValue& v) {
    if (v.integer == 1) throw InvalidArgument("expected 0 (plain features) or 2..64 soft bins per feature, got 1");
    s.features.bins = static_cast<int>(v.integer);
    s.features.complements = v.integer == 0;  // complements' default follows bins
  };
  return selectable(k);
}

void featureKeys(std::vector<SettingKey>& keys) {
  keys.push_back(integerKey<int>("features.cell_size", 1, 256, "pixels per side of a grid cell",
                                 [](S& s) -> int& { return s.features.cell_size; }));
  keys.push_back(selectable(numbersKey("features.blur_sigmas", 0.0, 1000.0,
                            "Gaussian blur scales (pixels) of the colour features; 0 = no blur; at least one",
                            "list at least one scale (0 = no blur)", [](S& s) -> std::vector<double>& { return s.features.blur_sigmas; })));
  keys.push_back(colourSpacesKey());
  keys.push_back(booleanKey("features.gradient", "the gradient magnitude of the grey image as a feature",
                            [](S& s) -> bool& { return s.features.gradient; }));
  keys.push_back(textureWindowsKey());
  keys.push_back(binsKey());
  keys.push_back(booleanKey("features.complements",
                            "add 1 - value beside each plain feature (default: true without bins; redundant with bins)",
                            [](S& s) -> bool& { return s.features.complements; }));
  keys.push_back(numberKey("features.scaling_quantile", 0.0, 0.49,
                           "features are scaled to [0, 1] between this quantile and 1 - it of the training images",
                           [](S& s) -> double& { return s.features.scaling_quantile; }));
  keys.push_back(selectable(integerKey<int>("features.region_window", 0, 256,
                                 "region features: 0 = none, else the side (cells, >= 8) of the fixed windows in which "
                                 "the image is segmented; each cell gets its segment's statistics",
                                 [](S& s) -> int& { return s.features.region_window; })));
  keys.push_back(integerKey<int>("features.region_size", 1, 65536,
                                 "region features: the least segment size in cells (at most region_window^2)",
                                 [](S& s) -> int& { return s.features.region_size; }));
  keys.push_back(selectable(numberKey("features.region_threshold", kPositive, 1e5,
                           "region features: the graph segmentation's threshold k on 8-bit Lab (larger: larger segments)",
                           [](S& s) -> double& { return s.features.region_threshold; })));
  keys.push_back(selectable(choiceKey(
      "features.normalise", {"off", "per_image"},
      "per_image: standardise each image's raw features by its own mean and standard deviation over its cells "
      "(training images and the new image alike; label-free adaptation to a new area's light and colours)",
      [](const S& s) { return std::string(s.features.normalise_per_image ? "per_image" : "off"); },
      [](S& s, const std::string& v) { s.features.normalise_per_image = v == "per_image"; })));
  keys.push_back(numberKey("features.ground_resolution", 0.0, 1e4,
                           "metres per pixel of the training imagery (0: not declared); images of another known "
                           "resolution (a GeoTIFF's, an entry's `resolution`) are resampled to it before their features",
                           [](S& s) -> double& { return s.features.ground_resolution; }));
  keys.push_back(selectable(choiceKey(
      "features.upsample", {"cubic", "linear", "none"},
      "how an image coarser than features.ground_resolution is brought to it: bicubic, bilinear, or none (taken "
      "as it comes, in pixels); a finer image is always area-averaged",
      [](const S& s) { return s.features.upsample; }, [](S& s, const std::string& v) { s.features.upsample = v; })));
  keys.push_back(booleanKey("features.class_scores",
                            "label-assisted: append a multiclass SVM's class scores, trained on the training labels",
                            [](S& s) -> bool& { return s.class_scores; }));
  keys.push_back(numbersKey("features.class_context_px", 1.0, 100000.0,
                            "radii (pixels, >= cell_size) within which each class score's maximum is a feature too", "",
                            [](S& s) -> std::vector<double>& { return s.class_context_px; }));
}

void demonstrationKeys(std::vector<SettingKey>& keys) {
  keys.push_back(integerKey<int>("demonstrations.per_region", 1, 100000,
                                 "demonstrations generated per labelled training image",
                                 [](S& s) -> int& { return s.demonstrations.per_region; }));
  keys.push_back(numberKey("demonstrations.min_separation_px", 0.0, kInf, "smallest start-goal distance (pixels)",
                           [](S& s) -> double& { return s.demonstrations.min_separation_px; }));
  keys.push_back(integerKey<std::uint64_t>("demonstrations.seed", 0, kMaxSeed, "seed of the generated demonstrations",
                                           [](S& s) -> std::uint64_t& { return s.demonstrations.seed; }));
  keys.push_back(choiceKey("demonstrations.noise", {"none", "boltzmann", "waypoints"},
                           "imperfect demonstrations: none (optimal paths), boltzmann (walks drawn from "
                           "P ~ exp(-cost / temperature)), waypoints (optimal paths through random waypoints)",
                           [](const S& s) { return describe(s.demonstrations.noise.kind); },
                           [](S& s, const std::string& v) { s.demonstrations.noise.kind = parseNoiseKind(v); }));
  keys.push_back(numberKey("demonstrations.temperature", kPositive, kInf,
                           "boltzmann noise: the temperature, in the behaviour's cost units (every passable cost / "
                           "temperature above 1.78 keeps the model normalisable)",
                           [](S& s) -> double& { return s.demonstrations.noise.temperature; }));
  keys.push_back(integerKey<int>("demonstrations.waypoints", 1, 100, "waypoints noise: cells each path passes through, in order",
                                 [](S& s) -> int& { return s.demonstrations.noise.waypoints; }));
  keys.push_back(numberKey("demonstrations.waypoint_spread", 0.0, 10.0,
                           "waypoints noise: radius around the start-goal line, a share of the start-goal distance",
                           [](S& s) -> double& { return s.demonstrations.noise.spread; }));
}

void lossKeys(std::vector<SettingKey>& keys) {
  keys.push_back(choiceKey("loss.shape", {"linear", "step", "gaussian"},
                           "how the loss grows with the distance to the demonstration",
                           [](const S& s) { return describe(s.loss.shape); },
                           [](S& s, const std::string& v) { s.loss.shape = parseLossShape(v); }));
  keys.push_back(selectable(numberKey("loss.radius_px", kPositive, kInf, "distance (pixels) at which the loss reaches its scale",
                                      [](S& s) -> double& { return s.loss.radius_px; })));
  keys.push_back(selectable(numberKey("loss.scale", kPositive, kInf, "the margin asked of a path far from the demonstration",
                                      [](S& s) -> double& { return s.loss.scale; })));
  keys.push_back(booleanKey("loss.length_weighting", "weight each cell's loss by the path length through it",
                            [](S& s) -> bool& { return s.loss.length_weighting; }));
  keys.push_back(booleanKey("loss.by_class",
                            "label-assisted: scale each training cell's loss by how dear its class is (needs labels)",
                            [](S& s) -> bool& { return s.loss.by_class; }));
  keys.push_back(numberKey("loss.impassable_factor", 1.0, kInf,
                           "with by_class: an impassable cell's loss factor over the dearest passable class's",
                           [](S& s) -> double& { return s.loss.impassable_factor; }));
}

void learnerKeys(std::vector<SettingKey>& keys) {
  keys.push_back(selectable(choiceKey(
      "learner.kind", {"online", "batch", "learch", "network"},
      "the cost learner: online or batch subgradient (costs linear or exponential in the features), learch "
      "(boosted regression trees on the log-cost) or network (a convolutional network of the image on the log-cost)",
      [](const S& s) { return costLearnerName(s.learner); },
      [](S& s, const std::string& v) { setCostLearner(s.learner, v); })));
  keys.push_back(selectable(choiceKey("learner.objective", {"margin", "maxent"},
                                      "what training minimises: the max-margin objective through loss-augmented A*, or "
                                      "the negative log-likelihood of Maximum Entropy IRL through expected visitation "
                                      "(online, batch, learch and network; a network trained by maxent has costs 3.56 + exp(...))",
                                      [](const S& s) { return s.learner.objective == TrainingObjective::Likelihood ? "maxent" : "margin"; },
                                      [](S& s, const std::string& v) {
                                        s.learner.objective = v == "maxent" ? TrainingObjective::Likelihood : TrainingObjective::Margin;
                                      })));
  {
    SettingKey k = numberKey("learner.maxent_margin", 0.0, 1e12,
                             "objective maxent: only cells on a path within this cost of the cheapest take part in "
                             "the soft planner (unset: the whole image); every walk dropped is e^margin times less "
                             "probable than the likeliest",
                             [](S& s) -> double& { return s.learner.maxent_margin; });
    k.get = [](const S& s) { return std::isinf(s.learner.maxent_margin) ? std::string() : number(s.learner.maxent_margin); };
    k.unset = "the whole image";
    keys.push_back(k);
  }
  keys.push_back(selectable(choiceKey("learner.costs", {"linear", "exponential"},
                                      "cell costs w . f (kept positive by projection) or exp(w . f)",
                                      [](const S& s) { return describe(s.learner.costs); },
                                      [](S& s, const std::string& v) { s.learner.costs = parseCostForm(v); })));
  keys.push_back(numberKey("learner.min_cost", kPositive, kInf, "the smallest loss-augmented cell cost the projection allows",
                           [](S& s) -> double& { return s.learner.min_cost; }));
  {
    SettingKey k = selectable(numberKey("learner.cost_exponent", CostModel::kMinExponent, CostModel::kMaxExponent,
                                        "every learned cost raised to this power after training (more contrast above 1)",
                                        [](S& s) -> double& { return s.learner.cost_exponent; }));
    k.after_training = true;
    keys.push_back(k);
  }
  keys.push_back(selectable(booleanKey("learner.calibrate_bias",
                                       "after training, choose the bias for plain planning on the demonstrations",
                                       [](S& s) -> bool& { return s.learner.calibrate_bias; })));
  {
    SettingKey k = numberKey("learner.lambda", 1e-12, 1e6, "the regularisation of both the online and the batch learner",
                             [](S& s) -> double& { return s.learner.online.lambda; });
    k.set = [](S& s, const SettingValue& v) { s.learner.online.lambda = s.learner.batch.lambda = v.number; };
    k.get = [](const S& s) { return number(s.learner.kind == LearnerKind::Batch ? s.learner.batch.lambda : s.learner.online.lambda); };
    keys.push_back(selectOnly(k));
  }
  {
    SettingKey k = integerKey<long>("learner.passes", 1, 100000, "online epochs and batch iterations",
                                    [](S& s) -> long& { return s.learner.online.stop.max_iterations; });
    k.set = [](S& s, const SettingValue& v) {
      s.learner.online.stop.max_iterations = s.learner.batch.stop.max_iterations = v.integer;
    };
    k.get = [](const S& s) {
      return std::to_string(s.learner.kind == LearnerKind::Batch ? s.learner.batch.stop.max_iterations
                                                                 : s.learner.online.stop.max_iterations);
    };
    keys.push_back(selectOnly(k));
  }
}

// A nonlinear log-cost's start (LEARCH's, the network's): uniform, or the weights of the linear
// learner named (which also sets learner.kind, the start's learner); from_linear says which.
SettingKey startKey(std::string key, std::string meaning, std::function<bool&(S&)> from_linear) {
  return selectable(choiceKey(
      std::move(key), {"uniform", "batch", "online"}, std::move(meaning),
      [from_linear](const S& s) {
        return from_linear(const_cast<S&>(s)) ? describe(s.learner.kind) : std::string("uniform");
      },
      [from_linear](S& s, const std::string& v) {
        from_linear(s) = v != "uniform";
        if (from_linear(s)) s.learner.kind = parseLearnerKind(v);
      }));
}

void learchKeys(std::vector<SettingKey>& keys) {
  keys.push_back(startKey("learner.learch.start",
                          "LEARCH's first log-cost: uniform, or the weights of that linear learner (exponential costs)",
                          [](S& s) -> bool& { return s.learner.learch.from_linear; }));
  keys.push_back(selectable(integerKey<int>("learner.learch.rounds", 1, 100000, "trees LEARCH adds",
                                            [](S& s) -> int& { return s.learner.learch.rounds; })));
  keys.push_back(selectable(numberKey("learner.learch.step", std::numeric_limits<double>::min(), kInf,
                                      "LEARCH's step, eta_t = step / sqrt(t)",
                                      [](S& s) -> double& { return s.learner.learch.step; })));
  keys.push_back(selectable(integerKey<int>("learner.learch.depth", 1, 16, "the depth of LEARCH's trees",
                                            [](S& s) -> int& { return s.learner.learch.depth; })));
  keys.push_back(integerKey<int>("learner.learch.min_leaf_samples", 1, 100000000, "cells in each leaf",
                                 [](S& s) -> int& { return s.learner.learch.min_leaf_samples; }));
  keys.push_back(integerKey<int>("learner.learch.samples", 1, 100000000, "the most cells a tree is fitted to",
                                 [](S& s) -> int& { return s.learner.learch.samples; }));
  {
    SettingKey k = numberKey("learner.learch.max_cost_ratio", 1.0, kInf,
                             "highest / lowest passable training cost allowed (> 1); a round past it stops LEARCH "
                             "with the last good model",
                             [](S& s) -> double& { return s.learner.learch.max_cost_ratio; });
    k.set = [](S& s, const SettingValue& v) {
      if (!(v.number > 1.0)) throw InvalidArgument("expected a number > 1, got " + number(v.number));
      s.learner.learch.max_cost_ratio = v.number;
    };
    keys.push_back(k);
  }
  keys.push_back(integerKey<std::uint64_t>("learner.learch.seed", 0, kMaxSeed, "seed of the draw of cells of a round",
                                           [](S& s) -> std::uint64_t& { return s.learner.learch.seed; }));
}

void networkKeys(std::vector<SettingKey>& keys) {
  using N = NetworkTrainingSettings;
  auto field = [](auto member) { return [member](S& s) -> auto& { return s.learner.network.*member; }; };
  keys.push_back(startKey("learner.network.start",
                          "the log-cost the network adds to: 0, or the weights of that linear learner (exponential costs)",
                          [](S& s) -> bool& { return s.learner.network.from_linear; }));
  keys.push_back(selectable(integerKey<int>("learner.network.channels", 1, 256, "width of the network's hidden layers",
                                            [](S& s) -> int& { return s.learner.network.shape.channels; })));
  {
    SettingKey k;
    k.key = "learner.network.dilations";
    k.type = SettingType::Numbers;
    k.low = 1;
    k.high = 64;
    k.meaning = "dilations of the 3 x 3 layers (1 to 12 layers); the network sees their sum in cells each way";
    k.get = [](const S& s) { return list(s.learner.network.shape.dilations); };
    k.set = [](S& s, const SettingValue& v) {
      std::vector<int> dilations;
      for (double d : v.numbers) {
        if (d != std::floor(d)) throw InvalidArgument("expected whole numbers, got " + number(d));
        dilations.push_back(static_cast<int>(d));
      }
      if (dilations.empty() || dilations.size() > 12) throw InvalidArgument("expected 1 to 12 dilations");
      s.learner.network.shape.dilations = dilations;
    };
    keys.push_back(k);
  }
  keys.push_back(selectable(booleanKey("learner.network.normalise", "standardise colours by each image's own statistics",
                                       [](S& s) -> bool& { return s.learner.network.shape.normalise; })));
  keys.push_back(selectable(booleanKey("learner.network.features",
                                       "also feed the network the stacked features' scaled values (gradient, texture, "
                                       "blurred colour spaces), a plane each",
                                       [](S& s) -> bool& { return s.learner.network.features; })));
  keys.push_back(selectable(booleanKey("learner.network.skip",
                                       "also feed each cell's own inputs to the first 1 x 1 layer, past the dilated layers",
                                       [](S& s) -> bool& { return s.learner.network.shape.skip; })));
  keys.push_back(selectable(integerKey<int>("learner.network.members", 1, 16, "networks in the ensemble, each from its own seed",
                                            [](S& s) -> int& { return s.learner.network.shape.members; })));
  keys.push_back(selectable(numberKey("learner.network.kappa", 0.0, 10.0,
                                      "risk aversion: log-cost = members' mean + kappa x their spread",
                                      [](S& s) -> double& { return s.learner.network.shape.kappa; })));
  keys.push_back(selectable(integerKey<int>("learner.network.epochs", 1, 10000, "passes over the training images",
                                            field(&N::epochs))));
  keys.push_back(selectable(numberKey("learner.network.step", kPositive, kInf, "AdamW's learning rate", field(&N::step))));
  keys.push_back(selectable(numberKey("learner.network.weight_decay", 0.0, kInf, "L2 weight on the network's parameters",
                                      field(&N::weight_decay))));
  keys.push_back(selectable(booleanKey("learner.network.augment", "flips, quarter turns and colour jitter of each step's image",
                                       field(&N::augment))));
  keys.push_back(numberKey("learner.network.jitter", 0.0, 0.999, "colour jitter: x -> a x + b, |a - 1| and |b| up to it",
                           field(&N::jitter)));
  keys.push_back(selectable(booleanKey("learner.network.early_stopping",
                                       "keep the epoch of least prediction loss on the last training area, which takes no step",
                                       field(&N::early_stopping))));
  keys.push_back(integerKey<int>("learner.network.patience", 1, 10000, "epochs without improvement before stopping",
                                 field(&N::patience)));
  keys.push_back(selectable(integerKey<int>("learner.network.smoothing_samples", 1, 32,
                                            "plans per demonstration on noise-perturbed log-costs (1: the exact subgradient)",
                                            field(&N::smoothing_samples))));
  keys.push_back(numberKey("learner.network.smoothing_sigma", 0.0, kInf, "standard deviation of that noise",
                           field(&N::smoothing_sigma)));
  keys.push_back(selectable(numberKey("learner.network.label_weight", 0.0, kInf,
                                      "label-assisted: weight of an auxiliary head that predicts each cell's class (needs labels)",
                                      field(&N::label_weight))));
  keys.push_back(booleanKey("learner.network.segmenter",
                            "the label-trained baseline: the same network trained on the labels alone, costs 1 + a (1 - "
                            "p(preferred class)) with the classifier baseline's choice of a (needs labels; it takes the "
                            "network's epochs and patience; on the Dubai data give it 60 of each)",
                            field(&N::segmenter)));
  keys.push_back(integerKey<std::uint64_t>("learner.network.seed", 0, kMaxSeed, "seed of the initial weights, order and augmentation",
                                           field(&N::seed)));
}

void evaluationKeys(std::vector<SettingKey>& keys) {
  keys.push_back(integerKey<int>("evaluation.pairs", 1, 100000, "seeded start/goal pairs per holdout image",
                                 [](S& s) -> int& { return s.evaluation.pairs; }));
  keys.push_back(numberKey("evaluation.min_separation_px", 0.0, kInf, "smallest start-goal distance (pixels)",
                           [](S& s) -> double& { return s.evaluation.min_separation_px; }));
  keys.push_back(integerKey<std::uint64_t>("evaluation.seed", 0, kMaxSeed, "seed of the pairs (plus the image's index)",
                                           [](S& s) -> std::uint64_t& { return s.evaluation.seed; }));
  {
    SettingKey k = numberKey("evaluation.impassable_cost", kPositive, 1e12,
                             "cost charged for an impassable cell a plan crosses",
                             [](S& s) -> double& { return s.evaluation.impassable_cost; });
    k.get = [](const S& s) {
      return std::isnan(s.evaluation.impassable_cost) ? std::string() : number(s.evaluation.impassable_cost);
    };
    k.unset = "10 x the dearest passable class";
    keys.push_back(k);
  }
  keys.push_back(integerKey<int>("evaluation.panel_paths", 0, 1000, "pairs drawn on each panel",
                                 [](S& s) -> int& { return s.evaluation.panel_paths; }));
  keys.push_back(integerKey<int>("evaluation.panel_height", 64, 4096, "panel height (pixels)",
                                 [](S& s) -> int& { return s.evaluation.panel_height; }));
  keys.push_back(choiceKey("evaluation.panel_format", {"png", "jpg"}, "panel file format (jpg: smaller, lossy)",
                           [](const S& s) { return s.evaluation.panel_format; },
                           [](S& s, const std::string& v) { s.evaluation.panel_format = v; }));
  keys.push_back(booleanKey("evaluation.training",
                            "also score the labelled training images (in-sample: the fit, beside new ground)",
                            [](S& s) -> bool& { return s.evaluation.training; }));
  keys.push_back(booleanKey("evaluation.class_mean",
                            "also score the method class_mean: the learned costs averaged (geometric mean) over each true "
                            "class of each image, the learned map as it would be if it recognised every cell (a diagnostic "
                            "that reads the labels)",
                            [](S& s) -> bool& { return s.evaluation.class_mean; }));
}

void classifierKeys(std::vector<SettingKey>& keys) {
  keys.push_back(booleanKey("classifier.enabled", "train and score the per-pixel classifier baseline",
                            [](S& s) -> bool& { return s.classifier.enabled; }));
  keys.push_back(numberKey("classifier.lambda", 0.0, kInf, "the classifier's regularisation",
                           [](S& s) -> double& { return s.classifier.lambda; }));
  keys.push_back(integerKey<long>("classifier.iterations", 1, 1000000, "the classifier's batch iterations",
                                  [](S& s) -> long& { return s.classifier.iterations; }));
  keys.push_back(numberKey("classifier.step_size", 1e-12, kInf, "the classifier's constant step",
                           [](S& s) -> double& { return s.classifier.step_size; }));
  keys.push_back(integerKey<int>("classifier.samples", 10, 10000000, "training cells drawn from the training labels",
                                 [](S& s) -> int& { return s.classifier.samples; }));
  keys.push_back(integerKey<std::uint64_t>("classifier.seed", 0, kMaxSeed, "seed of the drawn cells",
                                           [](S& s) -> std::uint64_t& { return s.classifier.seed; }));
  keys.push_back(numbersKey("classifier.cost_scales", 1e-6, 1e6,
                            "cost = 1 + a (1 - sigmoid(score)); a is chosen among these on the training images",
                            "list at least one cost scale > 0",
                            [](S& s) -> std::vector<double>& { return s.classifier.cost_scales; }));
}

std::vector<SettingKey> makeKeys() {
  std::vector<SettingKey> keys;
  for (const auto add :
       {featureKeys, demonstrationKeys, lossKeys, learnerKeys, learchKeys, networkKeys, evaluationKeys, classifierKeys, commandKeys}) {
    add(keys);
  }
  return keys;
}

bool isWhole(double v) { return std::isfinite(v) && v == std::floor(v); }

double parseNumber(const std::string& text, bool* ok) {
  const std::optional<double> v = text == ".inf" ? std::optional<double>(kInf) : numberFromText(text);
  *ok = v.has_value();
  return v.value_or(std::numeric_limits<double>::quiet_NaN());
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> listItems(const std::string& text) {
  std::string t = trim(text);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  std::vector<std::string> items;
  if (trim(t).empty()) return items;
  std::stringstream in(t);
  for (std::string item; std::getline(in, item, ',');) items.push_back(trim(item));
  return items;
}

}  // namespace

const std::vector<SettingKey>& settingKeys() {
  static const std::vector<SettingKey> keys = makeKeys();
  return keys;
}

const SettingKey* findSettingKey(const std::string& key) {
  for (const SettingKey& k : settingKeys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

std::string rangeText(const SettingKey& k) {
  const auto oneOf = [&] {
    std::string out;
    for (const std::string& v : k.valid) out += (out.empty() ? "" : ", ") + v;
    return out;
  };
  const auto interval = [&](bool whole) {
    const bool positive = k.low > 0.0 && k.low <= kPositive;  // "> 0" for the settings whose low end is far below use
    if (positive && std::isinf(k.high)) return std::string("> 0");
    if (positive) return "in (0, " + number(k.high) + "]";
    if (std::isinf(k.high)) return ">= " + number(k.low);
    if (whole) return number(k.low) + ".." + (k.high >= static_cast<double>(kMaxSeed) ? std::string("2^63-1") : number(k.high));
    return "[" + number(k.low) + ", " + number(k.high) + "]";
  };
  switch (k.type) {
    case SettingType::Number: return "a number " + interval(false) + (k.candidates ? " (in a config also a list of them, to choose among)" : "");
    case SettingType::Integer: return "a whole number " + interval(true);
    case SettingType::Boolean: return "true or false";
    case SettingType::Choice: return "one of " + oneOf();
    case SettingType::Numbers: return "a list of numbers, each " + interval(false);
    case SettingType::Integers: return "a list of whole numbers, each " + interval(true);
    case SettingType::Choices: return "a list of " + oneOf();
  }
  return "";
}

SettingValue parseSettingValue(const SettingKey& k, const std::string& text) {
  const auto fail = [&]() -> SettingValue {
    throw InvalidArgument(k.key + ": expected " + rangeText(k) + ", got '" + text + "'");
  };
  const auto numberOf = [&](const std::string& item, bool whole) {
    bool ok = false;
    const double v = parseNumber(item, &ok);
    if (!ok || !(v >= k.low && v <= k.high) || (whole && !isWhole(v))) fail();
    return v;
  };
  const auto choiceOf = [&](const std::string& item) {
    if (std::find(k.valid.begin(), k.valid.end(), item) == k.valid.end()) fail();
    return item;
  };
  SettingValue v;
  switch (k.type) {
    case SettingType::Number:
      if (k.candidates && trim(text).rfind('[', 0) == 0) {
        for (const std::string& item : listItems(text)) v.numbers.push_back(numberOf(item, false));
        if (v.numbers.empty()) fail();
        v.number = v.numbers.front();
      } else {
        v.number = numberOf(trim(text), false);
      }
      break;
    case SettingType::Integer: v.integer = static_cast<long>(numberOf(trim(text), true)); break;
    case SettingType::Boolean:
      if (trim(text) != "true" && trim(text) != "false") fail();
      v.boolean = trim(text) == "true";
      break;
    case SettingType::Choice: v.choice = choiceOf(trim(text)); break;
    case SettingType::Numbers:
      for (const std::string& item : listItems(text)) v.numbers.push_back(numberOf(item, false));
      break;
    case SettingType::Integers:
      for (const std::string& item : listItems(text)) v.integers.push_back(static_cast<long>(numberOf(item, true)));
      break;
    case SettingType::Choices:
      for (const std::string& item : listItems(text)) v.choices.push_back(choiceOf(item));
      break;
  }
  return v;
}

void applySetting(PipelineSettings& settings, const std::string& key, const std::string& value) {
  const SettingKey* k = findSettingKey(key);
  if (k == nullptr) {
    std::string known;
    for (const SettingKey& s : settingKeys()) known += (known.empty() ? "" : ", ") + s.key;
    throw InvalidArgument("unknown setting '" + key + "'; the settings are " + known);
  }
  const SettingValue v = parseSettingValue(*k, value);
  try {
    k->set(settings, v);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(key + (e.what()[0] == '[' ? "" : ": ") + e.what());
  }
}

std::string describe(SettingCommand command) {
  switch (command) {
    case SettingCommand::Train: return "mmp train";
    case SettingCommand::Adapt: return "mmp adapt";
    case SettingCommand::Suggest: return "mmp suggest";
    case SettingCommand::Serve: return "mmp serve";
  }
  return "";
}

void checkSettings(const PipelineSettings& settings, SettingCommand command) {
  for (const SettingKey& k : settingKeys()) {
    if (k.command != command) continue;
    const std::string value = k.get(settings);
    if (!value.empty()) parseSettingValue(k, value);  // throws "KEY: expected RANGE, got 'VALUE'"
  }
}

namespace {

// Where a command's keys are read, under its table's heading.
const char* commandSurfaces(SettingCommand command) {
  switch (command) {
    case SettingCommand::Train: return "";
    case SettingCommand::Adapt:
      return "an adapt config's `adapt:` section (`adapt.loss.radius_px` is `radius_px:` under `loss:` there), "
             "`mmp adapt --set`, the flags of `mmp adapt` and `mmp serve`, Python's `CostModel.adapt` and `mmp.teach`";
    case SettingCommand::Suggest: return "the flags of `mmp suggest`, Python's `CostModel.suggest`";
    case SettingCommand::Serve: return "the teaching page (what one image or request may ask of it) and `mmp serve --max-pixels`";
  }
  return "";
}

std::string referenceRow(const SettingKey& k, const PipelineSettings& defaults) {
  std::string where;
  if (!k.in_config) where = " (`select:` only)";
  else if (k.selectable) where = k.after_training ? " (also in `select:`, after training)" : " (also in `select:`)";
  const std::string value = k.get(defaults);
  return "| `" + k.key + "`" + where + " | " + rangeText(k) + " | " + (value.empty() ? k.unset : value) + " | " + k.meaning + " |\n";
}

}  // namespace

std::string settingsReference(SettingCommand command) {
  const PipelineSettings defaults;
  std::string out = "| key | valid values | default | meaning |\n|---|---|---|---|\n";
  for (const SettingKey& k : settingKeys()) {
    if (k.command == command) out += referenceRow(k, defaults);
  }
  return out;
}

std::string settingsReference() {
  std::string out = settingsReference(SettingCommand::Train);
  for (const SettingCommand command : {SettingCommand::Adapt, SettingCommand::Suggest, SettingCommand::Serve}) {
    out += "\n### `" + describe(command) + "`\n\nRead by " + commandSurfaces(command) + "; a train config may not set them.\n\n" +
           settingsReference(command);
  }
  return out;
}

}  // namespace mmp
