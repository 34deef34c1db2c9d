// The settings of PipelineSettings that a config file, a flag, a Python keyword or a `select:` search
// space names by a dotted key ("loss.scale", "learner.learch.depth", "adapt.epochs"): one table, each
// key with its type, valid range, meaning, setter and the command it belongs to.  The config readers
// (tools/frontend: train_config.cpp, adapt_config.cpp), `--set`, the command-line flags of `mmp adapt`,
// `mmp suggest` and `mmp serve` (tools/cli/setting_flags.hpp), the Python keywords, the search space
// (settings_selection.hpp), the library's own checks (AdaptationSettings::validate, ... through
// checkSettings) and the reference of every key (docs/config.md, settingsReference()) all read it, so a
// key is parsed and range-checked in one place.  What involves several keys at once is checked by
// validate() (settings.hpp).
//
//   applySetting(settings, "loss.scale", "3");            // throws naming the key and its range
//   for (const SettingKey& k : settingKeys()) std::cout << k.key << ": " << rangeText(k) << "\n";
#pragma once

#include <mmp/maps/training/settings.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mmp {

enum class SettingType { Number, Integer, Boolean, Choice, Numbers, Integers, Choices };

/// The command a setting belongs to: `mmp train` (a train config, its --set, `select:`), `mmp adapt` (an
/// adapt config's adapt: section, its --set and flags; the teaching page's teacher), `mmp suggest` (its
/// flags) or `mmp serve` (the page's bounds).  A train config that gives another command's key is
/// refused, naming that command.
enum class SettingCommand { Train, Adapt, Suggest, Serve };
std::string describe(SettingCommand command);  ///< "mmp train", "mmp adapt", "mmp suggest", "mmp serve"

/// A value of a setting, of the key's type (the other members unused).
struct SettingValue {
  double number = 0.0;
  long integer = 0;
  bool boolean = false;
  std::string choice;
  std::vector<double> numbers;
  std::vector<long> integers;
  std::vector<std::string> choices;
};

struct SettingKey {
  std::string key;                   ///< dotted, as in a config file
  SettingType type = SettingType::Number;
  double low = 0.0, high = 0.0;      ///< numbers (and each item of a list): closed range [low, high]
  std::vector<std::string> valid;    ///< Choice and Choices: the values allowed
  std::string meaning;
  bool in_config = true;             ///< a config file may set it
  bool selectable = false;           ///< a `select:` search space may try values of it
  /// It acts on the trained model alone (learner.cost_exponent: applyAfterTraining, pipeline.hpp):
  /// `select:` scores each of its values on every trained candidate's models, without training again.
  bool after_training = false;
  SettingCommand command = SettingCommand::Train;
  /// A config may give a list of values of this Number key to choose among (adapt.lambda: by the
  /// held-out loss), each in the range: the list comes to `set` in SettingValue::numbers.
  bool candidates = false;
  /// The setting's value in `s`, as a config would write it ("3", "[0, 4, 12]", "linear"); "" when it
  /// holds no value (the rule in `unset` applies).
  std::function<std::string(const PipelineSettings& s)> get;
  std::string unset;                 ///< what applies without a value, for a key that may have none
  /// Sets it from a value of the key's type, already in range; throws mmp::InvalidArgument with the
  /// reason (without the key) for what the range cannot say ("a window side must be odd").
  std::function<void(PipelineSettings& s, const SettingValue& v)> set;
};

/// Every key, in the order a config reader applies them (bins before complements: the default of
/// complements follows bins).
const std::vector<SettingKey>& settingKeys();

/// The key named `key`, or null.
const SettingKey* findSettingKey(const std::string& key);

/// The valid values in words: "a number > 0", "a whole number in 1..100000", "one of linear, step, gaussian",
/// "a list of numbers in [0, 1000]".
std::string rangeText(const SettingKey& key);

/// `text` ("3", "exponential", "[0, 4]", "true") as a value of `key`'s type, range-checked; throws
/// mmp::InvalidArgument "KEY: expected RANGE, got 'TEXT'".
SettingValue parseSettingValue(const SettingKey& key, const std::string& text);

/*!
    ensures: sets `key` of settings to `value` (text, as parseSettingValue reads it); throws
             mmp::InvalidArgument naming the key and what is valid if the key is unknown or the
             value out of range.
!*/
void applySetting(PipelineSettings& settings, const std::string& key, const std::string& value);

/*!
    ensures: throws mmp::InvalidArgument "KEY: expected RANGE, got 'VALUE'" for the first key of
             `command` whose value in `settings` is outside its range: the check of settings a program
             filled in (AdaptationSettings::validate, ...), by the rows that check configs and flags.
!*/
void checkSettings(const PipelineSettings& settings, SettingCommand command);

/// docs/config.md's table of the keys of `command`: key, type and range, default (of a default
/// PipelineSettings), meaning; Markdown.
std::string settingsReference(SettingCommand command);
/// Every command's table (`mmp train --keys`): `mmp train`'s, then each other command's under a heading
/// that says where its keys are read.
std::string settingsReference();

}  // namespace mmp
