// The teaching page's server state and request helpers (serve_state.hpp), and listImages.
#include "serve_state.hpp"

#include "request_guard.hpp"

#include <mmp/core/model_file.hpp>
#include <mmp/maps/imagery.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace mmp::serve {

namespace fs = std::filesystem;

std::string errorBody(const std::string& message) { return Json{{"error", message}}.dump(-1, ' ', false, Json::error_handler_t::replace); }

Response jsonResponse(const Json& json, int status) {
  Response r;
  r.status = status;
  r.body = json.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

std::vector<std::string> listImages(const std::vector<std::string>& arguments) {
  static const std::vector<std::string> kExtensions = {".png", ".jpg", ".jpeg", ".tif", ".tiff"};
  std::vector<std::string> files;
  for (const std::string& a : arguments) {
    std::error_code error;
    if (fs::is_regular_file(a, error)) {
      files.push_back(a);
      continue;
    }
    if (!fs::is_directory(a, error)) {
      throw InvalidArgument("--images '" + a + "': no such file or folder (give image files or a folder of them)");
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(a, error)) {
      std::string ext = e.path().extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (e.is_regular_file(error) && std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end()) {
        found.push_back(e.path().string());
      }
    }
    if (found.empty()) throw InvalidArgument("--images '" + a + "': the folder holds no .png, .jpg, .jpeg, .tif or .tiff file");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

ServeState::ServeState(ServeSettings s, CostModel model) : settings(std::move(s)), parent(std::move(model)) {
  try {
    teacher = std::make_unique<CostModelTeacher>(parent, settings.adaptation);
  } catch (const InvalidArgument& e) {  // a kind that cannot adapt (a segmenter): the page shows its costs and plans
    teaching_refused = e.what();
  }
  for (const std::string& path : settings.images) {
    ImageRows rows(path);  // the size and frame without the pixels
    const long long pixels = static_cast<long long>(rows.rows()) * rows.cols();
    if (pixels > settings.max_image_pixels) {
      throw InvalidArgument("image '" + path + "' has " + std::to_string(rows.cols()) + " x " + std::to_string(rows.rows()) +
                            " px, more than the " + std::to_string(settings.max_image_pixels) +
                            " px allowed (--max-pixels): cut it into parts (gdal_translate -srcwin) or raise the bound");
    }
    ImageSlot slot;
    slot.path = path;
    slot.name = fs::path(path).filename().string();
    slot.width = rows.cols();
    slot.height = rows.rows();
    slot.georeferenced = rows.frame().hasWorld();
    images.push_back(std::move(slot));
  }
  removeAbandonedFolders();
  std::string pattern = (fs::temp_directory_path() / "mmp-serve.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw Error("mmp serve: cannot make a temporary folder: " + std::string(std::strerror(errno)));
  temp_dir = pattern;
  // Held for the server's life: a folder whose lock can be taken belongs to no running server.
  temp_lock = ::open((fs::path(temp_dir) / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (temp_lock >= 0) ::flock(temp_lock, LOCK_EX);
}

ServeState::~ServeState() {
  std::error_code ignored;
  fs::remove_all(temp_dir, ignored);
  if (temp_lock >= 0) ::close(temp_lock);
}

void removeAbandonedFolders() {
  std::error_code error;
  for (fs::directory_iterator it(fs::temp_directory_path(), error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().rfind("mmp-serve.", 0) != 0) continue;
    const int lock = ::open((it->path() / ".lock").c_str(), O_RDWR | O_CLOEXEC);
    if (lock < 0) continue;  // no lock file: not ours to judge (a folder of an older mmp, or not yet locked)
    if (::flock(lock, LOCK_EX | LOCK_NB) == 0) {  // its server is gone (killed): nothing holds it
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
    ::close(lock);
  }
}

ImageSlot& ServeState::slot(const std::string& id) {
  const bool digits = !id.empty() && id.size() <= 9 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long index = digits ? std::stol(id) : -1;
  if (index < 0 || index >= static_cast<long>(images.size())) {
    throw ApiError(404, "no image '" + id.substr(0, 40) + "': the images are 0 to " + std::to_string(images.size() - 1) +
                            " (GET /api/session lists them)");
  }
  return images[static_cast<std::size_t>(index)];
}

void ServeState::ensureLoaded(ImageSlot& s) {
  if (s.image) return;
  auto image = std::make_shared<GeoImage>(loadGeoImage(s.path));
  std::shared_ptr<const std::vector<float>> inputs;
  try {
    s.map = teachingMap(parent, *image);  // its cells without data blocked, as CostModel::costs marks them unknown
    inputs = teachingInputs(parent, *image, *s.map);
  } catch (const Error& e) {
    throw ApiError(422, "image '" + s.name + "' does not suit the model: " + e.what());
  }
  if (!image->valid.empty()) s.unknown = s.map->blocked();
  s.familiarity = parent.familiarity(image->pixels, image->valid);
  if (teacher) s.teacher_index = teacher->addImage(s.map, std::move(inputs), s.path, fileChecksum(s.path));
  s.image = std::move(image);
}

namespace {

// A model's cost map of a loaded slot, its unknown cells marked, and its finite cost range (1, 1 without
// a passable cell).
std::shared_ptr<const CostGrid> costGrid(const CostModel& model, const ImageSlot& s, double& low, double& high) {
  auto grid = std::make_shared<CostGrid>(model.readsPixels() ? model.costs(*s.image) : model.costs(*s.map));
  if (!s.unknown.empty() && s.unknown.size() == grid->costs.size()) grid->unknown = s.unknown;
  low = std::numeric_limits<double>::infinity();
  high = 0.0;
  for (double c : grid->costs) {
    if (std::isfinite(c)) low = std::min(low, c), high = std::max(high, c);
  }
  if (!(high > 0.0)) low = high = 1.0;
  return grid;
}

}  // namespace

CostView ServeState::costs(ImageSlot& s) {
  ensureLoaded(s);
  if (!s.grid || s.grid_revision != revision) {
    s.grid = costGrid(model(), s, s.low, s.high);
    s.grid_revision = revision;
  }
  return {s.grid, s.image, s.low, s.high, revision};
}

CostView ServeState::parentCosts(ImageSlot& s) {
  ensureLoaded(s);
  if (!s.parent_grid) s.parent_grid = costGrid(parent, s, s.parent_low, s.parent_high);
  return {s.parent_grid, s.image, s.parent_low, s.parent_high, 0};
}

std::string ServeState::tempFile(const std::string& name) {
  return (fs::path(temp_dir) / (std::to_string(++temp_count) + "_" + name)).string();
}

double parseNumber(const std::string& text, const std::string& what) {
  const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  // Decimal only: strtod would also read hexadecimal ("0x10" as 16), "inf" and "nan".
  if (text.empty() || text.size() > 64 || text.find_first_not_of("0123456789+-.eE") != std::string::npos) {
    throw ApiError(400, what + " '" + shown + "': expected a decimal number");
  }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || errno == ERANGE) {
    throw ApiError(400, what + " '" + shown + "': expected a finite number");
  }
  return v;
}

double queryNumber(const Request& request, const std::string& key, double low, double high, double fallback) {
  const auto it = request.query.find(key);
  if (it == request.query.end()) {
    if (std::isnan(fallback)) throw ApiError(400, "missing query parameter '" + key + "'");
    return fallback;
  }
  const double v = parseNumber(it->second, "query parameter '" + key + "'");
  if (v < low || v > high) {
    throw ApiError(400, "query parameter '" + key + "' = " + numberText(v) + " is out of range: give " + numberText(low) +
                            " to " + numberText(high));
  }
  return v;
}

Json parseBody(const Request& request) {
  // Before parsing: the parsed value's copies and dumps recurse once per level (500,000 levels, well
  // inside the body limit, overflowed the stack).
  if (const std::optional<Refusal> refused = checkJsonNesting(request.body)) throw ApiError(refused->status, refused->message);
  Json json;
  try {
    json = Json::parse(request.body);
  } catch (const Json::exception& e) {
    throw ApiError(400, std::string("the request body is not JSON: ") + e.what());
  }
  if (!json.is_object()) throw ApiError(400, "the request body must be a JSON object, e.g. {\"start\": [10, 20], ...}");
  return json;
}

std::pair<double, double> jsonPoint(const Json& json, const std::string& key) {
  const auto it = json.find(key);
  if (it == json.end()) throw ApiError(400, "'" + key + "' is missing: give [x, y] in pixels");
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number()) {
    throw ApiError(400, "'" + key + "' must be [x, y], two numbers (pixels), not " + it->dump().substr(0, 60));
  }
  const double x = (*it)[0].get<double>(), y = (*it)[1].get<double>();
  if (!std::isfinite(x) || !std::isfinite(y)) throw ApiError(400, "'" + key + "' holds a number that is not finite");
  return {x, y};
}

int cellOf(const CostGrid& grid, double x, double y, const std::string& what) {
  const int cell = grid.cellAt(x, y);
  if (cell < 0) {
    throw ApiError(400, what + " (" + numberText(x) + ", " + numberText(y) + ") lies outside the image's whole cells (0 <= x < " +
                            std::to_string(grid.cols * grid.cell_size) + ", 0 <= y < " +
                            std::to_string(grid.rows * grid.cell_size) + ")");
  }
  return cell;
}

PixelRegion queryRegion(const Request& request, int width, int height) {
  const auto it = request.query.find("region");
  if (it == request.query.end()) return {0, 0, width, height};
  std::vector<double> v;
  std::stringstream parts(it->second);
  std::string part;
  while (std::getline(parts, part, ',') && v.size() < 5) v.push_back(parseNumber(part, "region value"));
  if (v.size() != 4) throw ApiError(400, "region '" + it->second.substr(0, 60) + "': expected x0,y0,x1,y1 in pixels");
  const PixelRegion r{static_cast<int>(std::floor(std::clamp(v[0], -1.0, 1e9))), static_cast<int>(std::floor(std::clamp(v[1], -1.0, 1e9))),
                      static_cast<int>(std::ceil(std::clamp(v[2], -1.0, 1e9))), static_cast<int>(std::ceil(std::clamp(v[3], -1.0, 1e9)))};
  if (!(v[0] >= 0 && v[1] >= 0 && r.x0 < r.x1 && r.y0 < r.y1 && v[2] <= width && v[3] <= height)) {
    throw ApiError(400, "region " + it->second.substr(0, 60) + " is not inside the image: give 0 <= x0 < x1 <= " +
                            std::to_string(width) + " and 0 <= y0 < y1 <= " + std::to_string(height));
  }
  return r;
}

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw Error("cannot read '" + path + "'");
  return bytes.str();
}

}  // namespace mmp::serve
