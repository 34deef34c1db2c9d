#include <mmp/frontend/default_config.hpp>

#include <mmp/core/error.hpp>

#include <filesystem>

namespace mmp::tools {

std::string defaultConfigPath(const std::string& file_name, const std::string& flag) {
  namespace fs = std::filesystem;
  const fs::path here = fs::path("configs") / file_name;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);  // Linux; elsewhere the working directory only
  const fs::path installed = (exe.parent_path() / ".." / "share" / "mmp" / "configs" / file_name).lexically_normal();
  if (fs::is_regular_file(here, error)) return here.string();
  if (!exe.empty() && fs::is_regular_file(installed, error)) return installed.string();
  throw ConfigError("no config given, and none at '" + here.string() + "' (in the working directory) or at '" +
                    (exe.empty() ? "<folder of the executable>/../share/mmp/configs/" + file_name : installed.string()) +
                    "' (beside an installed mmp): pass the config's path with " + flag);
}

std::string benchConfigPath(const std::string& dir, const std::string& file_name) {
  return dir.empty() ? defaultConfigPath(file_name, "--config-dir") : dir + "/" + file_name;
}

}  // namespace mmp::tools
