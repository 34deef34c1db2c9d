// The local teaching page of `mmp serve`, as a library: ServeApi answers the page's HTTP requests --
// its own files and a JSON API on the library (cost maps, A* and OMPL plans, online teaching through
// CostModelTeacher, downloads) -- without sockets, so that the tests and the fuzz target call it in
// process; runServer (http_server.hpp) puts it behind cpp-httplib.  docs/serve.md lists the endpoints.
//
//   mmp::serve::ServeSettings settings;
//   settings.model = "models/follow_road.mmp";
//   settings.images = mmp::serve::listImages({"site/"});
//   mmp::serve::ServeApi api(settings);
//   const mmp::serve::Response r = api.handle({"GET", "/api/session", {}, ""});   // r.status 200, JSON
//
// Safety, by construction: no request path or parameter reaches the file system (the page's files are
// compiled in and looked up by exact name; images are addressed by the index the server gave them;
// the model is saved only to the path given at start); every request body, region and point list is
// bounded; bad input of any kind is answered 4xx with {"error": "..."} naming what was wrong, and
// handle() never throws.  handle() may be called from several threads at once: the model, the
// teacher and the caches are behind one mutex, so two tabs teaching at once are serialised, and a
// teach or undo that names the revision it saw is refused (409) if another changed the model since.
#pragma once

#include <mmp/maps/training/adaptation.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mmp::serve {

struct Request {
  std::string method;  ///< "GET", "POST", ...
  std::string path;    ///< decoded, without the query: "/api/images/0/plan"
  std::map<std::string, std::string> query;
  std::string body;
};

struct Response {
  int status = 200;
  std::string type = "application/json";  ///< Content-Type
  std::string body;
  std::string download;  ///< non-empty: a file name for Content-Disposition: attachment
  /// Further headers: X-Region (the pixels a picture covers, x0,y0,x1,y1), X-Cost-Range (low,high of its
  /// colours, log scale), X-Revision (the model revision it shows).
  std::map<std::string, std::string> headers;
};

/// The page's bounds (max_image_pixels, max_body_bytes, max_picture_px, max_points, max_ompl_budget) are
/// PageLimits' (maps/training/settings.hpp): rows serve.* of the settings table, with their ranges.
struct ServeSettings : PageLimits {
  std::string model;                ///< the parent model (a file mmp train or mmp adapt wrote); never modified
  std::vector<std::string> images;  ///< image files, in the order the page lists them (ids 0, 1, ...)
  std::string out;                  ///< where "save" writes the adapted model (atomically); empty: saving refused
  std::string provenance;           ///< recorded as the saved model's mmp_version ("" leaves it out)
  AdaptationSettings adaptation;
};

/// The image files of each argument: a file itself, a folder's files with an image extension (.png,
/// .jpg, .jpeg, .tif, .tiff; not its sub-folders), sorted.  Throws mmp::InvalidArgument naming an
/// argument that is neither, or a folder without images.
std::vector<std::string> listImages(const std::vector<std::string>& files_or_folders);

struct ServeState;  // the model, the teacher, the images (src/serve_state.hpp)

class ServeApi {
 public:
  /// Loads the model and reads each image's size (not its pixels: an image is loaded when the page
  /// first asks for it).  Throws mmp::Error naming the model or image at fault, or an image larger
  /// than settings.max_image_pixels.
  explicit ServeApi(ServeSettings settings);
  ~ServeApi();
  ServeApi(const ServeApi&) = delete;
  ServeApi& operator=(const ServeApi&) = delete;

  /// The answer to one request; never throws (an unexpected failure is a 500 with its message).
  Response handle(const Request& request) noexcept;

  const ServeSettings& settings() const;

 private:
  std::unique_ptr<ServeState> state_;
};

/// The JSON error body the API answers with: {"error": message}.
std::string errorBody(const std::string& message);

}  // namespace mmp::serve
