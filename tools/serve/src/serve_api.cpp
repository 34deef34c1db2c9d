// The teaching page's endpoints (serve_api.hpp; docs/serve.md lists them): routing, the views (session,
// image, pictures, cell), planning and teaching.  The downloads are in downloads.cpp.
#include "downloads.hpp"
#include "request_guard.hpp"
#include "serve_state.hpp"
#include "web_files.hpp"

#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/maps/path_files.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <algorithm>
#include <array>
#include <type_traits>
#include <chrono>
#include <cmath>
#include <optional>

namespace mmp::serve {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t at = 1;
  while (at <= path.size()) {
    const std::size_t slash = path.find('/', at);
    parts.push_back(path.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return parts;
}

Json pixelPoints(const std::vector<int>& cells, int cols, int k) {
  Json points = Json::array();
  for (int s : cells) points.push_back({(s % cols + 0.5) * k, (s / cols + 0.5) * k});
  return points;
}

std::string kindOf(const CostModel& model) {
  const std::string kind = hypothesisName(model.hypothesis());
  return kind == "learch" ? "LEARCH" : kind;
}

}  // namespace

// The endpoints, each with the lock taken where it reads or changes the state.
struct Endpoints {
  ServeState& st;

  // The demonstrations (or marks) taught so far, each with its image and cells as pixel points.
  template <class Taught>
  Json taughtList(const std::vector<Taught>& taught) {
    Json list = Json::array();
    const int k = st.teacher->cellSize();
    int n = 0;
    for (const Taught& d : taught) {
      std::size_t id = 0;
      while (id < st.images.size() && st.images[id].teacher_index != d.image) ++id;
      const int cols = st.teacher->cols(d.image);
      list.push_back({{"index", ++n}, {"image", id}, {"image_name", st.images[id].name}, {"cells", d.cells.size()},
                      {"points", pixelPoints(d.cells, cols, k)}});
      if constexpr (std::is_same_v<Taught, TaughtDemonstration>) {
        list.back()["name"] = d.name;
      } else {
        list.back()["kind"] = markKindName(d.kind);
      }
    }
    return list;
  }
  Json demonstrations() { return st.teacher ? taughtList(st.teacher->demonstrations()) : Json::array(); }
  Json marks() { return st.teacher ? taughtList(st.teacher->marks()) : Json::array(); }

  Response session() {
    std::lock_guard<std::mutex> lock(st.mutex);
    Json summary = Json::array();
    for (const auto& [key, value] : st.model().summary()) {
      std::string text = value;
      if (key == "config_effective") text = std::to_string(std::count(value.begin(), value.end(), '\n')) + " lines of YAML (mmp info --config)";
      if (key == "data") text = std::to_string(std::count(value.begin(), value.end(), '\n')) + " files' fingerprints (mmp info --data)";
      if (key == "adapted_demonstrations") text = std::to_string(std::count(value.begin(), value.end(), '\n') + 1) + " demonstrations taught";
      summary.push_back({key, text});
    }
    Json images = Json::array();
    for (std::size_t i = 0; i < st.images.size(); ++i) {
      const ImageSlot& s = st.images[i];
      images.push_back({{"id", i}, {"name", s.name}, {"width", s.width}, {"height", s.height}, {"georeferenced", s.georeferenced},
                        {"loaded", static_cast<bool>(s.image)}});
    }
    Json classes = Json::array();
    if (const ClassScores* scores = st.parent.features().classScores()) classes = scores->classes;
    return jsonResponse({{"model", {{"path", st.settings.model}, {"kind", kindOf(st.parent)}, {"summary", summary}, {"classes", classes}}},
                         {"teaching", static_cast<bool>(st.teacher)},
                         {"teaching_refused", st.teaching_refused},
                         {"out", st.settings.out},
                         {"cell_size", st.parent.features().settings().cell_size},
                         {"revision", st.revision},
                         {"images", images},
                         {"demonstrations", demonstrations()}, {"marks", marks()},
                         {"limits", {{"max_picture_px", st.settings.max_picture_px}, {"max_points", st.settings.max_points},
                                     {"max_body_bytes", st.settings.max_body_bytes}, {"max_json_depth", kMaxJsonDepth},
                                     {"max_ompl_budget", st.settings.max_ompl_budget}}}});
  }

  Response imageInfo(ImageSlot& s) {
    std::lock_guard<std::mutex> lock(st.mutex);
    const auto start = Clock::now();
    const CostView v = st.costs(s);
    const Familiarity& f = s.familiarity;
    long long blocked = 0, unknown = 0;
    for (std::size_t i = 0; i < v.grid->costs.size(); ++i) {
      if (!v.grid->unknown.empty() && v.grid->unknown[i] != 0) ++unknown;
      else if (!std::isfinite(v.grid->costs[i])) ++blocked;
    }
    Json frame = {{"world", v.grid->frame.hasWorld()}};
    if (v.grid->frame.hasWorld()) {
      frame["resolution"] = v.grid->frame.resolution;  // per cell
      frame["extent"] = v.grid->frame.extentText();
      frame["crs"] = v.grid->frame.crs.substr(0, 200);
    }
    return jsonResponse({{"id", &s - st.images.data()}, {"name", s.name}, {"width", s.width}, {"height", s.height},
                         {"rows", v.grid->rows}, {"cols", v.grid->cols}, {"cell_size", v.grid->cell_size},
                         {"note", v.image->note},
                         {"familiarity", {{"known", f.known}, {"cells", f.cells}, {"outside", f.outside}, {"share", f.share()},
                                          {"texture_known", f.texture_known}, {"textured_cells", f.textured},
                                          {"texture_outside", f.texture_outside}, {"texture_share", f.textureShare()},
                                          {"warns", f.warns()}, {"text", f.describe()}}},
                         {"costs", {{"low", v.low}, {"high", v.high}, {"blocked", blocked}, {"unknown", unknown}}},
                         {"frame", frame}, {"revision", v.revision}, {"seconds", secondsSince(start)}});
  }

  // "model=parent": the parent's cost map (the before of the page's before | after view); "scale=parent":
  // coloured on the parent's cost range, so that before and after compare by eye.
  static bool parentQuery(const Request& request, const std::string& key) {
    const auto it = request.query.find(key);
    if (it == request.query.end()) return false;
    if (it->second != "parent") throw ApiError(400, key + " '" + it->second.substr(0, 40) + "': the only value is 'parent'");
    return true;
  }

  Response picture(ImageSlot& s, const Request& request, bool costs) {
    const bool parent = parentQuery(request, "model"), parent_scale = parentQuery(request, "scale");
    CostView v;
    {
      std::lock_guard<std::mutex> lock(st.mutex);
      v = parent ? st.parentCosts(s) : st.costs(s);
      if (parent_scale) {
        const CostView p = st.parentCosts(s);
        v.low = p.low;
        v.high = p.high;
      }
    }
    const PixelRegion asked = queryRegion(request, s.width, s.height);
    const int max_px = static_cast<int>(queryNumber(request, "max", 16, st.settings.max_picture_px, st.settings.max_picture_px));
    Response r;
    PixelRegion given = asked;
    if (costs) {
      given = cellCover(*v.grid, asked);
      if (given.width() <= 0 || given.height() <= 0) {
        throw ApiError(400, "the region lies beyond the image's whole cells (the cost map covers 0 <= x < " +
                                std::to_string(v.grid->cols * v.grid->cell_size) + ", 0 <= y < " +
                                std::to_string(v.grid->rows * v.grid->cell_size) + ")");
      }
      r.body = encodePicture(costPicture(*v.grid, given, max_px, v.low, v.high), ".png");
      r.type = "image/png";
    } else {
      r.body = encodePicture(imagePicture(v.image->pixels, asked, max_px), ".jpg");
      r.type = "image/jpeg";
    }
    r.headers["X-Region"] = std::to_string(given.x0) + "," + std::to_string(given.y0) + "," + std::to_string(given.x1) + "," +
                            std::to_string(given.y1);
    r.headers["X-Cost-Range"] = numberText(v.low) + "," + numberText(v.high);
    r.headers["X-Revision"] = std::to_string(v.revision);
    return r;
  }

  Response cell(ImageSlot& s, const Request& request) {
    const double x = queryNumber(request, "x", -1e9, 1e9, NAN), y = queryNumber(request, "y", -1e9, 1e9, NAN);
    std::lock_guard<std::mutex> lock(st.mutex);
    const CostView v = st.costs(s);
    const int c = cellOf(*v.grid, x, y, "point");
    const double cost = v.grid->costs[static_cast<std::size_t>(c)];
    Json out = {{"row", c / v.grid->cols}, {"col", c % v.grid->cols}, {"revision", v.revision}};
    if (!v.grid->unknown.empty() && v.grid->unknown[static_cast<std::size_t>(c)] != 0) out["state"] = "unknown";
    else if (!std::isfinite(cost)) out["state"] = "impassable";
    else out["cost"] = cost;
    if (v.grid->frame.hasWorld()) {
      const WorldPoint w = v.grid->frame.toWorld({x / v.grid->cell_size, y / v.grid->cell_size});
      out["world"] = {w.x, w.y};
    }
    if (s.map && st.parent.features().classScores()) {
      // Each class's margin, scaled to [0, 1] on the training cells, from its soft bins "margin(<class>)#<b>"
      // (feature_stack.hpp: the B bins of a value v sum to 1, and v = sum_b b / (B - 1) bin_b).
      const ClassScores& scores = *st.parent.features().classScores();
      const std::vector<std::string>& names = s.map->names();
      Json classes = Json::object();
      for (const std::string& name : scores.classes) {
        const std::string prefix = "margin(" + name + ")#";
        std::vector<int> bins;
        for (int f = 0; f < static_cast<int>(names.size()); ++f) {
          if (names[f].rfind(prefix, 0) == 0) bins.push_back(f);
        }
        if (bins.size() < 2) continue;
        double v = 0.0;
        for (std::size_t b = 0; b < bins.size(); ++b) v += s.map->value(c, bins[b]) * static_cast<double>(b) / (bins.size() - 1);
        classes[name] = v;
      }
      if (!classes.empty()) out["class_scores"] = classes;
    }
    return jsonResponse(out);
  }

  Response plan(ImageSlot& s, const Request& request) {
    const Json body = parseBody(request);
    const auto [sx, sy] = jsonPoint(body, "start");
    const auto [gx, gy] = jsonPoint(body, "goal");
    const std::string planner = body.value("planner", std::string("astar"));
    const double budget = body.value("budget", 1.0);
    const Json model = body.value("model", Json("current"));
    if (model != "current" && model != "parent") throw ApiError(400, "'model' must be \"current\" or \"parent\"");
    CostView v, p;
    {
      std::lock_guard<std::mutex> lock(st.mutex);
      v = model == "parent" ? st.parentCosts(s) : st.costs(s);
      p = st.parentCosts(s);
    }
    const CostGrid& grid = *v.grid;
    const int start = cellOf(grid, sx, sy, "start"), goal = cellOf(grid, gx, gy, "goal");
    const int k = grid.cell_size;
    for (const auto& [cell, what] : {std::pair<int, const char*>{start, "start"}, {goal, "goal"}}) {
      if (grid.blocked(cell)) throw ApiError(422, std::string("the ") + what + " lies on an impassable or unknown cell: pick another");
    }
    const auto t0 = Clock::now();
    GridPlanner astar(grid.rows, grid.cols);
    const PlanResult exact = astar.plan(grid.costs, start, goal);
    if (exact.status != PlanStatus::Success) throw ApiError(422, "no plan between these points: " + exact.message);
    Json out = {{"planner", "astar"}, {"cost", exact.cost}, {"cells", exact.path.size()}, {"expansions", exact.expansions},
                {"points", pixelPoints(exact.path, grid.cols, k)}, {"revision", v.revision}, {"seconds", secondsSince(t0)},
                {"parent_cost", pathIntegral(exact.path, grid.cols, p.grid->costs)}, {"model", model}};
    if (planner != "astar") {
      OmplSettings settings;
      try {
        settings.planner = parsePlannerName(planner);
      } catch (const InvalidArgument& e) {
        throw ApiError(400, std::string("planner: ") + e.what() + "; or astar");
      }
      if (!(budget > 0.0 && budget <= st.settings.max_ompl_budget)) {
        throw ApiError(400, "budget " + numberText(budget) + ": give seconds > 0 and at most " + numberText(st.settings.max_ompl_budget));
      }
      settings.budget_seconds = budget;
      const std::vector<CellPoint> ends = cellCentres({start, goal}, grid.cols);
      const OmplResult o = planOmpl(grid, ends[0], ends[1], settings);
      if (o.status != OmplStatus::Success) {
        throw ApiError(422, std::string("no plan by ") + plannerName(settings.planner) + " in " + numberText(budget) + " s: " +
                                describe(o.status) + (o.message.empty() ? "" : ", " + o.message));
      }
      Json points = Json::array();
      for (const CellPoint& p : o.path) points.push_back({p.u * k, p.v * k});
      out["ompl"] = {{"planner", plannerName(settings.planner)}, {"cost", o.cost}, {"ratio", o.cost / exact.cost},
                     {"seconds", o.seconds}, {"points", points}};
    }
    return jsonResponse(out);
  }

  // A teach or undo that names the revision it saw is refused if the model changed since.
  void checkRevision(const Json& body) {
    if (!body.contains("revision")) return;
    if (!body["revision"].is_number_integer()) throw ApiError(400, "'revision' must be an integer (GET /api/session gives it)");
    if (body["revision"].get<long>() != st.revision) {
      throw ApiError(409, "the model changed since this page last saw it (revision " + std::to_string(body["revision"].get<long>()) +
                              ", now " + std::to_string(st.revision) + "): another tab taught it; reload the page");
    }
  }

  Json stepJson(const TeachingStep& step) {
    return {{"demonstrations", step.demonstrations}, {"converged", step.info == Info::Success}, {"message", step.message},
            {"seconds", step.seconds}, {"loss_before", step.loss_before}, {"loss_after", step.loss_after}, {"warnings", step.warnings}};
  }

  // A demonstration, or with "avoid": true a stroke over ground that must stay dear (an avoid mark),
  // with "prefer": true one over ground that may be cheap (a prefer mark).
  Response teach(ImageSlot& s, const Request& request) {
    const Json body = parseBody(request);
    std::optional<MarkKind> mark;
    for (const MarkKind kind : {MarkKind::Avoid, MarkKind::Prefer}) {
      const char* key = markKindName(kind);
      const Json given = body.value(key, Json(false));
      if (!given.is_boolean()) throw ApiError(400, std::string("'") + key + "' must be true or false");
      if (!given.get<bool>()) continue;
      if (mark) throw ApiError(400, "'avoid' and 'prefer' are both true: a stroke is one kind of mark");
      mark = kind;
    }
    const Json name_json = body.value("name", Json(""));
    if (!name_json.is_string()) throw ApiError(400, "'name' must be a string");
    const std::string name = name_json.get<std::string>();
    if (!name.empty()) {
      try {
        checkDemonstrationName(name);
      } catch (const InvalidArgument& e) {
        throw ApiError(400, e.what());
      }
    }
    const auto it = body.find("points");
    if (it == body.end() || !it->is_array()) throw ApiError(400, "'points' is missing: give [[x, y], ...] in pixels, start to goal");
    if (it->size() < 2) throw ApiError(400, "'points' holds " + std::to_string(it->size()) + " point(s): a demonstration needs 2 or more");
    if (it->size() > static_cast<std::size_t>(st.settings.max_points)) {
      throw ApiError(413, "'points' holds " + std::to_string(it->size()) + " points, more than the " +
                              std::to_string(st.settings.max_points) + " allowed");
    }
    PixelPath path;
    path.name = "page";
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto [x, y] = jsonPoint(Json{{"p", (*it)[i]}}, "p");
      path.points.push_back({x, y});
    }
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.teacher) throw ApiError(409, st.teaching_refused);
    checkRevision(body);
    st.ensureLoaded(s);
    const std::string where = (mark ? std::string("the ") + markKindName(*mark) + " mark" : std::string("the demonstration")) + " on image " +
                              std::to_string(&s - st.images.data()) + " ('" + s.name + "')";
    std::vector<int> cells;
    try {
      cells = pathCells(path, st.teacher->cellSize(), st.teacher->rows(s.teacher_index), st.teacher->cols(s.teacher_index), where);
    } catch (const Error& e) {
      throw ApiError(400, e.what());
    }
    TeachingStep step;
    try {
      // unnamed: "path k" (the first k from the count on that is free), the name its CSV row will carry, so that
      // `mmp adapt` on the download records the same
      std::string given = name;
      for (std::size_t k = st.teacher->demonstrations().size() + 1; given.empty(); ++k) {
        const std::string candidate = "path " + std::to_string(k);
        const auto& taught = st.teacher->demonstrations();
        if (std::none_of(taught.begin(), taught.end(), [&](const TaughtDemonstration& d) { return d.name == candidate; })) given = candidate;
      }
      step = mark ? st.teacher->teach({}, {{s.teacher_index, cells, *mark}}) : st.teacher->teach({{s.teacher_index, cells, given}});
    } catch (const DataError& e) {
      throw ApiError(422, e.what());
    } catch (const InvalidArgument& e) {  // a name taken
      throw ApiError(422, e.what());
    }
    ++st.revision;
    return jsonResponse({{"step", stepJson(step)}, {"revision", st.revision}, {"demonstrations", demonstrations()}, {"marks", marks()}});
  }

  Response undo(const Request& request) {
    const Json body = request.body.empty() ? Json::object() : parseBody(request);
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.teacher) throw ApiError(409, st.teaching_refused);
    checkRevision(body);
    if (st.teacher->demonstrations().empty() && st.teacher->marks().empty()) {
      throw ApiError(409, "nothing to undo: no demonstration or mark has been taught");
    }
    const TeachingStep step = st.teacher->undo();
    ++st.revision;
    return jsonResponse({{"step", stepJson(step)}, {"revision", st.revision}, {"demonstrations", demonstrations()}, {"marks", marks()}});
  }

  // {"index": k (1-based, as the list gives it), "name": ...}: names a demonstration; the model stays.
  Response rename(const Request& request) {
    const Json body = parseBody(request);
    if (!body.contains("index") || !body["index"].is_number_integer()) throw ApiError(400, "'index' must be the demonstration's number in the list");
    if (!body.contains("name") || !body["name"].is_string()) throw ApiError(400, "'name' must be a string");
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.teacher) throw ApiError(409, st.teaching_refused);
    checkRevision(body);
    const long index = body["index"].get<long>();
    if (index < 1 || index > static_cast<long>(st.teacher->demonstrations().size())) {
      throw ApiError(404, "no demonstration " + std::to_string(index) + ": " + std::to_string(st.teacher->demonstrations().size()) +
                              " are taught");
    }
    try {
      st.teacher->rename(static_cast<std::size_t>(index - 1), body["name"].get<std::string>());
    } catch (const InvalidArgument& e) {
      throw ApiError(400, e.what());
    }
    return jsonResponse({{"revision", st.revision}, {"demonstrations", demonstrations()}, {"marks", marks()}});
  }

  // A body's [x0, y0, x1, y1] in pixels of the image: the grid's cells it covers (SuggestionArea::fromPixels).
  static SuggestionArea::Box cellBox(const Json& value, const CostGrid& grid, const ImageSlot& s, const std::string& what) {
    std::array<double, 4> box{NAN, NAN, NAN, NAN};  // anything but four numbers: refused as not finite
    for (std::size_t i = 0; value.is_array() && value.size() == 4 && i < 4; ++i) {
      if (value[i].is_number()) box[i] = value[i].get<double>();
    }
    try {
      return SuggestionArea::fromPixels(box, grid.cell_size, grid.rows, grid.cols, s.width, s.height, what);
    } catch (const InvalidArgument& e) {
      throw ApiError(400, e.what());
    }
  }

  // Seeded candidate pairs valued by demonstrationValues (as `mmp suggest`, its default 40 candidates),
  // inside the body's "region" (the page sends its view), out of its "exclude" boxes, off the paths taught on the image.
  Response suggest(ImageSlot& s, const Request& request) {
    const Json body = request.body.empty() ? Json::object() : parseBody(request);
    const Json n_json = body.value("n", Json(3));
    if (!n_json.is_number_integer() || n_json.get<long>() < 1 || n_json.get<long>() > 10) throw ApiError(400, "'n' must be an integer from 1 to 10");
    const int n = n_json.get<int>();
    std::lock_guard<std::mutex> lock(st.mutex);
    if (!st.teacher) throw ApiError(409, st.teaching_refused);
    const CostView v = st.costs(s);
    const CostGrid& grid = *v.grid;
    const int k = grid.cell_size;
    SuggestionArea area;
    if (body.contains("region")) area.region = cellBox(body["region"], grid, s, "region");
    if (body.contains("exclude")) {
      const Json& exclude = body["exclude"];
      if (!exclude.is_array() || exclude.size() > 100) throw ApiError(400, "'exclude' must be a list of up to 100 [x0, y0, x1, y1]");
      for (std::size_t i = 0; i < exclude.size(); ++i) area.excluded.push_back(cellBox(exclude[i], grid, s, "exclude[" + std::to_string(i) + "]"));
    }
    for (const TaughtDemonstration& d : st.teacher->demonstrations()) {
      if (d.image == s.teacher_index) area.taught.insert(area.taught.end(), d.cells.begin(), d.cells.end());
    }
    const int region_rows = area.region.empty() ? grid.rows : area.region.row1 - area.region.row0;
    const int region_cols = area.region.empty() ? grid.cols : area.region.col1 - area.region.col0;
    SuggestionSearch search;
    search.n = n;
    search.min_separation_px = std::max(region_rows, region_cols) * k / 4.0;
    const SuggestionSettings settings;  // every core
    const auto t0 = Clock::now();
    int drawn = 0;
    const std::vector<SuggestedPair> chosen = suggestDemonstrations(st.model(), *s.map, search, settings, &drawn, {}, area);
    if (drawn == 0) {
      throw ApiError(422, "image '" + s.name + "' has no two passable cells far enough apart " +
                              (area.region.empty() ? "" : "in the view ") + "to suggest a pair" +
                              (area.region.empty() ? "" : ": zoom out"));
    }
    Json out = Json::array();
    for (const SuggestedPair& p : chosen) {
      out.push_back({{"start", {(p.start % grid.cols + 0.5) * k, (p.start / grid.cols + 0.5) * k}},
                     {"goal", {(p.goal % grid.cols + 0.5) * k, (p.goal / grid.cols + 0.5) * k}},
                     {"value_cells", p.value}});
    }
    return jsonResponse({{"pairs", out}, {"candidates", drawn}, {"seconds", secondsSince(t0)}});
  }

  Response save() {
    std::lock_guard<std::mutex> lock(st.mutex);
    if (st.settings.out.empty()) {
      throw ApiError(409, "saving is off: start mmp serve with --out FILE to save the adapted model (or download it)");
    }
    CostModel model = st.model();
    if (!st.settings.provenance.empty()) model.setInfo("mmp_version", st.settings.provenance);
    model.save(st.settings.out);  // atomically
    return jsonResponse({{"saved", st.settings.out}, {"demonstrations", st.teacher ? st.teacher->demonstrations().size() : 0},
                         {"revision", st.revision}});
  }
};

ServeApi::ServeApi(ServeSettings settings) {
  try {  // each by its row of the settings table
    settings.adaptation.validate();
    settings.validate();
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("mmp serve: ") + e.what());
  }
  if (!settings.out.empty()) {
    std::error_code ignored;
    if (std::filesystem::equivalent(settings.model, settings.out, ignored)) {
      throw InvalidArgument("mmp serve: --out '" + settings.out + "' is the parent model; save the adapted model to another file");
    }
  }
  CostModel model = CostModel::load(settings.model);
  state_ = std::make_unique<ServeState>(std::move(settings), std::move(model));
}

ServeApi::~ServeApi() = default;

const ServeSettings& ServeApi::settings() const { return state_->settings; }

Response ServeApi::handle(const Request& request) noexcept {
  try {
    try {
      const bool get = request.method == "GET" || request.method == "HEAD", post = request.method == "POST";
      const auto method = [&](bool ok, const char* allowed) {
        if (!ok) throw ApiError(405, request.method.substr(0, 16) + " " + request.path.substr(0, 80) + ": use " + allowed);
      };
      if (request.body.size() > state_->settings.max_body_bytes) {
        throw ApiError(413, "the request body has " + std::to_string(request.body.size()) + " bytes, more than the " +
                                std::to_string(state_->settings.max_body_bytes) + " allowed");
      }
      if (request.path.rfind("/api/", 0) != 0) {  // the page's own files, by exact name; nothing else
        const WebFile* file = findWebFile(request.path == "/" ? "/index.html" : request.path);
        if (!file) throw ApiError(404, "no page file '" + request.path.substr(0, 80) + "' (the page is at /)");
        method(get, "GET");
        Response r;
        r.type = file->type;
        r.body.assign(file->data, file->size);
        return r;
      }
      Endpoints e{*state_};
      const std::vector<std::string> parts = split(request.path);  // "api", ...
      if (parts.size() == 2) {
        const std::string& what = parts[1];
        if (what == "session") return method(get, "GET"), e.session();
        if (what == "legend.png") {
          method(get, "GET");
          Response r;
          r.type = "image/png";
          r.body = encodePicture(legendPicture(), ".png");
          return r;
        }
        if (what == "undo") return method(post, "POST"), e.undo(request);
        if (what == "rename") return method(post, "POST"), e.rename(request);
        if (what == "save") return method(post, "POST"), e.save();
        if (what == "model.mmp") return method(get, "GET"), downloadModel(*state_);
      }
      if (parts.size() == 4 && parts[1] == "images") {
        ImageSlot& s = [&]() -> ImageSlot& {
          std::lock_guard<std::mutex> lock(state_->mutex);
          return state_->slot(parts[2]);
        }();
        const std::string& what = parts[3];
        if (what == "info") return method(get, "GET"), e.imageInfo(s);
        if (what == "image.jpg") return method(get, "GET"), e.picture(s, request, false);
        if (what == "costs.png") return method(get, "GET"), e.picture(s, request, true);
        if (what == "cell") return method(get, "GET"), e.cell(s, request);
        if (what == "plan") return method(post, "POST"), e.plan(s, request);
        if (what == "teach") return method(post, "POST"), e.teach(s, request);
        if (what == "suggest") return method(post, "POST"), e.suggest(s, request);
        if (what == "demonstrations.csv") return method(get, "GET"), downloadDemonstrations(*state_, s, std::nullopt);
        if (what == "avoid.csv") return method(get, "GET"), downloadDemonstrations(*state_, s, MarkKind::Avoid);
        if (what == "prefer.csv") return method(get, "GET"), downloadDemonstrations(*state_, s, MarkKind::Prefer);
        if (what == "costmap.tif") return method(get, "GET"), downloadCostRaster(*state_, s);
        if (what == "nav2.tar") return method(get, "GET"), downloadNav2(*state_, s, request);
      }
      throw ApiError(404, "no endpoint " + request.path.substr(0, 80) + " (docs/serve.md lists them)");
    } catch (const ApiError&) {
      throw;
    } catch (const Json::exception& e) {  // a body of the wrong shape: a value of the wrong type
      throw ApiError(400, std::string("the request body: ") + e.what());
    } catch (const InvalidArgument& e) {
      throw ApiError(400, e.what());
    } catch (const DataError& e) {
      throw ApiError(422, e.what());
    }
  } catch (const ApiError& e) {
    Response r;
    r.status = e.status();
    r.body = errorBody(e.what());
    return r;
  } catch (const std::bad_alloc&) {
    Response r;
    r.status = 500;
    r.body = errorBody("out of memory while answering " + request.path.substr(0, 80));
    return r;
  } catch (const std::exception& e) {
    Response r;
    r.status = 500;
    r.body = errorBody(std::string("the server failed: ") + e.what());
    return r;
  } catch (...) {
    Response r;
    r.status = 500;
    r.body = errorBody("the server failed");
    return r;
  }
}

}  // namespace mmp::serve
