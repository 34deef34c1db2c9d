// The command line of the mmp library, mmp_cli_main (commands.hpp): what the `mmp` launcher (mmp.cpp)
// runs once it has loaded libmmp_cli.so.  `mmp --help` lists the subcommands.
#include "commands.hpp"
#include "failure.hpp"
#include "provenance.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string program_folder;  // programFolder(): the launcher's

// CLI11's help, but an argument given as a positional or by its flag ("model,--model") listed once, under
// Positionals as "model, --model", not again under Options.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    if (!is_positional || opt->get_lnames().empty()) return CLI::Formatter::make_option(opt, is_positional);
    std::string name = make_option_name(opt, true);
    for (const std::string& flag : opt->get_lnames()) name += ", --" + flag;
    std::stringstream out;
    CLI::detail::format_help(out, name + make_option_opts(opt), make_option_desc(opt), column_width_);
    return out.str();
  }
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    if (!is_positional) {
      opts.erase(std::remove_if(opts.begin(), opts.end(), [](const CLI::Option* o) { return o->get_positional(); }), opts.end());
    }
    return opts.empty() ? std::string() : CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};

}  // namespace

const std::string& mmp::tools::programFolder() { return program_folder; }

void mmp::tools::useNetworkBackend(NetworkBackendLoader load) { setNetworkBackend(std::move(load)); }

int mmp_cli_main(int argc, char** argv, const char* folder, const mmp::NetworkTorchModule* (*load_torch)(std::string& why)) {
  program_folder = folder != nullptr ? folder : "";
  if (load_torch != nullptr) mmp::tools::useNetworkBackend(load_torch);
  CLI::App app{"mmp: learn planning cost maps and structured predictors by maximum margin"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag("--version", "mmp " + mmp::tools::version());
  app.require_subcommand(1);
  mmp::tools::addLettersCommand(app);
  mmp::tools::addOcrCommand(app);
  mmp::tools::addMultilabelCommand(app);
  mmp::tools::addTrainCommand(app);
  mmp::tools::addAdaptCommand(app);
  mmp::tools::addSuggestCommand(app);
  mmp::tools::addCompareCommand(app);
  mmp::tools::addPlanCommand(app);
  mmp::tools::addCostmapCommand(app);
  mmp::tools::addInfoCommand(app);
  mmp::tools::addServeCommand(app);
  app.footer("Run 'mmp COMMAND --help' for a command's options and examples.");
  // Every error, the command line's own included, exits 1 with "mmp: error: ..." on stderr.
  std::string commands;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 2 && std::string(argv[1]) == "--version") {  // CLI11 would print the version and drop the rest
    std::cerr << "mmp: error: --version takes nothing after it; got '" << argv[2] << "'\n";
    return 1;
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "mmp: error: unknown command '" << argv[1] << "'; the commands are " << commands << " (mmp --help)\n";
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string where = "mmp";
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      where += " " + sub->get_name();
    }
    if (where == "mmp" && argc <= 1) {
      std::cerr << "mmp: error: give a command: " << commands << " (mmp --help)\n";
    } else {
      // CLI11 says "Could not convert: --threads = abc"; say which value, and of what.
      std::string what = e.what();
      const std::string convert = "Could not convert: ";
      if (what.rfind(convert, 0) == 0 && what.find(" = ") != std::string::npos) {
        const std::size_t eq = what.find(" = ");
        what = what.substr(convert.size(), eq - convert.size()) + ": expected a number, got '" + what.substr(eq + 3) + "'";
      }
      std::cerr << "mmp: error: " << what << " (" << where << " --help lists the options)\n";
    }
    return 1;
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

const char* mmp_cli_version() {
  static const std::string text = mmp::tools::version();
  return text.c_str();
}
