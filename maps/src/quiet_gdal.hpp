// QuietGdal: while mmp calls GDAL, its errors are kept (not printed) and read back from
// CPLGetLastErrorMsg; the drivers are registered once.  Private to maps/ (georeference.cpp,
// region_costmap.cpp).
#pragma once

#include <cpl_error.h>
#include <gdal.h>

#include <mutex>
#include <string>

namespace mmp::detail {

class QuietGdal {
 public:
  QuietGdal() {
    static std::once_flag registered;
    std::call_once(registered, [] { GDALAllRegister(); });
    CPLPushErrorHandler(CPLQuietErrorHandler);
    CPLErrorReset();
  }
  ~QuietGdal() { CPLPopErrorHandler(); }
  QuietGdal(const QuietGdal&) = delete;
  QuietGdal& operator=(const QuietGdal&) = delete;
  static std::string lastError() {
    const char* message = CPLGetLastErrorMsg();
    return message != nullptr && *message != '\0' ? message : "GDAL gives no reason";
  }
};

}  // namespace mmp::detail
