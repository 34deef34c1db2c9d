// mmp.CostModel, mmp.CostGrid, mmp.Frame, load_image, synthetic_scene, write_nav2: what a navigation
// stack uses (mmp::maps).  Positions are (row, col) in cell units everywhere in the module, an integer
// (row, col) being the centre of that cell; world points are (x, y) of a Frame.
#include "bindings.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/lethal_rules.hpp>
#include <mmp/maps/nav2_map.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/setting_keys.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp::python {
namespace {

std::string colourText(const LabelClass& c) { return c.rgb ? hexColour(*c.rgb) : std::string(); }

// The image keyword of adapt and suggest: a file path (its georeference kept; `name` set to it) or an
// H x W x 3 array in `channels` order.
GeoImage imageArgument(const py::object& image, const std::string& channels, const char* caller, std::string* name = nullptr) {
  GeoImage geo;
  if (py::isinstance<py::str>(image) || py::hasattr(image, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(image)).cast<std::string>();
    if (name) *name = path;
    return loadGeoImage(path);
  }
  const py::array array = py::array::ensure(image);
  if (!array) throw InvalidArgument(std::string(caller) + ": image: expected an array or a file path");
  geo.pixels = bgrImage(array, channels, "image");
  return geo;
}

// Keyword arguments that set rows of the settings table (setting_keys.hpp): each checked by its row's
// range, as a config key or a flag is, and refused naming the keyword.
class SettingKeywords {
 public:
  explicit SettingKeywords(std::string function) : function_(std::move(function)) {}
  void set(const char* keyword, const std::string& key, double value) { apply(keyword, key, exactNumberText(value)); }
  void set(const char* keyword, const std::string& key, long long value) { apply(keyword, key, std::to_string(value)); }
  void set(const char* keyword, const std::string& key, bool value) { apply(keyword, key, value ? "true" : "false"); }
  void set(const char* keyword, const std::string& key, const std::string& value) { apply(keyword, key, value); }
  const PipelineSettings& settings() const { return settings_; }

 private:
  void apply(const char* keyword, const std::string& key, const std::string& text) {
    const SettingKey& k = *findSettingKey(key);
    SettingValue v;
    try {
      v = parseSettingValue(k, text);
    } catch (const InvalidArgument&) {
      throw InvalidArgument(function_ + ": " + keyword + "=" + text + ": expected " + rangeText(k) + " (the setting " + key + ")");
    }
    k.set(settings_, v);
  }

  std::string function_;
  PipelineSettings settings_;
};

// (N, 2) or (2,) points in, the same shape out, each point mapped by f.
template <class F>
py::array_t<double> mapPoints(const py::object& points, const char* what, F f) {
  const auto in = denseArray<double>(points, what, "expected one point (2 numbers) or an N x 2 array of points");
  if (!((in.ndim() == 1 && in.shape(0) == 2) || (in.ndim() == 2 && in.shape(1) == 2))) {
    throw InvalidArgument(std::string(what) + ": expected one point (2 numbers) or an N x 2 array of points");
  }
  py::array_t<double> out(in.request().shape);
  const double* p = in.data();
  double* q = out.mutable_data();
  for (py::ssize_t i = 0; i < in.size() / 2; ++i) f(p[2 * i], p[2 * i + 1], q[2 * i], q[2 * i + 1]);
  return out;
}

WorldFrame makeFrame(int rows, int cols, double resolution, std::pair<double, double> origin, const std::string& crs) {
  if (rows < 1 || cols < 1) {
    throw InvalidArgument("Frame: rows and cols must be >= 1, got " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  if (resolution == 0.0) {
    if (!crs.empty()) throw InvalidArgument("Frame: a crs needs a resolution > 0");
    return WorldFrame::unlocated(rows, cols);
  }
  return WorldFrame::located(rows, cols, resolution, {origin.first, origin.second}, crs);
}

void bindFrame(py::module_& m) {
  py::class_<WorldFrame>(m, "Frame", R"(Where a grid of cells lies in the world (Nav2's convention): the resolution
(world units per cell side), the origin (x, y) of the lower-left corner of cell (rows - 1, 0) and the
CRS as WKT.  resolution 0: cells only, no world coordinates.  Points in cells are (row, col), an
integer one being the centre of that cell; world points are (x, y).)")
      .def(py::init(&makeFrame), py::arg("rows"), py::arg("cols"), py::arg("resolution") = 0.0,
           py::arg("origin") = std::pair<double, double>{0.0, 0.0}, py::arg("crs") = "")
      .def_readonly("rows", &WorldFrame::rows)
      .def_readonly("cols", &WorldFrame::cols)
      .def_readonly("resolution", &WorldFrame::resolution)
      .def_property_readonly("origin", [](const WorldFrame& f) { return std::make_pair(f.origin.x, f.origin.y); })
      .def_readonly("crs", &WorldFrame::crs)
      .def_property_readonly("has_world", &WorldFrame::hasWorld)
      .def("to_world", [](const WorldFrame& f, const py::object& cells) {
             return mapPoints(cells, "to_world", [&](double row, double col, double& x, double& y) {
               const WorldPoint w = f.toWorld({col + 0.5, row + 0.5});
               x = w.x, y = w.y;
             });
           }, py::arg("cells"), "(row, col) cell positions -> world (x, y); one point or N x 2")
      .def("to_cell", [](const WorldFrame& f, const py::object& points) {
             return mapPoints(points, "to_cell", [&](double x, double y, double& row, double& col) {
               const CellPoint c = f.toCell({x, y});
               row = c.v - 0.5, col = c.u - 0.5;
             });
           }, py::arg("points"), "world (x, y) -> (row, col) cell positions (continuous); one point or N x 2")
      .def("cell_at", [](const WorldFrame& f, double x, double y) -> py::object {
             const int cell = f.cellAt({x, y});
             if (cell < 0) return py::none();
             return py::make_tuple(cell / f.cols, cell % f.cols);
           }, py::arg("x"), py::arg("y"), "the (row, col) of the cell holding world point (x, y), None outside")
      .def_property_readonly("extent", &WorldFrame::extentText)
      .def("__repr__", [](const WorldFrame& f) {
        if (!f.hasWorld()) return "mmp.Frame(" + std::to_string(f.rows) + " x " + std::to_string(f.cols) + " cells, no world frame)";
        return "mmp.Frame(" + std::to_string(f.rows) + " x " + std::to_string(f.cols) + " cells of " + numberText(f.resolution) +
               ", origin (" + numberText(f.origin.x) + ", " + numberText(f.origin.y) + ")" + (f.crs.empty() ? "" : ", with CRS") + ")";
      });
}

std::shared_ptr<CostGrid> gridFromArray(const py::object& costs, const std::optional<WorldFrame>& frame, int cell_size,
                                        const py::object& unknown) {
  const auto values = denseArray<double>(costs, "CostGrid: costs", "expected a non-empty 2-D array of numbers (rows x cols)");
  if (values.ndim() != 2 || values.size() == 0) {
    throw InvalidArgument("CostGrid: costs must be a non-empty 2-D array of numbers (rows x cols)");
  }
  if (cell_size < 1) throw InvalidArgument("CostGrid: cell_size must be >= 1, got " + std::to_string(cell_size));
  auto grid = std::make_shared<CostGrid>();
  grid->rows = static_cast<int>(values.shape(0));
  grid->cols = static_cast<int>(values.shape(1));
  grid->cell_size = cell_size;
  grid->costs.assign(values.data(), values.data() + values.size());
  grid->frame = frame ? *frame : WorldFrame::unlocated(grid->rows, grid->cols);
  if (grid->frame.rows != grid->rows || grid->frame.cols != grid->cols) {
    throw InvalidArgument("CostGrid: the frame has " + std::to_string(grid->frame.rows) + " x " +
                          std::to_string(grid->frame.cols) + " cells, the costs " + std::to_string(grid->rows) + " x " +
                          std::to_string(grid->cols));
  }
  if (!unknown.is_none()) {
    const auto mask = denseArray<std::uint8_t>(unknown, "CostGrid: unknown", "expected a rows x cols array like the costs");
    if (mask.ndim() != 2 || mask.shape(0) != grid->rows || mask.shape(1) != grid->cols) {
      throw InvalidArgument("CostGrid: unknown must be a rows x cols array like the costs (non-zero: no data)");
    }
    grid->unknown.assign(mask.data(), mask.data() + mask.size());
  }
  return grid;
}

}  // namespace

std::shared_ptr<CostGrid> costGrid(const py::object& costs, const std::optional<WorldFrame>& frame) {
  if (!py::isinstance<CostGrid>(costs)) return gridFromArray(costs, frame, 1, py::none());
  auto grid = costs.cast<std::shared_ptr<CostGrid>>();
  if (!frame) return grid;
  if (frame->rows != grid->rows || frame->cols != grid->cols) {
    throw InvalidArgument("frame: it has " + std::to_string(frame->rows) + " x " + std::to_string(frame->cols) +
                          " cells, the cost grid " + std::to_string(grid->rows) + " x " + std::to_string(grid->cols));
  }
  grid = std::make_shared<CostGrid>(*grid);  // the caller's grid keeps its own frame
  grid->frame = *frame;
  return grid;
}

namespace {

// A view of a grid's costs (rows x cols float64) that keeps the grid alive.
py::array costsView(const py::object& self) {
  const CostGrid& g = self.cast<const CostGrid&>();
  return py::array_t<double>({g.rows, g.cols}, {static_cast<py::ssize_t>(g.cols) * 8, py::ssize_t{8}},
                             const_cast<double*>(g.costs.data()), self);
}

void bindCostGrid(py::module_& m) {
  py::class_<CostGrid, std::shared_ptr<CostGrid>>(m, "CostGrid", R"(Per-cell path costs in a world frame, as
CostModel.cost_grid gives them and plan and write_nav2 take them.  costs is a rows x cols float64 view
of the grid (no copy; writing to it changes the grid); +inf marks an impassable cell.  unknown: None,
or a rows x cols uint8 view, non-zero where the image had no data.  cell_size: pixels per cell side.)")
      .def(py::init(&gridFromArray), py::arg("costs"), py::arg("frame") = py::none(), py::arg("cell_size") = 1,
           py::arg("unknown") = py::none(), "a grid of a copy of `costs` (2-D), in `frame` (default: cells only)")
      .def_readonly("rows", &CostGrid::rows)
      .def_readonly("cols", &CostGrid::cols)
      .def_readonly("cell_size", &CostGrid::cell_size)
      .def_readonly("frame", &CostGrid::frame)
      .def_property_readonly("costs", [](const py::object& self) { return costsView(self); })
      .def_property_readonly("unknown", [](const py::object& self) -> py::object {
        const CostGrid& g = self.cast<const CostGrid&>();
        if (g.unknown.empty()) return py::none();
        return py::array_t<std::uint8_t>({g.rows, g.cols}, {static_cast<py::ssize_t>(g.cols), py::ssize_t{1}},
                                         const_cast<std::uint8_t*>(g.unknown.data()), self);
      })
      .def("__repr__", [](const CostGrid& g) {
        return "mmp.CostGrid(" + std::to_string(g.rows) + " x " + std::to_string(g.cols) + " cells of " +
               std::to_string(g.cell_size) + " px" + (g.frame.hasWorld() ? ", in a world frame" : "") + ")";
      });
}

TileSettings tileSettings(int tile_cells, int threads) {
  TileSettings tiles;
  tiles.tile_cells = tile_cells;
  tiles.threads = threads;
  return tiles;
}

// The model's costs of an image array or of an image file (GeoTIFF frames kept), GIL released.
std::shared_ptr<CostGrid> gridOf(const CostModel& model, const py::object& image, const std::string& channels,
                                 const FrameSettings& frame, const TileSettings& tiles) {
  auto grid = std::make_shared<CostGrid>();
  if (py::isinstance<py::str>(image) || py::hasattr(image, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(image)).cast<std::string>();
    py::gil_scoped_release release;
    const GeoImage geo = loadGeoImage(path, frame);
    try {
      *grid = model.costs(geo, tiles);
    } catch (const DataError& e) {
      throw DataError(std::string(e.what()) + " (on '" + path + "')");
    }
    return grid;
  }
  const py::array array = py::array::ensure(image);
  if (!array) throw InvalidArgument("image: expected an array or a file path");
  const cv::Mat bgr = bgrImage(array, channels, "image");
  py::gil_scoped_release release;
  if (frame.given()) {
    GeoImage geo;
    geo.pixels = bgr;
    geo.frame = frameOf(frame, bgr.rows, bgr.cols);
    *grid = model.costs(geo, tiles);
  } else {
    *grid = model.costs(bgr, tiles);
  }
  return grid;
}

void bindCostModel(py::module_& m) {
  py::class_<CostModel, std::shared_ptr<CostModel>>(m, "CostModel", R"(Everything that turns an image into path
costs: the feature settings and scaling, the learned weights and cost form (and LEARCH's trees or a
network).  CostModel.load(path) reads a model that `mmp train` or mmp.train wrote.  costs() may be
called from several threads at once.)")
      .def_static("load", [](const std::string& path) {
        py::gil_scoped_release release;
        return std::make_shared<CostModel>(CostModel::load(path));
      }, py::arg("path"), "reads a model file; raises ModelFileError or DataError naming the file")
      .def("save", [](const CostModel& model, const std::string& path) {
        py::gil_scoped_release release;
        model.save(path);
      }, py::arg("path"), "writes the model file atomically")
      .def("costs", [](const CostModel& model, const py::object& image, const std::string& channels, int tile_cells, int threads) {
        const std::shared_ptr<CostGrid> grid = gridOf(model, image, channels, {}, tileSettings(tile_cells, threads));
        py::array_t<float> out({grid->rows, grid->cols});
        float* values = out.mutable_data();
        py::gil_scoped_release release;
        std::transform(grid->costs.begin(), grid->costs.end(), values, [](double c) { return static_cast<float>(c); });
        return out;
      }, py::arg("image"), py::arg("channels") = "rgb", py::arg("tile_cells") = 256, py::arg("threads") = 0,
         R"(The cost of every cell of an H x W x 3 uint8 image (channels "rgb" or "bgr"; "bgr" with contiguous
pixels is read in place): a rows x cols float32 array, rows = H // cell_size, cols = W // cell_size;
+inf is impassable.  Tiles of tile_cells cells on `threads` threads (0: every core).)")
      .def("cost_grid", [](const CostModel& model, const py::object& image, const std::string& channels,
                           const py::object& resolution, const py::object& origin, const std::string& crs, int tile_cells,
                           int threads) {
        return gridOf(model, image, channels, frameSettings(resolution, origin, crs, "CostModel.cost_grid"),
                      tileSettings(tile_cells, threads));
      }, py::arg("image"), py::arg("channels") = "rgb", py::arg("resolution") = py::none(), py::arg("origin") = py::none(),
         py::arg("crs") = "", py::arg("tile_cells") = 256, py::arg("threads") = 0,
         R"(The CostGrid of an image array or an image file.  A GeoTIFF (any raster GDAL reads with a
georeference) keeps its world frame; a plain image or an array takes one from resolution (world units
per pixel), origin ((x, y) of its lower-left corner) and crs, or stays in cells.  Cells holding pixels
without data are +inf and marked in grid.unknown.)")
      .def("adapt", [](const CostModel& model, const py::object& image, const py::list& paths, double lambda, long long epochs,
                       long long learch_rounds, double loss_radius_px, long long threads, const std::string& channels, double network_lambda,
                       double network_step, long long network_epochs, bool network_head_only, const py::list& avoid,
                       const py::list& prefer) {
        SettingKeywords keywords("adapt");
        keywords.set("lambda_", "adapt.lambda", lambda);
        keywords.set("epochs", "adapt.epochs", epochs);
        keywords.set("learch_rounds", "adapt.learch_rounds", learch_rounds);
        keywords.set("loss_radius_px", "adapt.loss.radius_px", loss_radius_px);
        keywords.set("threads", "adapt.threads", threads);
        keywords.set("network_lambda", "adapt.network_lambda", network_lambda);
        keywords.set("network_step", "adapt.network_step", network_step);
        keywords.set("network_epochs", "adapt.network_epochs", network_epochs);
        keywords.set("network_head_only", "adapt.network_head_only", network_head_only);
        const AdaptationSettings settings = keywords.settings().adapt;
        std::string name = "image";
        const GeoImage geo = imageArgument(image, channels, "adapt", &name);
        std::vector<TaughtDemonstration> demos;
        CostModelTeacher teacher(model, settings);
        const int index = teacher.addImage(geo, name);
        const auto cellsOf = [&teacher, index](const py::handle& item, const std::string& where) {
          // (row, col) cells are whole numbers: a bool array, or floats with a fraction, are not cells
          if (const py::array given = py::array::ensure(item); given && given.dtype().kind() == 'b') {
            throw InvalidArgument("adapt: " + where + ": a bool array; expected an N x 2 array of (row, col) cells (integers)");
          } else if (given && given.dtype().kind() == 'f') {
            const auto values = py::array_t<double, py::array::forcecast>::ensure(given);
            for (py::ssize_t i = 0; values && i < values.size(); ++i) {
              if (values.data()[i] != std::floor(values.data()[i])) {
                throw InvalidArgument("adapt: " + where + " holds " + numberText(values.data()[i]) +
                                      ": (row, col) cells are whole numbers (mmp.plan's path, or pixel / cell_size rounded)");
              }
            }
          }
          const auto cells = denseArray<long long>(item, "adapt: " + where, "expected an N x 2 array of (row, col) cells");
          if (cells.ndim() != 2 || cells.shape(1) != 2) throw InvalidArgument("adapt: " + where + ": expected an N x 2 array of (row, col) cells");
          std::vector<int> out;
          for (py::ssize_t i = 0; i < cells.shape(0); ++i) {
            const long long r = cells.at(i, 0), c = cells.at(i, 1);
            if (r < 0 || c < 0 || r >= teacher.rows(index) || c >= teacher.cols(index)) {
              throw InvalidArgument("adapt: " + where + "[" + std::to_string(i) + "] = (" + std::to_string(r) + ", " + std::to_string(c) +
                                    ") is off the image's " + std::to_string(teacher.rows(index)) + " x " +
                                    std::to_string(teacher.cols(index)) + " cells");
            }
            out.push_back(static_cast<int>(r) * teacher.cols(index) + static_cast<int>(c));
          }
          return out;
        };
        for (std::size_t d = 0; d < paths.size(); ++d) demos.push_back({index, cellsOf(paths[d], "paths[" + std::to_string(d) + "]"), {}});
        std::vector<TeachingMark> marks;
        for (std::size_t m = 0; m < avoid.size(); ++m) marks.push_back({index, cellsOf(avoid[m], "avoid[" + std::to_string(m) + "]"), MarkKind::Avoid});
        for (std::size_t m = 0; m < prefer.size(); ++m) marks.push_back({index, cellsOf(prefer[m], "prefer[" + std::to_string(m) + "]"), MarkKind::Prefer});
        TeachingStep step;
        {
          py::gil_scoped_release release;
          if (!demos.empty() || !marks.empty()) step = teacher.teach(demos, marks);  // one adaptation over the set
        }
        for (const std::string& warning : step.warnings) {  // ground moved that no path showed
          if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1) != 0) throw py::error_already_set();
        }
        return std::make_shared<CostModel>(teacher.model());
      }, py::arg("image"), py::arg("paths"), py::arg("lambda_") = AdaptationSettings{}.lambda,
         py::arg("epochs") = AdaptationSettings{}.epochs, py::arg("learch_rounds") = AdaptationSettings{}.learch_rounds,
         py::arg("loss_radius_px") = AdaptationSettings{}.loss.radius_px, py::arg("threads") = 1, py::arg("channels") = "rgb",
         py::arg("network_lambda") = AdaptationSettings{}.network_lambda, py::arg("network_step") = AdaptationSettings{}.network_step,
         py::arg("network_epochs") = AdaptationSettings{}.network_epochs,
         py::arg("network_head_only") = AdaptationSettings{}.network_head_only, py::arg("avoid") = py::list(), py::arg("prefer") = py::list(),
         R"(A new model: this one taught on a new site (docs/teaching.md; `mmp adapt`).  image: an H x W x 3 uint8
array or an image file; paths: demonstrated paths on it, each an N x 2 array of (row, col) cells, 8-connected,
taught as one set (the order does not matter).  Linear models adapt to the optimum toward this model (lambda_ its pull; epochs caps the passes), LEARCH
models by new trees (learch_rounds), network models by fine-tuning (network_lambda its pull, network_step,
network_epochs, network_head_only: the last layer alone).  This model is not changed; the new one's
info records what it was taught.  avoid: ground that must stay dear (a lake, roofs), each an N x 2 array
of (row, col) cells, held dearer than the paths' ground; prefer: ground that may be cheap, held
no dearer than the paths' ground (or than this model had it, if cheaper).  Ground the paths did not show whose cost moved past 1.5x relative to
theirs raises a UserWarning naming it.  Each keyword but image, paths, channels, avoid and prefer is an adapt.*
setting (docs/config.md: its range): a value outside it raises InvalidArgument naming the keyword and the
range.)")
      .def("suggest", [](const CostModel& model, const py::object& image, long long n, const std::string& rule, long long candidates,
                         double min_separation_px, long long members, double spread, long long seed, long long threads,
                         const std::string& channels) {
        SettingKeywords keywords("suggest");
        keywords.set("n", "suggest.n", n);
        keywords.set("rule", "suggest.rule", rule);
        keywords.set("candidates", "suggest.candidates", candidates);
        keywords.set("min_separation_px", "suggest.min_separation_px", min_separation_px);
        keywords.set("members", "suggest.members", members);
        keywords.set("spread", "suggest.spread", spread);
        keywords.set("seed", "suggest.seed", seed);
        keywords.set("threads", "suggest.threads", threads);
        const SuggestionSettings settings = keywords.settings().suggest;
        const SuggestionSearch search = keywords.settings().suggestion_search;
        const GeoImage geo = imageArgument(image, channels, "suggest");
        std::vector<SuggestedPair> chosen;
        int cols = 0;
        {
          py::gil_scoped_release release;
          const std::shared_ptr<const FeatureMap> map = teachingMap(model, geo);
          cols = map->cols();
          chosen = suggestDemonstrations(model, *map, search, settings);
        }
        py::list out;
        for (const SuggestedPair& p : chosen) {
          out.append(py::make_tuple(py::make_tuple(p.start / cols, p.start % cols), py::make_tuple(p.goal / cols, p.goal % cols), p.value));
        }
        return out;
      }, py::arg("image"), py::arg("n") = SuggestionSearch{}.n, py::arg("rule") = describe(SuggestionSettings{}.rule),
         py::arg("candidates") = SuggestionSearch{}.candidates, py::arg("min_separation_px") = SuggestionSearch{}.min_separation_px,
         py::arg("members") = SuggestionSettings{}.members, py::arg("spread") = SuggestionSettings{}.spread,
         py::arg("seed") = SuggestionSettings{}.seed, py::arg("threads") = 1, py::arg("channels") = "rgb",
         R"(Where to demonstrate next on an image (`mmp suggest`; docs/teaching.md): up to n start/goal pairs, the most
valuable first, as ((row, col), (row, col), value) in cells.  rule: "change" (the expected change of the image's
costs a demonstration would make) or "committee" (how far perturbed plans stray).  Each keyword is a
suggest.* setting (docs/config.md: its range): a value outside it raises InvalidArgument naming the keyword
and the range.  Reproducible for a seed, whatever threads.)")
      .def_property_readonly("info", &CostModel::info, "what produced the model (behaviour, learner, training images, ...)")
      .def_property_readonly("summary", [](const CostModel& model) {
        py::dict out;  // in summary()'s order (Python dicts keep it)
        for (const auto& [key, value] : model.summary()) out[py::str(key)] = value;
        return out;
      }, "what the model is and where it came from, as `mmp info` prints it: format, behaviour, cost, learner, "
         "features, ..., the provenance mmp train records (mmp_version, config, holdout figures, data fingerprints)")
      .def("familiarity", [](const CostModel& model, const py::object& image, const std::string& channels,
                             const py::object& valid) {
        Familiarity f;
        if (py::isinstance<py::str>(image) || py::hasattr(image, "__fspath__")) {
          if (!valid.is_none()) throw InvalidArgument("familiarity: valid is for arrays; a file's no-data pixels are read from it");
          const std::string path = py::str(py::module_::import("os").attr("fspath")(image)).cast<std::string>();
          py::gil_scoped_release release;
          ImageRows rows(path);
          f = familiarity(model, rows);
        } else {
          const py::array array = py::array::ensure(image);
          if (!array) throw InvalidArgument("familiarity: image: expected an array or a file path");
          const cv::Mat bgr = bgrImage(array, channels, "image");
          cv::Mat mask;
          if (!valid.is_none()) {
            const auto v = denseArray<std::uint8_t>(valid, "familiarity: valid", "expected an H x W array of the image's pixels");
            if (v.ndim() != 2 || v.shape(0) != bgr.rows || v.shape(1) != bgr.cols) {
              throw InvalidArgument("familiarity: valid: expected an H x W array (non-zero where the image has data) of the "
                                    "image's " + std::to_string(bgr.rows) + " x " + std::to_string(bgr.cols) + " pixels");
            }
            mask = cv::Mat(bgr.rows, bgr.cols, CV_8UC1, const_cast<std::uint8_t*>(v.data())).clone();
          }
          py::gil_scoped_release release;
          f = model.familiarity(bgr, mask);
        }
        py::dict out;
        out["cells"] = f.cells;
        out["outside"] = f.outside;
        out["share"] = f.share();
        out["known"] = f.known;
        out["warns"] = f.warns();
        out["warn_share"] = Familiarity::kWarnShare;
        out["texture_known"] = f.texture_known;
        out["textured_cells"] = f.textured;
        out["texture_outside"] = f.texture_outside;
        out["texture_share"] = f.textureShare();
        out["texture_warn_share"] = Familiarity::kTextureWarnShare;
        out["description"] = f.describe();
        return out;
      }, py::arg("image"), py::arg("channels") = "rgb", py::arg("valid") = py::none(),
         R"(How much of an image the model's training statistics cover (the out-of-distribution check that
mmp costmap and mmp plan print): a dict with cells (checked), outside (cells whose colour no training cell
was near), share, known (False for a model without statistics), texture_known (False for a model saved
before texture statistics were kept), textured_cells (cells of whole texture blocks), texture_outside (of
them, cells whose colour and block contrast no training cell was near), texture_share, warns (share above
warn_share, texture_share above texture_warn_share, or too few colours) and a one-line description.  image: an H x W x 3 uint8 array (channels "rgb" or "bgr"; valid: an optional H x W
mask, non-zero where there is data) or an image file, read band by band.)")
      .def_property_readonly("source", &CostModel::source)
      .def_property_readonly("form", [](const CostModel& model) { return std::string(describe(model.form())); })
      .def_property_readonly("kind", [](const CostModel& model) {
        return std::string(hypothesisName(model.hypothesis()));
      }, "linear (weights on the features), learch (plus boosted trees) or network (plus a network)")
      .def_property_readonly("weights", [](const CostModel& model) {
        return py::array_t<double>(model.weights().size(), model.weights().data());
      })
      .def_property_readonly("feature_names", [](const CostModel& model) { return model.features().names(); })
      .def_property_readonly("cell_size", [](const CostModel& model) { return model.features().settings().cell_size; })
      .def_property_readonly("ground_resolution", [](const CostModel& model) {
        return model.features().settings().ground_resolution;
      }, "metres per pixel of the imagery the model was trained on; 0: not declared")
      .def("with_ground_resolution", [](const CostModel& model, double metres_per_pixel, const std::string& upsample) {
        auto copy = std::make_shared<CostModel>(model);
        copy->setGroundResolution(metres_per_pixel, upsample);
        return copy;
      }, py::arg("metres_per_pixel"), py::arg("upsample") = "cubic", R"(A copy of the model that declares the ground
resolution of its training imagery (0: not declared): images of another known resolution (a GeoTIFF's,
cost_grid's resolution, an mmp.evaluate entry's resolution) are then resampled to it before their
features are computed: a finer one by area averaging, a coarser one by upsample ("cubic", "linear", or
"none": taken as it comes).)")
      .def("__repr__", [](const CostModel& model) {
        return "mmp.CostModel(" + model.source() + ", " + std::to_string(model.weights().size()) + " features, " +
               describe(model.form()) + " costs, cells of " + std::to_string(model.features().settings().cell_size) + " px)";
      });
}

py::dict nav2Info(const Nav2MapInfo& info) {
  py::dict d;
  d["yaml"] = info.yaml;
  d["image"] = info.image;
  d["levels"] = info.levels;
  d["levels_used"] = info.levels_used;
  d["lowest"] = info.lowest;
  d["highest"] = info.highest;
  d["passable"] = info.passable;
  d["lethal"] = info.lethal;
  d["lethal_by_cost"] = info.lethal_by_cost;
  d["lethal_by_mask"] = info.lethal_by_mask;
  d["unknown"] = info.unknown;
  return d;
}

}  // namespace

void bindMaps(py::module_& m) {
  bindFrame(m);
  bindCostGrid(m);
  bindCostModel(m);

  m.def("load_image", [](const std::string& path, const std::string& channels) {
    cv::Mat bgr;
    {
      py::gil_scoped_release release;
      bgr = loadImage(path);
    }
    return imageArray(bgr, channels);
  }, py::arg("path"), py::arg("channels") = "rgb",
        "an image file (PNG, JPEG, TIFF, any raster GDAL reads) as an H x W x 3 uint8 array, as mmp reads it");

  m.def("synthetic_scene", [](std::uint64_t seed, int rows, int cols, int roads, double vegetation_share, double water_share,
                              int buildings, double noise, const std::string& channels) {
    SyntheticSceneParams p;
    p.seed = seed, p.rows = rows, p.cols = cols, p.roads = roads, p.vegetation_share = vegetation_share;
    p.water_share = water_share, p.buildings = buildings, p.noise = noise;
    SyntheticScene scene;
    {
      py::gil_scoped_release release;
      scene = makeSyntheticScene(p);
    }
    py::array_t<std::uint8_t> labels({scene.labels.rows, scene.labels.cols});
    scene.labels.copyTo(cv::Mat(scene.labels.rows, scene.labels.cols, CV_8UC1, labels.mutable_data()));
    return py::make_tuple(imageArray(scene.image, channels), labels);
  }, py::arg("seed") = 1, py::arg("rows") = 512, py::arg("cols") = 512, py::arg("roads") = 4,
        py::arg("vegetation_share") = 0.22, py::arg("water_share") = 0.08, py::arg("buildings") = 80, py::arg("noise") = 6.0,
        py::arg("channels") = "rgb",
        "the generated aerial scene (image, labels): an H x W x 3 uint8 image and its class indices (synthetic_classes())");

  m.def("synthetic_classes", [] {
    py::list out;
    for (const LabelClass& c : syntheticClasses()) {
      out.append(py::dict(py::arg("name") = c.name, py::arg("index") = c.index, py::arg("colour") = colourText(c)));
    }
    return out;
  }, "the synthetic scene's classes as the classes setting takes them: [{name, index, colour}, ...]");

  m.def("write_nav2", [](const py::object& costs, const std::string& folder, const std::string& name,
                         const std::string& image_format, const std::string& scale, std::optional<double> lowest,
                         std::optional<double> highest, const std::optional<WorldFrame>& frame, std::optional<double> lethal_above,
                         std::optional<double> lethal_quantile, const py::object& lethal_mask) {
    const std::shared_ptr<CostGrid> grid = costGrid(costs, frame);
    if (lethal_above && lethal_quantile) throw InvalidArgument("write_nav2: give lethal_above or lethal_quantile, not both");
    if (lethal_above && !(*lethal_above > 0.0)) {
      throw InvalidArgument("write_nav2: lethal_above = " + numberText(*lethal_above) + ": give a cost > 0 (inf: no lethal cell)");
    }
    if (image_format != "pgm" && image_format != "png") {
      throw InvalidArgument("write_nav2: image_format '" + image_format + "': expected pgm or png");
    }
    if (scale != "log" && scale != "linear") throw InvalidArgument("write_nav2: scale '" + scale + "': expected log or linear");
    Nav2MapSettings settings;
    settings.name = name;
    settings.format = image_format == "png" ? Nav2ImageFormat::Png : Nav2ImageFormat::Pgm;
    settings.scale = scale == "linear" ? Nav2CostScale::Linear : Nav2CostScale::Logarithmic;
    if (lowest) settings.lowest = *lowest;
    if (highest) settings.highest = *highest;
    settings.unknown = grid->unknown;
    // the command line's lethal rules (lethal_rules.hpp): a cost, the dearest share of the passable cells, a mask of cells
    if (lethal_above) settings.lethal_above = *lethal_above;
    if (lethal_quantile) settings.lethal_above = passableCostQuantile(grid->costs, *lethal_quantile);
    if (!lethal_mask.is_none()) {
      const auto mask = py::array::ensure(lethal_mask);
      if (!mask || mask.ndim() != 2 || mask.shape(0) != grid->rows || mask.shape(1) != grid->cols ||
          !(mask.dtype().kind() == 'b' || mask.dtype().kind() == 'u' || mask.dtype().kind() == 'i')) {
        throw InvalidArgument("write_nav2: lethal_mask must be a " + std::to_string(grid->rows) + " x " + std::to_string(grid->cols) +
                              " array of bool or integers (one a cell, non-zero: lethal)");
      }
      const auto cells = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(mask.attr("astype")("bool"));
      settings.lethal.assign(cells.data(), cells.data() + cells.size());
    }
    Nav2MapInfo info;
    {
      py::gil_scoped_release release;
      info = writeNav2Map(*grid, folder, settings);
    }
    return nav2Info(info);
  }, py::arg("costs"), py::arg("folder"), py::arg("name") = "map", py::arg("image_format") = "pgm",
        py::arg("scale") = "log", py::arg("lowest") = py::none(), py::arg("highest") = py::none(),
        py::arg("frame") = py::none(), py::arg("lethal_above") = py::none(), py::arg("lethal_quantile") = py::none(),
        py::arg("lethal_mask") = py::none(),
        R"(Writes a Nav2 map_server map (<name>.yaml, <name>.pgm or .png, <name>.levels.csv; mode raw,
costs graded 1..98, impassable 100, unknown 255) of a CostGrid, or of a 2-D cost array in `frame`
(required: Nav2 needs a world frame), into `folder`; returns what it wrote.  Set trinary_costmap: false
in Nav2 for the grades to survive.  Learned costs are finite, so only impassable cells are lethal
unless a rule marks more, as `mmp costmap` does: lethal_above (cells dearer than this cost),
lethal_quantile q (cells dearer than the passable cells' q-quantile; not with lethal_above), lethal_mask
(a rows x cols bool or integer array, non-zero: lethal, e.g. a water mask).)");
}

}  // namespace mmp::python
