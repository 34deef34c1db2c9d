// Every flag of `mmp adapt`, `mmp suggest` and `mmp serve` is a row of the settings table
// (setting_keys.hpp) or declared, next to the flags, as no setting (files, outputs, --set, ...); a
// setting flag checks its value by its row (tools/cli/setting_flags.hpp).
#include "commands.hpp"
#include "setting_flags.hpp"

#include <mmp/maps/training/setting_keys.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mmp;
using namespace mmp::tools;

TEST_CASE("every flag of mmp adapt, mmp suggest and mmp serve sets a row of the settings table or is declared no setting") {
  struct Command {
    const char* name;
    void (*add)(CLI::App&);
    std::vector<SettingCommand> rows;  // the commands whose rows its flags may set
  };
  const std::vector<Command> commands = {{"adapt", addAdaptCommand, {SettingCommand::Adapt}},
                                         {"suggest", addSuggestCommand, {SettingCommand::Suggest}},
                                         {"serve", addServeCommand, {SettingCommand::Adapt, SettingCommand::Serve}}};
  for (const Command& command : commands) {
    CLI::App app;
    command.add(app);
    CLI::App* cmd = app.get_subcommand(command.name);
    int settings = 0, others = 0;
    for (CLI::Option* option : cmd->get_options()) {
      if (option == cmd->get_help_ptr()) continue;
      CAPTURE(command.name);
      CAPTURE(option->get_name());
      const std::optional<std::string> key = flagSetting(*option);
      REQUIRE(key.has_value());  // neither a setting nor declared: add it to the command's declareOtherFlags
      if (key->empty()) {
        ++others;
        continue;
      }
      ++settings;
      const SettingKey* row = findSettingKey(*key);
      REQUIRE(row != nullptr);
      CHECK(std::find(command.rows.begin(), command.rows.end(), row->command) != command.rows.end());
      CHECK(option->get_description().find(*key + ": " + rangeText(*row)) != std::string::npos);  // the help states the range
    }
    CHECK(settings >= 4);
    CHECK(others <= 12);  // files (images, paths, both kinds of marks), outputs and the like: a short list
  }
}

TEST_CASE("a setting flag refuses what its row refuses, naming the flag and the key, and sets the row") {
  PipelineSettings s;
  CLI::App app;
  addSettingOption(app, "--epochs", "adapt.epochs", s, "passes");
  addSettingOption(app, "--lambda", "adapt.lambda", s, "the pull");
  addSettingOption(app, "--head-only", "adapt.network_head_only", s, "the head");
  addSettingOption(app, "--rule", "suggest.rule", s, "the rule");
  CHECK_THROWS_WITH_AS(app.parse(std::vector<std::string>{"2000000000", "--epochs"}),
                       doctest::Contains("--epochs: adapt.epochs: expected a whole number 1..100000, got '2000000000'"), CLI::ValidationError);
  CHECK_THROWS_WITH_AS(app.parse(std::vector<std::string>{"nan", "--lambda"}), doctest::Contains("--lambda: adapt.lambda: expected a number in (0, "),
                       CLI::ValidationError);
  // a list of candidates is a config's (a flag-only run teaches with one value)
  CHECK_THROWS_WITH_AS(app.parse(std::vector<std::string>{"[1, 3]", "--lambda"}), doctest::Contains("a flag takes one value"),
                       CLI::ValidationError);
  CHECK(s.adapt.epochs == AdaptationSettings{}.epochs);
  app.parse(std::vector<std::string>{"committee", "--rule", "--head-only", "7", "--epochs"});
  CHECK(s.adapt.epochs == 7);
  CHECK(s.adapt.network_head_only);
  CHECK(s.suggest.rule == SuggestionRule::Committee);
  CHECK(givenSettings(app, s) == std::vector<std::string>{"adapt.epochs=7", "adapt.network_head_only=true", "suggest.rule=committee"});
  CHECK(app.get_option("--epochs")->get_description() == "passes (adapt.epochs: a whole number 1..100000; default 100)");

  CLI::App wrong;
  CHECK_THROWS_AS(addSettingOption(wrong, "--x", "adapt.no_such_key", s, ""), std::logic_error);
  CHECK_THROWS_AS(declareOtherFlags(wrong, {"--missing"}), std::logic_error);
}
