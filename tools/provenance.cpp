#include "provenance.hpp"

namespace mmp::tools {

std::string provenance() { return std::string(MMP_VERSION) + " (commit " + MMP_COMMIT + ")"; }

}  // namespace mmp::tools
