// Flags that set a row of the settings table (maps/training/setting_keys.hpp): a flag's value is checked
// by its row -- the range a config's key has, refused with the row's message after the flag's name
// ("--epochs: adapt.epochs: expected a whole number 1..100000, got '2000000000'") -- and its help
// names the key, the range and the default, so that a flag cannot take what the config refuses.  A
// command with setting flags declares its other flags (files, outputs, --set, ...) next to them;
// tests/cli checks that every flag of `mmp adapt`, `mmp suggest` and `mmp serve` is one or the other.
//
//   auto settings = std::make_shared<PipelineSettings>();
//   addSettingOption(*cmd, "--epochs", "adapt.epochs", *settings, "linear models: passes over the demonstrations");
//   declareOtherFlags(*cmd, {"model", "--out"});
#pragma once

#include <mmp/maps/training/settings.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mmp::tools {

/*!
    requires: key is a row of the settings table; settings outlives the command's parse
    ensures: adds `flag` to command -- an option taking a value, or for a Boolean row a flag without one
             that sets it true -- that checks its value by the row and sets the row in `settings`; its
             help is `help` and "(KEY: RANGE; default VALUE)", VALUE settings' value now.
!*/
CLI::Option* addSettingOption(CLI::App& command, const std::string& flag, const std::string& key, PipelineSettings& settings,
                              const std::string& help);

/// Marks the command's options that set no setting (positionals by their name, "model"; flags as
/// "--out").  Throws std::logic_error naming one the command does not have.
void declareOtherFlags(CLI::App& command, const std::vector<std::string>& names);

/// The key an option of a command sets (addSettingOption), "" for a declared other option, none for an
/// option that is neither.
std::optional<std::string> flagSetting(CLI::Option& option);

/// "KEY=VALUE" for each setting option given on the command line, VALUE as settings now holds it: what
/// a command that also reads a config applies after the file, as --set would.
std::vector<std::string> givenSettings(CLI::App& command, const PipelineSettings& settings);

}  // namespace mmp::tools
