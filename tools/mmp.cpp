// `mmp`: the command line of the mmp library.  `mmp --help` lists the subcommands.
#include "commands.hpp"
#include "failure.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"mmp: learn planning cost maps and structured predictors by maximum margin"};
  app.set_version_flag("--version", std::string("mmp ") + MMP_VERSION);
  app.require_subcommand(1);
  mmp::tools::addLettersCommand(app);
  mmp::tools::addOcrCommand(app);
  mmp::tools::addMultilabelCommand(app);
  mmp::tools::addTrainCommand(app);
  mmp::tools::addCompareCommand(app);
  mmp::tools::addPlanCommand(app);
  mmp::tools::addCostmapCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11's own wording ("Could not convert: --threads = x", "--threads: Value 999 not in range 0
    // to 256") under the same prefix as every other error, with where to read the valid values.
    const std::vector<CLI::App*> parsed = app.get_subcommands();
    const std::string command = parsed.empty() ? "mmp" : "mmp " + parsed.front()->get_name();
    std::cerr << "mmp: error: " << e.what() << "\n(see '" << command << " --help' for the valid values)\n";
    return e.get_exit_code();
  } catch (const std::exception& e) {
    std::cerr << "mmp: error: " << mmp::tools::describeFailure(e) << "\n";
    return 1;
  }
  // The tables and figures on standard output are a result too: a full disk or a closed pipe is an error.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "mmp: error: writing to standard output failed: " << std::strerror(errno) << "\n";
    return 1;
  }
  return 0;
}
