// Where a command finds its config when the user names none: configs/<file> in the working
// directory (a checkout), else <folder of the executable>/../share/mmp/configs/<file> (an installed
// mmp: tools/CMakeLists.txt installs configs/ there).
#pragma once

#include <string>

namespace mmp::tools {

/// ensures: the first of the two places that holds `file_name`; throws mmp::ConfigError naming both
/// and saying to pass a config with `flag` when neither does.
std::string defaultConfigPath(const std::string& file_name, const std::string& flag);

/// The benchmarks' rule: `dir`/`file_name` when a --config-dir is given, else defaultConfigPath.
std::string benchConfigPath(const std::string& dir, const std::string& file_name);

}  // namespace mmp::tools
