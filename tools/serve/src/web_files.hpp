// The teaching page's own files (tools/serve/web), compiled into mmp_serve by embed_web.cmake: the server
// looks them up by exact name, so no request path ever reaches the file system.
#pragma once

#include <cstddef>
#include <string>

namespace mmp::serve {

struct WebFile {
  const char* path;  ///< "/index.html", "/app.js", ...
  const char* type;  ///< its Content-Type
  const char* data;
  std::size_t size;
};

/// The file served at `path`, or nullptr.
const WebFile* findWebFile(const std::string& path);

}  // namespace mmp::serve
