// `mmp`: the command line of the mmp library.  `mmp --help` lists the subcommands.
#include "commands.hpp"

#include <iostream>
#include <new>

int main(int argc, char** argv) {
  CLI::App app{"mmp: learn planning cost maps and structured predictors by maximum margin"};
  app.set_version_flag("--version", std::string("mmp ") + MMP_VERSION);
  app.require_subcommand(1);
  mmp::tools::addLettersCommand(app);
  mmp::tools::addOcrCommand(app);
  mmp::tools::addTrainCommand(app);
  mmp::tools::addCompareCommand(app);
  mmp::tools::addPlanCommand(app);
  mmp::tools::addCostmapCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    std::cerr << "mmp: error: out of memory (the inputs or settings need more memory than this machine has)\n";
    return 1;
  } catch (const std::exception& e) {
    // mmp::Error names the file, key or cell; anything else (OpenCV, the file system) says what it can.
    std::cerr << "mmp: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
