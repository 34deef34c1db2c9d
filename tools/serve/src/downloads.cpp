// The teaching page's downloads (downloads.hpp).
#include "downloads.hpp"

#include <mmp/maps/float_tiff.hpp>
#include <mmp/maps/lethal_rules.hpp>
#include <mmp/maps/nav2_map.hpp>
#include <mmp/maps/path_files.hpp>

#include <cmath>
#include <filesystem>

namespace mmp::serve {
namespace {

// The file name stem of a download: the image's name without its extension, plain characters only.
std::string stem(const ImageSlot& slot) {
  std::string out;
  for (char c : std::filesystem::path(slot.name).stem().string()) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  }
  return out.empty() ? "image" : out.substr(0, 80);
}

Response fileResponse(std::string bytes, const std::string& type, const std::string& name) {
  Response r;
  r.type = type;
  r.body = std::move(bytes);
  r.download = name;
  return r;
}

std::string queryText(const Request& request, const std::string& key, const std::vector<std::string>& allowed) {
  const auto it = request.query.find(key);
  if (it == request.query.end()) return allowed.front();
  for (const std::string& a : allowed) {
    if (it->second == a) return a;
  }
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : " or ") + a;
  throw ApiError(400, "query parameter '" + key + "' = '" + it->second.substr(0, 40) + "': give " + list);
}

}  // namespace

Response downloadModel(ServeState& st) {
  std::lock_guard<std::mutex> lock(st.mutex);
  CostModel model = st.model();
  if (!st.settings.provenance.empty()) model.setInfo("mmp_version", st.settings.provenance);
  const std::string file = st.tempFile("model.mmp");
  model.save(file);
  std::string bytes = readBytes(file);
  std::filesystem::remove(file);
  return fileResponse(std::move(bytes), "application/octet-stream", "adapted.mmp");
}

Response downloadDemonstrations(ServeState& st, ImageSlot& slot, std::optional<MarkKind> marks) {
  std::lock_guard<std::mutex> lock(st.mutex);
  std::vector<std::vector<int>> paths;
  std::vector<std::string> names;  // the demonstrations' names (the path column), as the page lists them
  if (st.teacher && slot.teacher_index >= 0 && marks) {
    for (const TeachingMark& m : st.teacher->marks()) {
      if (m.image == slot.teacher_index && m.kind == *marks) paths.push_back(m.cells);
    }
  } else if (st.teacher && slot.teacher_index >= 0) {
    const std::vector<TaughtDemonstration>& taught = st.teacher->demonstrations();
    for (std::size_t k = 0; k < taught.size(); ++k) {
      if (taught[k].image != slot.teacher_index) continue;
      paths.push_back(taught[k].cells);
      names.push_back(taught[k].name);
    }
  }
  if (paths.empty()) {
    throw ApiError(404, (marks ? std::string("no ") + markKindName(*marks) + " mark" : std::string("no demonstration")) + " has been taught on image '" +
                            slot.name + "' yet");
  }
  const CostView v = st.costs(slot);
  const std::string file = st.tempFile("paths.csv");
  writePathCsv(file, paths, v.grid->cols, v.grid->cell_size, v.grid->frame, names);
  std::string bytes = readBytes(file);
  std::filesystem::remove(file);
  return fileResponse(std::move(bytes), "text/csv", stem(slot) + (marks ? std::string("_") + markKindName(*marks) + ".csv" : "_demonstrations.csv"));
}

Response downloadCostRaster(ServeState& st, ImageSlot& slot) {
  std::lock_guard<std::mutex> lock(st.mutex);
  const CostView v = st.costs(slot);
  const CostGrid& grid = *v.grid;
  const std::vector<float> values = rasterCosts(grid.costs.data(), grid.costs.size(), grid.cols, 0, st.model().source());
  const std::string file = st.tempFile("costs.tif");
  FloatTiffWriter raw(file, grid.rows, grid.cols);
  raw.write(values.data(), grid.rows);
  raw.georeference(grid.frame);
  raw.finish();
  std::string bytes = readBytes(file);
  std::filesystem::remove(file);
  return fileResponse(std::move(bytes), "image/tiff", stem(slot) + "_costs.tif");
}

Response downloadNav2(ServeState& st, ImageSlot& slot, const Request& request) {
  const std::string scale = queryText(request, "scale", {"log", "linear"});
  const std::string origin = queryText(request, "origin", {"world", "local"});
  const bool above = request.query.count("lethal_above") > 0, quantile = request.query.count("lethal_quantile") > 0;
  if (above && quantile) throw ApiError(400, "give lethal_above or lethal_quantile, not both");
  const double lethal_above = queryNumber(request, "lethal_above", 1e-300, 1e300, INFINITY);
  const double lethal_quantile = queryNumber(request, "lethal_quantile", 0.0, 1.0, 0.5);
  std::lock_guard<std::mutex> lock(st.mutex);
  const CostView v = st.costs(slot);
  const CostGrid& grid = *v.grid;
  if (!grid.frame.hasWorld()) {
    throw ApiError(422, "image '" + slot.name + "' has no world frame (no georeference), and a Nav2 map needs one: "
                        "serve a GeoTIFF, or use mmp costmap --nav2 with --resolution and --origin");
  }
  if (const std::string fault = geographicFault(grid.frame, slot.name); !fault.empty()) throw ApiError(422, "Nav2 map: " + fault);
  Nav2MapSettings nav2;
  nav2.scale = scale == "linear" ? Nav2CostScale::Linear : Nav2CostScale::Logarithmic;
  nav2.unknown = grid.unknown;
  nav2.lethal_above = quantile ? passableCostQuantile(grid.costs, lethal_quantile) : lethal_above;
  nav2.local_origin = origin == "local";
  const std::string dir = st.tempFile("nav2");
  const Nav2MapInfo info = writeNav2Map(grid, dir, nav2);
  std::string tar = tarArchive({{"map.yaml", readBytes(info.yaml)}, {"map.pgm", readBytes(info.image)},
                                {"map.levels.csv", readBytes(info.levels)}});
  std::filesystem::remove_all(dir);
  Response r = fileResponse(std::move(tar), "application/x-tar", stem(slot) + "_nav2.tar");
  r.headers["X-Lethal-Cells"] = std::to_string(info.lethal);
  r.headers["X-Levels-Used"] = std::to_string(info.levels_used);
  return r;
}

}  // namespace mmp::serve
