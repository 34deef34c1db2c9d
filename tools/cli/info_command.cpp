// `mmp info MODEL`: what a model file holds -- behaviour, cost form, learner, features, training
// images, cost range, format version, the training statistics of the familiarity check and the
// provenance `mmp train` recorded (CostModel::summary) -- as text or, with --json, one JSON object.
#include "commands.hpp"
#include <mmp/frontend/json_output.hpp>

#include <mmp/maps/cost_model.hpp>

#include <algorithm>
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

void runInfo(const InfoOptions& o) {
  const CostModel model = CostModel::load(o.model);
  const auto summary = model.summary();
  if (o.json) {
    Json json = {{"model", o.model}};
    for (const auto& [key, value] : summary) json[key] = value;
    std::printf("%s\n", jsonText(json).c_str());
    return;
  }
  std::printf("%s\n", o.model.c_str());
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
    if (key == "data" && !o.data) {
      text = std::to_string(std::count(value.begin(), value.end(), '\n')) + " files' fingerprints (--data prints them)";
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::string indented;  // continuation lines under the value
    for (char ch : text) indented += ch == '\n' ? "\n" + std::string(width + 4, ' ') : std::string(1, ch);
    std::printf("  %-*s  %s\n", static_cast<int>(width), key.c_str(), indented.c_str());
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
  cmd->add_flag("--data", o->data, "print the fingerprint of every file it was trained and scored on, and the cells of every demonstration it was taught");
  cmd->footer("Examples:\n  mmp info models/follow_road.mmp\n  mmp info out/demo/model.mmp --json");
  cmd->callback([o] { runInfo(*o); });
}

}  // namespace mmp::tools
