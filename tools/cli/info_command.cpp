// `mmp info MODEL`: what a model file holds -- behaviour, cost form, learner, features, training
// images, cost range, format version, the training statistics of the familiarity check and the
// provenance `mmp train` recorded (CostModel::summary) -- as text or, with --json, one JSON object.
#include "commands.hpp"
#include <mmp/frontend/json_output.hpp>

#include <mmp/maps/cost_model.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <memory>

namespace mmp::tools {
namespace {

struct InfoOptions {
  std::string model;
  bool json = false;
  bool config = false;
  bool data = false;
};

// Text from a model file as a terminal shows it harmlessly: control characters (C0 but the line
// breaks the caller lays out, DEL, and C1 in UTF-8: U+0080..U+009F, where U+009B starts a sequence
// as ESC [ does) written as \xNN or \u00NN.  A model's settings printed raw could move the cursor,
// recolour or retitle the terminal, or hide lines.
std::string printable(const std::string& text) {
  std::string out;
  char code[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto ch = static_cast<unsigned char>(text[i]);
    if (ch == '\n') {
      out += '\n';
    } else if (ch < 0x20 || ch == 0x7f) {
      std::snprintf(code, sizeof code, "\\x%02X", ch);
      out += code;
    } else if (ch == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      std::snprintf(code, sizeof code, "\\u00%02X", static_cast<unsigned char>(text[++i]));
      out += code;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out;
}

// The numbers written to full precision ("2.6451048626340397") shortened to 6 significant digits
// ("2.6451") for reading; --json keeps every digit.
std::string readableNumbers(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool starts = std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
    std::size_t end = i;
    while (starts && end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || std::strchr(".eE+-", text[end]))) ++end;
    const std::string token = text.substr(i, end - i);
    char* stop = nullptr;
    const double value = starts ? std::strtod(token.c_str(), &stop) : 0.0;
    if (starts && token.find('.') != std::string::npos && token.size() > 9 && stop == token.c_str() + token.size()) {
      char shorter[32];
      std::snprintf(shorter, sizeof shorter, "%.6g", value);
      out += shorter;
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

void runInfo(const InfoOptions& o) {
  const CostModel model = CostModel::load(o.model);
  const auto summary = model.summary();
  if (o.json) {
    Json json = {{"model", o.model}};
    for (const auto& [key, value] : summary) json[key] = value;
    std::printf("%s\n", jsonText(json).c_str());
    return;
  }
  std::printf("%s\n", printable(o.model).c_str());
  std::size_t width = 0;
  for (const auto& entry : summary) width = std::max(width, entry.first.size());
  for (const auto& [key, value] : summary) {
    std::string text = value;
    if (key == "config_effective" && !o.config) {
      text = std::to_string(std::count(value.begin(), value.end(), '\n')) + " lines of YAML (--config prints them)";
    }
    if (key == "adapted_demonstrations" && !o.data) {
      text = std::to_string(std::count(value.begin(), value.end(), '\n') + 1) + " demonstrations taught (--data prints their cells)";
    }
    if ((key == "adapted_avoid" || key == "adapted_prefer") && !o.data) {
      text = std::to_string(std::count(value.begin(), value.end(), '\n') + 1) + " " + key.substr(8) + " marks (--data prints their cells)";
    }
    if (key == "data" && !o.data) {
      text = std::to_string(std::count(value.begin(), value.end(), '\n')) + " files' fingerprints (--data prints them)";
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    text = printable(key == "config_effective" || key == "data" ? text : readableNumbers(text));
    std::string indented;  // continuation lines under the value
    for (char ch : text) indented += ch == '\n' ? "\n" + std::string(width + 4, ' ') : std::string(1, ch);
    std::printf("  %-*s  %s\n", static_cast<int>(width), printable(key).c_str(), indented.c_str());
  }
}

}  // namespace

void addInfoCommand(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Say what a model file holds: behaviour, costs, learner, features, training "
                                             "images, cost range, provenance and holdout figures");
  cmd->add_option("model,--model", o->model, "model file written by mmp train")->required();
  cmd->add_flag("--json", o->json, "one JSON object, every entry in full");
  cmd->add_flag("--config", o->config, "print the effective config the model was trained with in full");
  cmd->add_flag("--data", o->data, "print the fingerprint of every file it was trained and scored on, and the cells of every demonstration and mark it was taught");
  cmd->footer("Examples:\n  mmp info models/follow_road.mmp\n  mmp info out/demo/model.mmp --json");
  cmd->callback([o] { runInfo(*o); });
}

}  // namespace mmp::tools
