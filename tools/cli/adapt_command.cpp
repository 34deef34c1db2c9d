// `mmp adapt MODEL CONFIG.yaml`: teaches a saved model on a new site as its config says
// (adapt_config.hpp, maps/training/adaptation_run.hpp): every demonstration in order, one at a time,
// each a progress line; each demonstration scored held out; the holdout, if any, scored as `mmp train`
// scores one.  Writes the output folder (model.mmp, teach_*.png, metrics.json, and with a holdout
// panel_*.png and pairs.csv) all at once; the parent is never written.
// `mmp adapt MODEL --image A --demonstrations A.csv [--avoid S.csv] [--prefer T.csv] [--image B ...] --out M.mmp [--png P]`: the same
// teaching from flags, writing the adapted model (atomically) and, with --png, the picture of the
// first image.  The setting flags (--epochs, ...) are rows of the settings table (setting_flags.hpp);
// beside a config they act as its --set.
#include "commands.hpp"
#include "failure.hpp"
#include "output_folder.hpp"
#include "progress.hpp"
#include "pictures.hpp"
#include "provenance.hpp"
#include "setting_flags.hpp"
#include "tables.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/frontend/adapt_config.hpp>
#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/train_metrics.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/figures.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/regions.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace mmp::tools {
namespace {

struct AdaptOptions {
  std::string model, config, out, png, data_root, output_dir;
  std::vector<std::string> overrides;
  std::vector<std::string> images, demonstrations, avoid, prefer;
  PipelineSettings settings;         ///< the setting flags' (adapt.*): settings.adapt
  std::vector<std::string> given;    ///< the setting flags given, as KEY=VALUE: with a config, applied after --set
};

// How the model adapts, for the first line of the output.
std::string adaptationKind(const CostModel& parent, const AdaptationSettings& settings) {
  return describeAdaptation(parent, settings) + (parent.readsPixels() ? "; " + networkKernels() : "");
}

void writePicture(const AdaptOptions& o, const CostModelTeacher& teacher, const GeoImage& image) {
  std::vector<std::vector<int>> demos;
  for (const TaughtDemonstration& d : teacher.demonstrations()) {
    if (d.image == 0) demos.push_back(d.cells);
  }
  writeImage(o.png, teachingPicture(teacher.parent().costs(image), teacher.model().costs(image), demos,
                                    static_cast<int>(teacher.demonstrations().size())));
  std::printf("wrote %s\n", o.png.c_str());
}

// Each demonstration held out (heldOutDemonstrations, or the config run's), as a table and a verdict.
void printHeldOut(const HeldOutPathReport& h, const char* note) {
  std::printf("\neach demonstration held out (the model taught on the other %d plans between its ends): mean over %d%s\n",
              h.demonstrations - 1, h.demonstrations, note);
  std::printf("%-8s %22s %10s %28s %10s\n", "model", "prediction loss/cell", "MHD (px)", "demo cost / plan cost (model)", "unplanned");
  for (const auto& [name, f] : {std::pair<const char*, const HeldOutFit&>{"parent", h.baseline}, {"adapted", h.model}}) {
    std::printf("%-8s %22.4f %10.1f %28.3f %10d\n", name, f.loss, f.mhd_px, f.cost_ratio, f.unplanned);
  }
  std::printf("adapted vs parent: prediction loss %.4f lower, 95 %% paired-bootstrap interval [%.4f, %.4f]: %s\n", h.gain.gain,
              h.gain.low, h.gain.high, verdict(h.gain));
  // Measured (docs/teaching.md, bench_adapt --areas train --held-out): it does not forecast unseen ground.
  std::printf("  (how the model fits paths like yours on the ground you drew on, not a forecast for the rest of the site: "
              "against labelled scoring of ground not drawn on it did no better than chance; docs/teaching.md)\n");
}

void runAdapt(const AdaptOptions& o) {
  if (o.images.size() != o.demonstrations.size()) {
    throw InvalidArgument("mmp adapt: " + std::to_string(o.images.size()) + " --image and " +
                          std::to_string(o.demonstrations.size()) + " --demonstrations; give one file of paths per image");
  }
  for (const auto& [flag, files] : {std::pair<const char*, const std::vector<std::string>&>{"avoid", o.avoid}, {"prefer", o.prefer}}) {
    if (files.size() > o.images.size()) {
      throw InvalidArgument("mmp adapt: " + std::to_string(files.size()) + " --" + flag + " for " + std::to_string(o.images.size()) +
                            " --image; give at most one file of " + flag + " strokes per image, in the order of the images");
    }
  }
  std::error_code ignored;
  if (std::filesystem::equivalent(o.model, o.out, ignored)) {
    throw InvalidArgument("mmp adapt: --out '" + o.out + "' is the parent model; write the adapted model to another file");
  }
  CostModelTeacher teacher(CostModel::load(o.model), o.settings.adapt);
  struct Taught {
    int image;
    std::string where, name;  // where: for messages; name: the CSV's path id
    std::vector<int> cells;
  };
  std::vector<Taught> queue;
  std::vector<TeachingMark> marks;
  GeoImage first;
  for (std::size_t i = 0; i < o.images.size(); ++i) {
    GeoImage image = loadGeoImage(o.images[i]);
    // recorded as adapted_images: absolute, so that the record names the file wherever it is read
    const int index = teacher.addImage(image, std::filesystem::absolute(o.images[i]).lexically_normal().string(), fileChecksum(o.images[i]));
    for (const PixelPath& path : readDemonstrationFile(o.demonstrations[i])) {
      const std::string where = o.demonstrations[i] + " path '" + path.name + "'";
      queue.push_back({index, where, path.name,
                       pathCells(path, teacher.cellSize(), teacher.rows(index), teacher.cols(index), where, image.frame)});
    }
    for (const MarkKind kind : {MarkKind::Avoid, MarkKind::Prefer}) {
      const std::vector<std::string>& files = kind == MarkKind::Avoid ? o.avoid : o.prefer;
      if (i >= files.size()) continue;
      std::vector<int> marked;  // every cell a stroke crosses
      for (const PixelPath& stroke : readDemonstrationFile(files[i])) {
        const std::string where = files[i] + " stroke '" + stroke.name + "'";
        const std::vector<int> cells = pathCells(stroke, teacher.cellSize(), teacher.rows(index), teacher.cols(index), where, image.frame);
        marked.insert(marked.end(), cells.begin(), cells.end());
      }
      marks.push_back({index, std::move(marked), kind});
    }
    if (i == 0) first = std::move(image);
  }
  std::printf("adapting %s (%s) on %zu demonstration(s) on %zu image(s)\n", o.model.c_str(),
              adaptationKind(teacher.parent(), teacher.settings()).c_str(),
              queue.size(), o.images.size());
  std::vector<TaughtDemonstration> demonstrations;
  for (const Taught& t : queue) {
    try {
      teacher.checkDemonstration(t.image, t.cells);
    } catch (const DataError& e) {
      throw DataError(t.where + ": " + e.what());
    }
    demonstrations.push_back({t.image, t.cells, t.name});
  }
  // One adaptation over the set (the order does not matter): a file of many paths is not re-adapted
  // once per path.
  const TeachingStep step = teacher.teach(demonstrations, marks);
  std::printf("taught %zu demonstration(s)%s in one adaptation: prediction loss per cell of the taught paths %.4g under the parent, "
              "%.4g adapted (%.2f s)%s\n",
              demonstrations.size(), marks.empty() ? "" : (" and " + std::to_string(marks.size()) + " mark(s)").c_str(),
              step.loss_before, step.loss_after, step.seconds, step.info == Info::Success ? "" : ("; " + step.message).c_str());
  for (const std::string& warning : step.warnings) std::printf("  warning: %s\n", warning.c_str());
  if (demonstrations.size() >= 2) {  // the one figure without labels, as the config form gives it
    Progress progress("");
    const HeldOutPathReport held_out = heldOutDemonstrations(
        teacher, [&](const std::string& stage, long done, long total, const std::string& detail) { progress.update(stage, done, total, detail); });
    progress.finish();
    printHeldOut(held_out, "");
  }
  CostModel adapted = teacher.model();
  adapted.setInfo("mmp_version", provenance());
  adapted.save(o.out);  // atomically
  std::printf("wrote %s (mmp info shows what it was taught)\n", o.out.c_str());
  if (!o.png.empty()) writePicture(o, teacher, first);
}

void runAdaptConfig(const AdaptOptions& o) {
  if (!o.out.empty() || !o.png.empty() || !o.images.empty() || !o.demonstrations.empty()) {
    throw InvalidArgument("mmp adapt: with a config, its teach: list gives the images and output_dir the outputs; "
                          "leave out --image, --demonstrations, --out and --png (or --output-dir)");
  }
  std::vector<std::string> overrides = o.overrides;  // a setting flag beside a config acts as its --set
  overrides.insert(overrides.end(), o.given.begin(), o.given.end());
  const AdaptConfig config = loadAdaptConfig(o.config, o.data_root, o.output_dir, overrides);
  const CostModel parent = CostModel::load(o.model);
  OutputFolder output(config.output_dir);
  for (const std::string& stale : output.removedStale()) std::printf("removed '%s', left by a run that was killed\n", stale.c_str());
  std::printf("mmp adapt %s %s: %zu teach image(s), %zu holdout image(s); %s\n", o.model.c_str(), o.config.c_str(),
              config.train.size(), config.holdout.size(),
              adaptationKind(parent, config.adapt).c_str());
  Progress progress("");
  const AdaptationRun run = adaptAndReport(
      parent, config,
      [&](int k, int n, const TeachingRecord& r) {
        progress.finish();
        std::printf("[%d/%d] %s: prediction loss per cell of the taught paths %.4g under the parent, %.4g adapted (%.2f s)%s\n",
                    k, n, r.name.c_str(), r.step.loss_before, r.step.loss_after, r.step.seconds,
                    r.step.info == Info::Success ? "" : ("; " + r.step.message).c_str());
        for (const std::string& warning : r.step.warnings) std::printf("  warning: %s\n", warning.c_str());
        std::fflush(stdout);
      },
      [&](const std::string& stage, long done, long total, const std::string& detail) { progress.update(stage, done, total, detail); });
  progress.finish();
  for (std::size_t m = 0; m < run.marks.size(); ++m) {
    std::printf("mark from %s: %zu cells held %s than the taught paths' ground\n", run.mark_files[m].c_str(), run.marks[m].cells.size(),
                run.marks[m].kind == MarkKind::Avoid ? "dearer" : "no dearer");
  }

  Json metrics = adaptationMetricsJson(run, config, o.model);
  if (!run.lambda_selection.empty()) {
    std::printf("\nadapt.lambda chosen by the held-out loss of the demonstrations (each taught on the others):\n");
    for (const LambdaCandidate& c : run.lambda_selection) {
      std::printf("  %s lambda %-8g held-out prediction loss per cell %.4f\n", c.lambda == run.lambda ? "*" : " ", c.lambda,
                  c.held_out_loss);
    }
  } else if (!run.selection_note.empty()) {
    std::printf("\nno lambda selection: %s\n", run.selection_note.c_str());
  }
  if (run.held_out.demonstrations > 0) {
    printHeldOut(run.held_out, run.lambda_selection.empty() ? "" : " (the figures the selection saw: they flatter the chosen lambda a little)");
  } else {
    std::printf("\nheld-out scoring: %s\n", config.adapt.held_out ? "needs at least 2 demonstrations" : "off (adapt.held_out)");
  }
  CostModel model = run.model;
  model.setInfo("mmp_version", provenance());
  model.save(output.file("model.mmp"));
  std::vector<std::string> outputs = {"model.mmp"};
  for (std::size_t i = 0; i < run.teach_regions.size(); ++i) {
    const Region& region = run.teach_regions[i];
    std::vector<std::vector<int>> demos;
    for (const TeachingRecord& r : run.taught) {
      if (r.image == static_cast<int>(i)) demos.push_back(r.cells);
    }
    const std::string name = "teach_" + region.spec.name + ".png";
    GeoImage image;  // a network model computes its costs from the pixels
    image.pixels = region.image;
    image.frame = region.frame;
    const auto grid = [&](const CostModel& model) { return model.readsPixels() ? model.costs(image) : model.costs(*region.map); };
    writeImage(output.file(name), teachingPicture(grid(parent), grid(run.model), demos, static_cast<int>(run.taught.size())));
    outputs.push_back(name);
  }
  if (run.report.pairs > 0) {
    std::printf("\nholdout: %zu images, %d start/goal pairs; behaviour '%s' (learned = the adapted model)\n",
                config.holdout.size(), run.report.pairs, config.behaviour.name.c_str());
    printMethodTable(metrics["methods"]);
    printComparisons(metrics["learned_vs"]);
    for (const HoldoutResult& holdout : run.holdouts) {
      const std::string panel = "panel_" + holdout.region.spec.name + "." + config.evaluation.panel_format;
      writeImage(output.file(panel), holdoutPanel(run.teach_regions.front(), holdout, config));
      outputs.push_back(panel);
    }
    writePairRecords(output.file("pairs.csv"), run.report.records);
    outputs.push_back("pairs.csv");
  }
  writeFileAtomically(output.file("metrics.json"), jsonText(metrics) + "\n");
  outputs.push_back("metrics.json");
  output.commit();
  std::printf("\nwrote %s:", output.path().c_str());
  for (const std::string& f : outputs) std::printf(" %s", f.c_str());
  std::printf("\n");
}

void runAdaptCommand(const AdaptOptions& o) {
  if (o.config.empty()) {
    if (o.images.empty() || o.out.empty()) {
      throw InvalidArgument("mmp adapt: give a config (mmp adapt MODEL CONFIG.yaml) or --image, --demonstrations and --out");
    }
    runAdapt(o);
    return;
  }
  try {
    runAdaptConfig(o);
  } catch (const std::exception& e) {
    throw Error(describeFailure(e) + "\n(nothing written: the output folder keeps its previous contents; the parent model is untouched)");
  }
}

}  // namespace

void addAdaptCommand(CLI::App& app) {
  auto o = std::make_shared<AdaptOptions>();
  CLI::App* cmd = app.add_subcommand("adapt", "Teach a saved model on a new site: adapt it to demonstrations on new images");
  cmd->add_option("model,--model", o->model, "the parent model (linear, LEARCH or network), never modified")->required()->check(CLI::ExistingFile);
  cmd->add_option("config,--config", o->config,
                  "YAML: teach: images with demonstrations or labels, holdout: images to score, adapt: settings "
                  "(docs/teaching.md); or give --image, --demonstrations and --out")
      ->check(CLI::ExistingFile);
  cmd->add_option("--image", o->images, "an image of the site (PNG, JPEG, GeoTIFF); repeat with --demonstrations")
      ->check(CLI::ExistingFile);
  cmd->add_option("--demonstrations", o->demonstrations,
                  "paths on the --image of the same place: CSV path,x,y (pixels) or path,world_x,world_y, or YAML")
      ->check(CLI::ExistingFile);
  cmd->add_option("--avoid", o->avoid,
                  "strokes over ground that must stay dear (a lake, roofs) on the --image of the same place, "
                  "in the --demonstrations format; every cell a stroke crosses is held dearer than the taught paths' ground")
      ->check(CLI::ExistingFile);
  cmd->add_option("--prefer", o->prefer,
                  "strokes over ground that may be cheap (a track the paths did not follow), as --avoid; every cell "
                  "a stroke crosses is held no dearer than the taught paths' ground (or than the parent had it, if cheaper)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "where to write the adapted model (atomically)");
  cmd->add_option("--png", o->png, "a picture: both models' cost maps of the first image, demonstrations and plans");
  cmd->add_option("--data-root", o->data_root, "with a config: the folder its paths start from (default: $MMP_DATA_ROOT or data_root)");
  cmd->add_option("--output-dir", o->output_dir, "with a config: where to write (default: its output_dir)");
  cmd->add_option("--set", o->overrides, "with a config: KEY=VALUE changes one setting (repeatable)")->allow_extra_args(false);
  declareOtherFlags(*cmd, {"model", "config", "--image", "--demonstrations", "--avoid", "--prefer", "--out", "--png", "--data-root", "--output-dir", "--set"});
  // The settings, each a row of the settings table (its range and message); with a config, as its --set.
  PipelineSettings& s = o->settings;
  addSettingOption(*cmd, "--lambda", "adapt.lambda", s, "linear models: the pull toward the parent (larger: closer)");
  addSettingOption(*cmd, "--prior", "adapt.prior", s, "linear models: what the prior keeps near the parent's: weights or costs");
  addSettingOption(*cmd, "--epochs", "adapt.epochs", s, "linear models: the most oracle passes (the solver stops at the optimum)");
  addSettingOption(*cmd, "--learch-rounds", "adapt.learch_rounds", s, "LEARCH models: trees added");
  addSettingOption(*cmd, "--network-lambda", "adapt.network_lambda", s, "network models: the proximal pull toward the parent's parameters");
  addSettingOption(*cmd, "--network-step", "adapt.network_step", s, "network models: Adam's step");
  addSettingOption(*cmd, "--network-epochs", "adapt.network_epochs", s, "network models: steps over the demonstrations");
  addSettingOption(*cmd, "--network-head-only", "adapt.network_head_only", s, "network models: fine-tune the last layer only");
  addSettingOption(*cmd, "--loss-radius", "adapt.loss.radius_px", s, "the demonstrations' loss radius in pixels");
  addSettingOption(*cmd, "--threads", "adapt.threads", s, "oracle calls at once (0: every core); the result does not depend on it");
  cmd->footer("Examples:\n  mmp adapt models/follow_road.mmp configs/adapt_follow_road.yaml\n"
              "  mmp adapt models/follow_road.mmp --image site.tif --demonstrations paths.csv --out site.mmp\n"
              "  mmp adapt models/follow_road.mmp --image a.jpg --demonstrations a.csv --image b.jpg --demonstrations b.csv "
              "--out site.mmp --png adapt.png");
  cmd->callback([o, cmd] {
    o->given = givenSettings(*cmd, o->settings);
    runAdaptCommand(*o);
  });
}

}  // namespace mmp::tools
