// bench_familiarity: the familiarity check's thresholds and what they catch (maps/training_domain.hpp,
// docs/navigation.md), measured on the Dubai parts (../shared/data/aerial/dubai_hitl/images).
//
//   1. The thresholds' procedure: each training tile (default 1, 2, 4, 5, 6: the shipped models') left
//      out of the statistics in turn (the statistics of the other four), the share of its parts' cells
//      outside in colour and in texture (colour and block contrast); the worst of each, and three times
//      it (the margin Familiarity::kWarnShare and kTextureWarnShare were set with).
//   2. The holdout: the statistics of every training tile, each part of the holdout tiles (default 3, 8).
//   3. A landscape change: the statistics of a few tiles only (default 1, 2: the sand districts, no open
//      water, little vegetation), each part of the other tiles, colour alone against colour + texture.
// Warnings are Familiarity::warns() with the thresholds compiled in, and (for other texture settings:
// --block, --edges) those at three times this run's worst left-out shares.  Prints a table and, last,
// one JSON line.
#include <mmp/core/error.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/training_domain.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using mmp::Familiarity;
using mmp::TrainingDomain;
using mmp::tools::Json;

struct Part {
  std::string name;
  int tile = 0;
  mmp::GeoImage image;
};

std::vector<int> parseTiles(const std::string& text) {
  std::vector<int> tiles;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    tiles.push_back(std::stoi(text.substr(start, end - start)));
    start = end + 1;
  }
  return tiles;
}

bool among(int tile, const std::vector<int>& tiles) { return std::find(tiles.begin(), tiles.end(), tile) != tiles.end(); }

std::vector<double> parseNumbers(const std::string& text) {
  std::vector<double> numbers;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    numbers.push_back(std::stod(text.substr(start, end - start)));
    start = end + 1;
  }
  return numbers;
}

// The statistics of the given tiles' parts (each tile's own statistics merged into an empty domain).
TrainingDomain domainOf(const std::map<int, TrainingDomain>& per_tile, const std::vector<int>& tiles, TrainingDomain empty) {
  for (int t : tiles) empty.merge(per_tile.at(t));
  return empty;
}

Json partJson(const Part& p, const Familiarity& f) {
  return {{"part", p.name}, {"cells", f.cells}, {"colour_share", f.share()}, {"textured", f.textured},
          {"texture_share", f.textureShare()}, {"colour_warns", f.share() > Familiarity::kWarnShare}, {"warns", f.warns()}};
}

void printRow(const Part& p, const Familiarity& f) {
  std::printf("  %-22s %8lld cells  colour %7.3f %%  texture %7.3f %%  %s\n", p.name.c_str(), f.cells, 100.0 * f.share(),
              100.0 * f.textureShare(), f.warns() ? (f.share() > Familiarity::kWarnShare ? "warns (colour)" : "warns (texture)") : "");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_familiarity: the familiarity check's thresholds (each training tile left out) and what they catch"};
  std::string images = "../shared/data/aerial/dubai_hitl/images", train_text = "1,2,4,5,6", holdout_text = "3,8", narrow_text = "1,2";
  int cell_size = 4, block = TrainingDomain::kTextureBlock;
  std::string edges_text;
  for (double e : TrainingDomain::kContrastEdges) edges_text += (edges_text.empty() ? "" : ",") + mmp::numberText(e);
  app.add_option("--images", images, "folder of the Dubai parts, tileN_image_part_K.jpg")->capture_default_str();
  app.add_option("--train", train_text, "the training tiles (each left out in turn)")->capture_default_str();
  app.add_option("--holdout", holdout_text, "the holdout tiles, checked against every training tile's statistics")->capture_default_str();
  app.add_option("--narrow", narrow_text, "the tiles of the landscape-change check's statistics")->capture_default_str();
  app.add_option("--cell-size", cell_size, "cell side in px (the shipped models': 4)")->capture_default_str();
  app.add_option("--block", block, "texture block side in cells (0: colour only)")->capture_default_str();
  app.add_option("--edges", edges_text, "the contrast levels' edges: ascending grey standard deviations")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const std::vector<int> train = parseTiles(train_text), holdout = parseTiles(holdout_text), narrow = parseTiles(narrow_text);
    const TrainingDomain empty(cell_size, block, parseNumbers(edges_text));
    if (!fs::is_directory(images)) {
      std::fprintf(stderr, "bench_familiarity: no folder '%s' (the Dubai parts: ../shared/data/aerial/dubai_hitl/images)\n",
                   images.c_str());
      return 2;
    }
    std::vector<Part> parts;
    for (const auto& entry : fs::directory_iterator(images)) {
      const std::string name = entry.path().stem().string();
      if (entry.path().extension() != ".jpg" || name.rfind("tile", 0) != 0) continue;
      parts.push_back({name, std::stoi(name.substr(4)), {}});
    }
    std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.name < b.name; });
    std::map<int, TrainingDomain> per_tile;
    for (Part& p : parts) {
      p.image = mmp::loadGeoImage((fs::path(images) / (p.name + ".jpg")).string());
      auto [it, added] = per_tile.try_emplace(p.tile, empty);
      it->second.add(p.image.pixels);  // as mmp train counts its training images: every pixel
    }
    for (int t : train) {
      if (per_tile.count(t) == 0) throw mmp::InvalidArgument("no part of training tile " + std::to_string(t) + " in " + images);
    }
    const auto check = [](const TrainingDomain& domain, const Part& p) {
      Familiarity f;
      domain.check(p.image.pixels, p.image.valid, f);
      return f;
    };
    Json out = {{"bench", "familiarity"}, {"cell_size", cell_size}, {"block", block}, {"edges", parseNumbers(edges_text)},
                {"warn_share", Familiarity::kWarnShare}, {"texture_warn_share", Familiarity::kTextureWarnShare}};

    std::printf("1. each training tile left out of the statistics in turn (the other %zu tiles' statistics)\n", train.size() - 1);
    double worst_colour = 0.0, worst_texture = 0.0;
    std::string worst_colour_part, worst_texture_part;
    Json loo = Json::array();
    for (int left : train) {
      std::vector<int> others;
      for (int t : train) {
        if (t != left) others.push_back(t);
      }
      const TrainingDomain domain = domainOf(per_tile, others, empty);
      for (const Part& p : parts) {
        if (p.tile != left) continue;
        const Familiarity f = check(domain, p);
        printRow(p, f);
        loo.push_back(partJson(p, f));
        if (f.share() > worst_colour) worst_colour = f.share(), worst_colour_part = p.name;
        if (f.textureShare() > worst_texture) worst_texture = f.textureShare(), worst_texture_part = p.name;
      }
    }
    std::printf("   worst: colour %.3f %% (%s), texture %.3f %% (%s); three times: %.3f %% and %.3f %% (compiled in: %.3g %% and %.3g %%)\n",
                100.0 * worst_colour, worst_colour_part.c_str(), 100.0 * worst_texture, worst_texture_part.c_str(),
                300.0 * worst_colour, 300.0 * worst_texture, 100.0 * Familiarity::kWarnShare, 100.0 * Familiarity::kTextureWarnShare);
    out["left_out"] = {{"parts", loo}, {"worst_colour", worst_colour}, {"worst_colour_part", worst_colour_part},
                       {"worst_texture", worst_texture}, {"worst_texture_part", worst_texture_part}};

    const auto checkAll = [&](const char* title, const std::vector<int>& stats_tiles, const std::vector<int>& tiles) {
      const TrainingDomain domain = domainOf(per_tile, stats_tiles, empty);
      std::printf("%s\n", title);
      Json rows = Json::array();
      int colour_warns = 0, warns = 0, run_warns = 0, checked = 0;
      double most_colour = 0.0, most_texture = 0.0;
      for (const Part& p : parts) {
        if (!among(p.tile, tiles)) continue;
        const Familiarity f = check(domain, p);
        printRow(p, f);
        rows.push_back(partJson(p, f));
        ++checked;
        colour_warns += f.share() > Familiarity::kWarnShare ? 1 : 0;
        warns += f.warns() ? 1 : 0;
        run_warns += f.share() > 3.0 * worst_colour || f.textureShare() > 3.0 * worst_texture || f.fewColours() ? 1 : 0;
        most_colour = std::max(most_colour, f.share());
        most_texture = std::max(most_texture, f.textureShare());
      }
      std::printf("   %d parts: most outside colour %.3f %%, texture %.3f %%; warn on colour alone %d, with texture %d "
                  "(at three times this run's worst left-out shares: %d)\n",
                  checked, 100.0 * most_colour, 100.0 * most_texture, colour_warns, warns, run_warns);
      return Json{{"statistics_of_tiles", stats_tiles}, {"parts", rows}, {"colour_warns", colour_warns}, {"warns", warns},
                  {"warns_at_three_times_worst", run_warns}};
    };
    out["holdout"] = checkAll("2. the holdout tiles against every training tile's statistics", train, holdout);
    std::vector<int> others;
    for (const auto& [t, d] : per_tile) {
      if (!among(t, narrow)) others.push_back(t);
    }
    out["narrow"] = checkAll("3. a landscape change: the other tiles against the narrow tiles' statistics", narrow, others);
    std::printf("%s\n", mmp::tools::jsonText(out, -1).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_familiarity: %s\n", e.what());
    return 1;
  }
  return 0;
}
