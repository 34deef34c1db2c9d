// mmp._train, mmp._evaluate and mmp.setting_keys: the maps_training pipeline from Python (the package's
// mmp.train and mmp.evaluate wrap the first two).  The settings are a dict with the keys of a `mmp
// train` config (classes, behaviour, features, demonstrations, loss, learner, evaluation, classifier,
// data_root), read by the config reader itself (tools::readPipelineSections).  An image entry is either
// what a config's train/holdout entry holds (files, patterns, synthetic scenes: tools::readRegionEntry)
// or arrays: {image: H x W x 3 uint8, labels: H x W uint8 class indices, demonstrations: [N x 2, ...],
// points: cells | pixels | world, channels, name, area, resolution, origin, crs}.  The figures come back
// as the JSON `mmp train` writes (metrics.json), and the pairs as the columns of pairs.csv.
#include "bindings.hpp"

#include <mmp/frontend/adapt_config.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/train_config.hpp>
#include <mmp/frontend/train_metrics.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/training/adaptation_run.hpp>
#include <mmp/maps/training/network_backend.hpp>
#include <mmp/maps/training/setting_keys.hpp>
#include <mmp/maps/training/training_run.hpp>

#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>

namespace mmp::python {
namespace {

// The keys of a settings dict: those of a train config but the images (given on their own) and select.
const std::vector<std::string> kSettingsKeys = {"data_root", "classes", "behaviour", "features", "demonstrations",
                                                "loss", "learner", "evaluation", "classifier"};

bool isPath(const py::handle& value) { return py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__"); }

// A demonstrated path given as an N x 2 array: (row, col) cells or pixels, or world (x, y).
PixelPath pathOf(const py::handle& value, const std::string& points, int cell_size, const std::string& where) {
  const auto a = denseArray<double>(value, where, "expected an N x 2 array of points (N >= 2)");
  if (a.ndim() != 2 || a.shape(1) != 2 || a.shape(0) < 2) {
    throw ConfigError(where + ": expected an N x 2 array of points (N >= 2), " +
                      (points == "world" ? std::string("world (x, y)") : "(row, col) " + points));
  }
  PixelPath path;
  path.world = points == "world";
  const double* p = a.data();
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    const double first = p[2 * i], second = p[2 * i + 1];
    if (points == "world") path.points.push_back({first, second});
    else if (points == "pixels") path.points.push_back({second, first});
    else path.points.push_back({(second + 0.5) * cell_size, (first + 0.5) * cell_size});  // a cell's centre pixel
  }
  return path;
}

// One entry whose image is an array.
RegionSpec arrayRegion(const py::dict& entry, const std::string& where, bool training, int cell_size,
                       const std::string& caller) {
  // The entry's scalar keys go through a ConfigNode (unknown keys, types, the frame); the arrays beside it.
  py::dict scalars;
  for (const auto& [key, value] : entry) {
    const bool arrays = py::isinstance<py::array>(value) || py::str(key).cast<std::string>() == "demonstrations";
    scalars[key] = arrays ? py::str("<array>") : value;
  }
  const tools::ConfigNode item = configNode(scalars, caller, where);
  std::vector<std::string> keys = {"image", "labels", "name", "area", "points", "channels", "resolution", "origin", "crs"};
  if (training) keys.push_back("demonstrations");
  item.expectKeys(keys);
  RegionSpec r;
  r.where = where;
  r.name = item.text("name", where);
  r.area = item.text("area", "");
  r.frame = tools::readFrame(item);
  const std::string channels = item.choice("channels", "rgb", {"rgb", "bgr"});
  const std::string points = item.choice("points", "cells", {"cells", "pixels", "world"});
  const py::array image = py::array::ensure(entry["image"]);
  if (!image) item.fail("image", "expected an image array or a file path");
  r.pixels = bgrImage(image, channels, caller + ": " + where + ".image");
  if (r.pixels.data == image.data()) r.pixels = r.pixels.clone();  // the pipeline runs without the GIL: own the pixels
  if (entry.contains("labels")) {
    const py::array labels = py::array::ensure(entry["labels"]);
    if (!labels || labels.ndim() != 2 || !labels.dtype().is(py::dtype::of<std::uint8_t>())) {
      item.fail("labels", "expected an H x W array of uint8 class indices (the classes' index values)");
    }
    checkAxes(labels, caller + ": " + where + ".labels");
    const auto dense = denseArray<std::uint8_t>(labels, caller + ": " + where + ".labels", "expected an H x W array of uint8");
    r.label_pixels = cv::Mat(static_cast<int>(dense.shape(0)), static_cast<int>(dense.shape(1)), CV_8UC1,
                             const_cast<std::uint8_t*>(dense.data())).clone();
  }
  if (entry.contains("demonstrations")) {
    const py::object paths = entry["demonstrations"];
    if (!py::isinstance<py::list>(paths) && !py::isinstance<py::tuple>(paths)) {
      item.fail("demonstrations", "expected a list of N x 2 arrays of points");
    }
    long i = 0;
    for (const py::handle path : paths) {
      r.demonstrations.push_back(pathOf(path, points, cell_size, caller + ": " + where + ".demonstrations[" + std::to_string(i) + "]"));
      r.demonstrations.back().name = std::to_string(++i);
    }
    if (r.demonstrations.empty()) item.fail("demonstrations", "the list is empty");
  }
  if (training && r.label_pixels.empty() && r.demonstrations.empty()) {
    item.fail("", "a training image needs 'labels' (demonstrations are then generated from the behaviour) or "
                  "'demonstrations' (arrays of points)");
  }
  if (!training && r.label_pixels.empty()) {
    item.fail("labels", "required: a holdout image is scored against reference paths planned on its labels");
  }
  return r;
}

std::vector<RegionSpec> regionsOf(const py::handle& entries, const std::string& key, bool training,
                                  const std::string& base, int cell_size, const std::string& caller) {
  std::vector<RegionSpec> regions;
  if (entries.is_none()) return regions;
  if (!py::isinstance<py::list>(entries) && !py::isinstance<py::tuple>(entries)) {
    throw ConfigError(caller + ": " + key + ": expected a list of image entries (dicts)");
  }
  long i = 0;
  for (const py::handle entry : entries) {
    const std::string where = key + "[" + std::to_string(i++) + "]";
    if (!py::isinstance<py::dict>(entry)) throw ConfigError(caller + ": " + where + ": expected a dict (an image entry)");
    const py::dict d = entry.cast<py::dict>();
    if (d.contains("image") && !isPath(d["image"])) {
      regions.push_back(arrayRegion(d, where, training, cell_size, caller));
      continue;
    }
    const std::vector<RegionSpec> files =
        tools::readRegionEntry(configNode(d, caller, where), training, base);
    regions.insert(regions.end(), files.begin(), files.end());
  }
  return regions;
}

// The settings of a dict and the images; `caller` names them in messages ("mmp.train: loss.scale: ...").
PipelineSettings pipelineSettings(const py::object& settings, const py::object& train, const py::object& holdout,
                                  int threads, const std::string& caller) {
  const tools::ConfigNode config = configNode(settings, caller);
  tools::refuseOtherCommands(config, SettingCommand::Train);  // adapt: belongs to mmp.teach, ...
  config.expectKeys(kSettingsKeys);
  PipelineSettings s;
  s.source = caller;
  tools::readPipelineSections(config, s);
  for (const std::string& w : tools::inapplicableSettings(config, s)) {
    if (PyErr_WarnEx(PyExc_UserWarning, (caller + ": " + w).c_str(), 1) != 0) throw py::error_already_set();  // -W error
  }
  s.threads = threads;
  const std::string base = tools::resolveDataRoot("", config);  // data_root or $MMP_DATA_ROOT; else the working folder
  s.train = regionsOf(train, "train", true, base, s.features.cell_size, caller);
  s.holdout = regionsOf(holdout, "holdout", false, base, s.features.cell_size, caller);
  return s;
}

StageCallback stageCallback(const Interrupts& interrupts) {
  return [interrupts](const std::string& stage, long done, long total, const std::string& detail) {
    interrupts.poll(stage, done, total, detail);
  };
}

// pairs.csv's columns, for a record array.
py::dict pairColumns(const std::vector<PairRecord>& records) {
  py::list region, method;
  std::vector<int> pair, start_row, start_col, goal_row, goal_col;
  std::vector<double> cost_ratio, preferred_share, mhd_px, impassable_px;
  std::vector<bool> feasible;
  for (const PairRecord& r : records) {
    region.append(r.region), method.append(r.method);
    pair.push_back(r.pair), start_row.push_back(r.start_row), start_col.push_back(r.start_col);
    goal_row.push_back(r.goal_row), goal_col.push_back(r.goal_col);
    cost_ratio.push_back(r.cost_ratio), feasible.push_back(r.feasible), preferred_share.push_back(r.preferred_share);
    mhd_px.push_back(r.mhd_px), impassable_px.push_back(r.impassable_px);
  }
  py::dict columns;
  columns["region"] = region, columns["pair"] = pair, columns["start_row"] = start_row, columns["start_col"] = start_col;
  columns["goal_row"] = goal_row, columns["goal_col"] = goal_col, columns["method"] = method;
  columns["cost_ratio"] = cost_ratio, columns["feasible"] = feasible, columns["preferred_share"] = preferred_share;
  columns["mhd_px"] = mhd_px, columns["impassable_px"] = impassable_px;
  return columns;
}

// (model, metrics.json text, pair columns) of a run.
py::tuple runResult(const TrainingRun& run) {
  const std::string metrics = tools::jsonText(tools::metricsJson(run, tools::Json()), -1);
  return py::make_tuple(std::make_shared<CostModel>(run.run.trained.model), metrics, pairColumns(run.report.records));
}

}  // namespace

void bindTraining(py::module_& m) {
  // The runtime seam (network_backend.hpp): the package registers the loader of libtorch's module at
  // import (mmp/_runtime.py), a callable that returns the module's table as an address; it runs on the
  // first network trained, from whichever thread trains it.
  m.def("_set_network_backend", [](py::object load) {
    const auto* kept = new py::object(std::move(load));  // never freed: it may run until the process ends
    setNetworkBackend([kept](std::string& why) -> const NetworkTorchModule* {
      const py::gil_scoped_acquire gil;
      try {
        return reinterpret_cast<const NetworkTorchModule*>((*kept)().cast<std::uintptr_t>());
      } catch (py::error_already_set& e) {
        why = py::str(e.value());
        return nullptr;
      }
    });
  });
  py::list pins;
  for (const KernelPin& pin : kNetworkKernelPins) pins.append(py::make_tuple(pin.variable, pin.value));
  m.attr("_kernel_pins") = py::tuple(pins);  // the package sets them before it loads this module; a test compares
  m.def("_train", [](const py::object& train_entries, const py::object& holdout_entries, const py::object& settings,
                     const py::object& progress, int threads) {
    const PipelineSettings s = pipelineSettings(settings, train_entries, holdout_entries, threads, "mmp.train");
    const Interrupts interrupts(progress);
    const StageCallback callback = stageCallback(interrupts);
    std::optional<TrainingRun> run;
    {
      py::gil_scoped_release release;
      if (!s.holdout.empty()) {
        run.emplace(trainAndReport(s, nullptr, {}, callback));
      } else {  // no holdout: training alone, without the baselines
        TrainingData data = loadTrainingData(s, callback);
        TrainedCostModel trained = train(data, s, callback);
        run.emplace(TrainingRun{std::nullopt, s, RunResult{std::move(data), std::move(trained), std::nullopt, {}},
                                reportHoldouts({}, s.classes), std::nullopt});
      }
    }
    return runResult(*run);
  }, py::arg("train"), py::arg("holdout"), py::arg("settings"), py::arg("progress"), py::arg("threads"));

  m.def("_evaluate", [](const CostModel& model, const py::object& holdout_entries, const py::object& settings,
                        const py::object& progress) {
    if (!settings.is_none() && settings.cast<py::dict>().contains("features")) {
      throw ConfigError("mmp.evaluate: features: the model brings its own feature settings; leave them out");
    }
    PipelineSettings s = pipelineSettings(settings, py::none(), holdout_entries, -1, "mmp.evaluate");
    s.features = model.features().settings();
    if (s.holdout.empty()) throw ConfigError("mmp.evaluate: holdout: the list is empty");
    const Interrupts interrupts(progress);
    const StageCallback callback = stageCallback(interrupts);
    HoldoutReport report;
    {
      py::gil_scoped_release release;
      std::vector<HoldoutResult> holdouts;
      for (std::size_t i = 0; i < s.holdout.size(); ++i) {
        holdouts.push_back(evaluateHoldout(s, static_cast<int>(i), model, nullptr, callback));
      }
      report = reportHoldouts(holdouts, s.classes);
    }
    tools::Json metrics = {{"behaviour", s.behaviour.name},
                           {"methods", tools::methodsJson(report)},
                           {"learned_vs", tools::comparisonsJson(report)},
                           {"holdout_pairs", report.pairs},
                           {"reference_preferred_share", report.referencePreferredShare()},
                           {"impassable_cost", impassableCost(s)}};
    if (s.evaluation.class_mean) metrics["misread_cells"] = tools::misreadJson(report);
    return py::make_tuple(tools::jsonText(metrics, -1), pairColumns(report.records));
  }, py::arg("model"), py::arg("holdout"), py::arg("settings"), py::arg("progress"));

  m.def("_teach", [](const CostModel& model, const py::object& teach_entries, const py::object& holdout_entries,
                     const py::object& settings, const py::object& progress) {
    const std::string caller = "mmp.teach";
    const tools::ConfigNode config = configNode(settings, caller);
    tools::refuseOtherCommands(config, SettingCommand::Adapt);
    config.expectKeys({"data_root", "classes", "behaviour", "demonstrations", "evaluation", "adapt"});
    AdaptationRunSettings s;
    s.source = caller;
    if (config.has("behaviour")) tools::readPipelineSections(config, s);
    tools::readAdaptSection(config, s);
    const std::string base = tools::resolveDataRoot("", config);
    const int cell_size = model.features().settings().cell_size;
    s.train = regionsOf(teach_entries, "teach", true, base, cell_size, caller);
    s.holdout = regionsOf(holdout_entries, "holdout", false, base, cell_size, caller);
    const Interrupts interrupts(progress);
    const StageCallback callback = stageCallback(interrupts);
    std::optional<AdaptationRun> run;
    {
      py::gil_scoped_release release;
      run.emplace(adaptAndReport(model, s, {}, callback));
    }
    const std::string metrics = tools::jsonText(tools::adaptationMetricsJson(*run, s, model.source()), -1);
    return py::make_tuple(std::make_shared<CostModel>(run->model), metrics, pairColumns(run->report.records));
  }, py::arg("model"), py::arg("teach"), py::arg("holdout"), py::arg("settings"), py::arg("progress"));

  m.def("setting_keys", [] {
    const PipelineSettings defaults;
    py::list out;
    for (const SettingKey& k : settingKeys()) {
      if (!k.in_config) continue;
      const std::string value = k.get(defaults);
      out.append(py::dict(py::arg("key") = k.key, py::arg("valid") = rangeText(k),
                          py::arg("default") = value.empty() ? k.unset : value, py::arg("meaning") = k.meaning,
                          py::arg("command") = describe(k.command)));
    }
    return out;
  }, R"(The settings table of docs/config.md: [{key, valid, default, meaning, command}] for every dotted key
("loss.scale" is settings["loss"]["scale"]); command says which reads it: "mmp train" (mmp.train's
settings), "mmp adapt" (mmp.teach's adapt dict, CostModel.adapt's keywords), "mmp suggest"
(CostModel.suggest's keywords) or "mmp serve" (the teaching page's bounds).  The learner's online and batch
sections (learner.online.epochs, ...) are read as in a config too; see docs/config.md.)");
}

}  // namespace mmp::python
