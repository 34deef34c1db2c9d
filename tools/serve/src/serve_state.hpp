// The teaching page's server state (internal to mmp_serve): the parent model, the teacher, the images
// (loaded when first asked for) and their cost maps (cached per model revision), behind one mutex; and
// the request helpers the endpoints share: strict parsing of numbers, ids and JSON bodies, each
// failure an ApiError with the HTTP status and a message naming what was wrong.
#pragma once

#include "pictures.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/serve/serve_api.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mmp::serve {

using Json = nlohmann::ordered_json;

/// A request the API refuses: the status (4xx) and the message of its {"error": ...} body.
class ApiError : public Error {
 public:
  ApiError(int status, const std::string& message) : Error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

/// One image the server was given.
struct ImageSlot {
  std::string path, name;  ///< the file; name: its file name, what the page shows
  int width = 0, height = 0;
  bool georeferenced = false;
  // Set when first loaded (ensureLoaded):
  std::shared_ptr<const GeoImage> image;
  std::shared_ptr<const FeatureMap> map;  ///< teachingMap (linear and LEARCH models)
  std::vector<std::uint8_t> unknown;      ///< per cell: the image has no data there
  int teacher_index = -1;
  Familiarity familiarity;
  // The current model's cost map (cached for grid_revision):
  std::shared_ptr<const CostGrid> grid;
  long grid_revision = -1;
  double low = 0.0, high = 0.0;  ///< the finite cost range of grid
  // The parent's cost map and range, once asked for (the page's before | after view):
  std::shared_ptr<const CostGrid> parent_grid;
  double parent_low = 0.0, parent_high = 0.0;
};

/// A cost map and the range the page colours it by, as of one model revision.
struct CostView {
  std::shared_ptr<const CostGrid> grid;
  std::shared_ptr<const GeoImage> image;
  double low = 0.0, high = 0.0;
  long revision = 0;
};

struct ServeState {
  ServeSettings settings;
  CostModel parent;
  std::unique_ptr<CostModelTeacher> teacher;  ///< null when the model cannot be taught (a segmenter network)
  std::string teaching_refused;               ///< why, then
  std::vector<ImageSlot> images;
  long revision = 0;  ///< bumped by every teach and undo
  std::string temp_dir;
  int temp_lock = -1;  ///< flock'ed on temp_dir/.lock while the server runs (removeAbandonedFolders)
  long temp_count = 0;
  std::mutex mutex;  ///< guards everything above but settings and temp_dir

  ServeState(ServeSettings s, CostModel model);
  ~ServeState();

  const CostModel& model() const { return teacher ? teacher->model() : parent; }
  /// The slot of an image id ("0", "1", ...): 404 naming the ids that exist otherwise.
  ImageSlot& slot(const std::string& id);
  /// Loads the image, its feature map and familiarity, and adds it to the teacher.  Requires the lock.
  void ensureLoaded(ImageSlot& slot);
  /// The image's cost map under the current model (computed if stale).  Requires the lock.
  CostView costs(ImageSlot& slot);
  /// The image's cost map under the parent (computed once; revision 0).  Requires the lock.
  CostView parentCosts(ImageSlot& slot);
  /// A fresh file path in the server's own temporary folder.  Requires the lock.
  std::string tempFile(const std::string& name);
};

// --- request helpers ---

/// Removes the temporary folders (mmp-serve.*) of servers that no longer run: a killed server's folder,
/// whose .lock no process holds.  ServeState calls it before making its own.
void removeAbandonedFolders();

/// A finite number, all of `text` (else 400 naming `what`).
double parseNumber(const std::string& text, const std::string& what);
/// The query parameter `key` as a number in [low, high]; `fallback` if absent (NaN: required).
double queryNumber(const Request& request, const std::string& key, double low, double high, double fallback);
/// The request body as a JSON object (400 for anything else, with the parser's reason, and for one nested
/// deeper than kMaxJsonDepth, request_guard.hpp).
Json parseBody(const Request& request);
/// An [x, y] pair of finite numbers at json[key] (400 naming key otherwise).
std::pair<double, double> jsonPoint(const Json& json, const std::string& key);
/// The cell holding pixel (x, y): 400 naming `what`, the point and the image's whole cells if outside.
int cellOf(const CostGrid& grid, double x, double y, const std::string& what);
/// The pixel region of query parameter "region" (x0,y0,x1,y1), or the whole image: 400 unless
/// 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height.
PixelRegion queryRegion(const Request& request, int width, int height);
/// A whole file's bytes (mmp::Error naming it if it cannot be read).
std::string readBytes(const std::string& path);

Response jsonResponse(const Json& json, int status = 200);

}  // namespace mmp::serve
