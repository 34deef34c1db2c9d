#include "test_paths.hpp"

#include <cstdlib>

namespace mmp::test {

const char* sourceDir() { return MMP_SOURCE_DIR; }
const char* executable() { return MMP_EXECUTABLE; }
const char* fuzzDir() { return MMP_SOURCE_DIR "/tests/fuzz"; }

std::string sharedDataPath(const std::string& relative) {
  const char* env = std::getenv("MMP_DATA_ROOT");
  const std::string root = env != nullptr && *env != '\0' ? env : MMP_SOURCE_DIR "/../shared/data";
  return root + "/" + relative;
}

}  // namespace mmp::test
