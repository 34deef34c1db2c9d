#include <mmp/frontend/default_config.hpp>

#include <mmp/core/error.hpp>

#include <filesystem>

namespace mmp::tools {

std::string defaultConfigPath(const std::string& file_name, const std::string& flag, const std::string& program_folder) {
  namespace fs = std::filesystem;
  const fs::path here = fs::path("configs") / file_name;
  const fs::path installed = (fs::path(program_folder) / ".." / "share" / "mmp" / "configs" / file_name).lexically_normal();
  std::error_code error;
  if (fs::is_regular_file(here, error)) return here.string();
  if (!program_folder.empty() && fs::is_regular_file(installed, error)) return installed.string();
  throw ConfigError("no config given, and none at '" + here.string() + "' (in the working directory)" +
                    (program_folder.empty() ? "" : " or at '" + installed.string() + "' (beside an installed mmp)") +
                    ": pass the config's path with " + flag);
}

std::string benchConfigPath(const std::string& dir, const std::string& file_name) {
  return dir.empty() ? defaultConfigPath(file_name, "--config-dir", "") : dir + "/" + file_name;
}

}  // namespace mmp::tools
