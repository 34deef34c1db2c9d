#include "setting_flags.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/setting_keys.hpp>

#include <stdexcept>

namespace mmp::tools {
namespace {

// The names of the marks a flag carries (CLI11 keeps no other data on an option): a validator named
// kSettingMark + key on a setting flag, one named kOtherMark on a declared other flag.
const std::string kSettingMark = "setting ";
const std::string kOtherMark = "not a setting";

const SettingKey& row(const std::string& key) {
  const SettingKey* k = findSettingKey(key);
  if (k == nullptr) throw std::logic_error("a flag names the setting '" + key + "', which the settings table does not have");
  return *k;
}

// The row's check of a value given on the command line: "" if it is in range, else the row's message.
CLI::Validator rowCheck(const SettingKey& k) {
  return CLI::Validator(
      [&k](std::string& text) -> std::string {
        if (k.candidates && text.find('[') != std::string::npos) {  // a run that chooses among them reads a config
          return k.key + ": a flag takes one value; give a list of candidates in a config (or its --set " + k.key + "=[...])";
        }
        try {
          parseSettingValue(k, text);
          return "";
        } catch (const InvalidArgument& e) {
          return e.what();
        }
      },
      "", kSettingMark + k.key);
}

// A check that passes everything: a mark alone.
CLI::Validator mark(const std::string& name) {
  return CLI::Validator([](std::string&) { return std::string(); }, "", name);
}

std::string typeName(const SettingKey& k) {
  switch (k.type) {
    case SettingType::Integer: return "INT";
    case SettingType::Number: return "NUMBER";
    default: return "TEXT";
  }
}

}  // namespace

CLI::Option* addSettingOption(CLI::App& command, const std::string& flag, const std::string& key, PipelineSettings& settings,
                              const std::string& help) {
  const SettingKey& k = row(key);
  const std::string value = k.get(settings);
  const std::string text = help + " (" + key + ": " + rangeText(k) + "; default " + (value.empty() ? k.unset : value) + ")";
  if (k.type == SettingType::Boolean) {
    const auto set = [&k, &settings](std::int64_t) { k.set(settings, parseSettingValue(k, "true")); };
    return command.add_flag_function(flag, set, text)->check(mark(kSettingMark + k.key));
  }
  const auto set = [&k, &settings, flag](const std::string& given) {
    try {
      k.set(settings, parseSettingValue(k, given));
    } catch (const InvalidArgument& e) {  // what the range cannot say, as the config reader says it
      throw CLI::ValidationError(flag, k.key + ": " + e.what());
    }
  };
  return command.add_option_function<std::string>(flag, set, text)->type_name(typeName(k))->check(rowCheck(k));
}

void declareOtherFlags(CLI::App& command, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    CLI::Option* option = command.get_option_no_throw(name);
    if (option == nullptr) throw std::logic_error("mmp " + command.get_name() + " declares '" + name + "', which it does not have");
    option->check(mark(kOtherMark));
  }
}

std::optional<std::string> flagSetting(CLI::Option& option) {
  for (int i = 0;; ++i) {
    const CLI::Validator* check = nullptr;
    try {
      check = option.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return std::nullopt;
    }
    const std::string& name = check->get_name();
    if (name == kOtherMark) return std::string();
    if (name.rfind(kSettingMark, 0) == 0) return name.substr(kSettingMark.size());
  }
}

std::vector<std::string> givenSettings(CLI::App& command, const PipelineSettings& settings) {
  std::vector<std::string> given;
  for (CLI::Option* option : command.get_options()) {
    const std::optional<std::string> key = flagSetting(*option);
    if (option->count() > 0 && key && !key->empty()) given.push_back(*key + "=" + row(*key).get(settings));
  }
  return given;
}

}  // namespace mmp::tools
