// `mmp`: the command line of the mmp library.  `mmp --help` lists the subcommands.
#include "commands.hpp"

#include <mmp/core/error.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"mmp: learn planning cost maps and structured predictors by maximum margin"};
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
  } catch (const mmp::Error& e) {
    std::cerr << "mmp: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
