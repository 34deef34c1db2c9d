#include "provenance.hpp"

namespace mmp::tools {

std::string version() { return MMP_VERSION; }

std::string provenance() { return version() + " (commit " + MMP_COMMIT + ")"; }

}  // namespace mmp::tools
