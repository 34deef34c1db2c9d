// bench_serve: the teaching page's teach-to-refresh round trip (issue 52), through the API (mmp::serve::ServeApi,
// in process: what the HTTP layer adds locally is a copy of the bytes), at 1 Mpx or a site's 4 Mpx, with a linear
// and a LEARCH shipped model (a benchmark, not a test).
//
//   For each model: the image's first load (features, familiarity, the first cost map: GET info), then
//   --teachings demonstrations taught one after another, each round trip being what the page does after
//   "Teach": POST teach (the teacher re-adapts from the parent over every demonstration so far), GET the
//   cost overlay's overview picture (costs.png), POST plan between the page's start and goal.  Reports the
//   median and the largest round trip and the share of it spent teaching; and Suggest as the page asks it
//   (POST suggest, three pairs over the whole image) on the parent and after the last teaching.
// The image: a synthetic aerial scene of --size x --size px (seeded; runs as shipped), or --image FILE.
// Prints a table and, last, one JSON line.
#include <mmp/frontend/json_output.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/serve/serve_api.hpp>

#include <CLI/CLI.hpp>

#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using mmp::tools::Json;

double msSince(Clock::time_point t0) { return 1e3 * std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

mmp::serve::Response call(mmp::serve::ServeApi& api, const std::string& method, const std::string& path, const std::string& body = "") {
  mmp::serve::Response r = api.handle({method, path, {}, body});
  if (r.status != 200) throw std::runtime_error(method + " " + path + ": " + std::to_string(r.status) + " " + r.body);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_serve: the teaching page's teach-to-refresh round trip through its API"};
  std::string image, models_dir = "models";
  int size = 1024, teachings = 5, threads = 1;
  app.add_option("--image", image, "the image (default: a synthetic scene of --size px a side)");
  app.add_option("--size", size, "the synthetic scene's side in px")->capture_default_str();
  app.add_option("--teachings", teachings, "demonstrations taught one after another")->capture_default_str()->check(CLI::Range(1, 50));
  app.add_option("--threads", threads, "the teacher's oracle calls at once (mmp serve --threads)")->capture_default_str();
  app.add_option("--models", models_dir, "folder of the shipped models")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const fs::path scratch = fs::temp_directory_path() / ("bench_serve_" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    if (image.empty()) {
      mmp::SyntheticSceneParams p;
      p.rows = p.cols = size;
      p.seed = 5;
      image = (scratch / "scene.png").string();
      if (!cv::imwrite(image, mmp::makeSyntheticScene(p).image)) throw std::runtime_error("cannot write " + image);
    }
    struct Row {
      std::string model, kind;
      double load_ms = 0, median_ms = 0, max_ms = 0, teach_share = 0, suggest_parent_ms = 0, suggest_taught_ms = 0;
      int width = 0, height = 0;
    };
    std::vector<Row> rows;
    for (const std::string name : {"follow_road.mmp", "amphibious.mmp"}) {
      mmp::serve::ServeSettings settings;
      settings.model = (fs::path(models_dir) / name).string();
      settings.images = {image};
      settings.out = "";
      settings.adaptation.threads = threads;
      mmp::serve::ServeApi api(settings);
      Row row;
      row.model = name;
      row.kind = Json::parse(call(api, "GET", "/api/session").body)["model"]["kind"];
      auto t0 = Clock::now();
      const Json info = Json::parse(call(api, "GET", "/api/images/0/info").body);
      call(api, "GET", "/api/images/0/costs.png");
      row.load_ms = msSince(t0);
      row.width = info["width"];
      row.height = info["height"];
      const double w = row.width, h = row.height;
      const std::string plan = Json{{"start", {0.1 * w, 0.9 * h}}, {"goal", {0.9 * w, 0.1 * h}}}.dump();
      const auto timeSuggest = [&] {
        const auto ts = Clock::now();
        call(api, "POST", "/api/images/0/suggest", Json{{"n", 3}}.dump());
        return msSince(ts);
      };
      row.suggest_parent_ms = timeSuggest();
      std::vector<double> trips, teach_ms;
      for (int i = 0; i < teachings; ++i) {
        // an L between seeded ends: along one side, then across
        const double a = 0.1 + 0.15 * (i % 5), b = 0.9 - 0.12 * (i % 6);
        const Json demo = {{"points", {{a * w, b * h}, {a * w, (1 - b) * h}, {(1 - a) * w, (1 - b) * h}}}};
        t0 = Clock::now();
        call(api, "POST", "/api/images/0/teach", demo.dump());
        teach_ms.push_back(msSince(t0));
        call(api, "GET", "/api/images/0/costs.png");
        call(api, "POST", "/api/images/0/plan", plan);
        trips.push_back(msSince(t0));
        std::fprintf(stderr, "  %s teaching %d: %.0f ms\n", name.c_str(), i + 1, trips.back());
      }
      row.median_ms = median(trips);
      row.max_ms = *std::max_element(trips.begin(), trips.end());
      double taught = 0, total = 0;
      for (std::size_t i = 0; i < trips.size(); ++i) taught += teach_ms[i], total += trips[i];
      row.teach_share = taught / total;
      row.suggest_taught_ms = timeSuggest();
      rows.push_back(row);
    }
    fs::remove_all(scratch);
    std::printf("teach-to-refresh round trip (POST teach + GET costs.png + POST plan) on a %d x %d px image, %d teachings, "
                "%d teacher thread(s), %u cores\n",
                rows[0].width, rows[0].height, teachings, threads, std::thread::hardware_concurrency());
    std::printf("%-18s %-8s %12s %12s %12s %10s %14s %14s\n", "model", "kind", "first load", "median trip", "largest trip", "teaching",
                "suggest parent", "suggest taught");
    Json out = Json::array();
    for (const Row& r : rows) {
      std::printf("%-18s %-8s %9.0f ms %9.0f ms %9.0f ms %8.0f %% %11.0f ms %11.0f ms\n", r.model.c_str(), r.kind.c_str(), r.load_ms,
                  r.median_ms, r.max_ms, 100 * r.teach_share, r.suggest_parent_ms, r.suggest_taught_ms);
      out.push_back({{"model", r.model}, {"kind", r.kind}, {"first_load_ms", r.load_ms}, {"median_round_trip_ms", r.median_ms},
                     {"max_round_trip_ms", r.max_ms}, {"teach_share", r.teach_share}, {"suggest_parent_ms", r.suggest_parent_ms},
                     {"suggest_taught_ms", r.suggest_taught_ms}});
    }
    std::printf("%s\n", mmp::tools::jsonText(Json{{"bench", "serve"}, {"width", rows[0].width}, {"height", rows[0].height},
                                                  {"teachings", teachings}, {"threads", threads}, {"rows", out}}, -1).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_serve: %s\n", e.what());
    return 1;
  }
  return 0;
}
