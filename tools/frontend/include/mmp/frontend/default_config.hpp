// Where a command finds its config when the user names none: configs/<file> in the working
// directory (a checkout), else <program folder>/../share/mmp/configs/<file> (an installed mmp:
// tools/CMakeLists.txt installs configs/ there).  The program folder is the caller's to give (the `mmp`
// launcher knows its own): this library does not ask the system where the program is.
#pragma once

#include <string>

namespace mmp::tools {

/// ensures: the first of the two places that holds `file_name` (the second only with a program folder);
/// throws mmp::ConfigError naming them and saying to pass a config with `flag` when neither does.
std::string defaultConfigPath(const std::string& file_name, const std::string& flag, const std::string& program_folder);

/// The benchmarks' rule: `dir`/`file_name` when a --config-dir is given, else configs/<file> in the
/// working directory (defaultConfigPath without a program folder: benchmarks run in a checkout).
std::string benchConfigPath(const std::string& dir, const std::string& file_name);

}  // namespace mmp::tools
