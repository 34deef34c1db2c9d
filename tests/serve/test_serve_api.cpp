// The teaching page's API (tools/serve: mmp::serve::ServeApi) in process: every endpoint with good input and
// with bad -- traversal attempts, a huge body, bad JSON, points outside the image, unknown image ids --
// each a 4xx with a JSON message naming what was wrong; teaching changes the costs and the plan, undo restores
// them exactly, two threads teaching at once are serialised, saves are atomic and load.
#include "temp_dir.hpp"
#include "test_paths.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/path_files.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/serve/serve_api.hpp>

#include <doctest/doctest.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using mmp::serve::Request;
using mmp::serve::Response;
using mmp::serve::ServeApi;
using mmp::serve::ServeSettings;
using Json = nlohmann::json;

const std::string kModel = std::string(mmp::test::sourceDir()) + "/models/follow_road.mmp";

// A synthetic aerial scene of 192 x 160 px (48 x 40 cells of the shipped models' 4 px).
std::string writeScene(const mmp::test::TempDir& dir, const std::string& name) {
  mmp::SyntheticSceneParams p;
  p.rows = 160;
  p.cols = 192;
  p.seed = 7;
  const std::string path = dir.file(name);
  REQUIRE(cv::imwrite(path, mmp::makeSyntheticScene(p).image));
  return path;
}

// The same scene as a GeoTIFF in UTM zone 40 N, 0.5 m a pixel.
// nodata_rows > 0: its first rows are 0 in every band, the bands' nodata value (pixels without data).
std::string writeGeoScene(const mmp::test::TempDir& dir, int nodata_rows = 0) {
  mmp::SyntheticSceneParams p;
  p.rows = 160;
  p.cols = 192;
  p.seed = 7;
  const cv::Mat image = mmp::makeSyntheticScene(p).image;
  GDALAllRegister();
  const std::string path = dir.file(nodata_rows > 0 ? "scene_nodata.tif" : "scene_utm.tif");
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), image.cols, image.rows, 3, GDT_Byte, nullptr);
  REQUIRE(out != nullptr);
  double transform[6] = {320000.0, 0.5, 0.0, 2777262.0, 0.0, -0.5};
  GDALSetGeoTransform(out, transform);
  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
  OSRImportFromEPSG(srs, 32640);
  GDALSetSpatialRef(out, srs);
  OSRDestroySpatialReference(srs);
  std::vector<std::uint8_t> band(static_cast<std::size_t>(image.rows) * image.cols);
  for (int b = 0; b < 3; ++b) {
    for (int r = 0; r < image.rows; ++r) {
      for (int c = 0; c < image.cols; ++c) {
        band[static_cast<std::size_t>(r) * image.cols + c] = r < nodata_rows ? 0 : std::max<std::uint8_t>(1, image.at<cv::Vec3b>(r, c)[2 - b]);
      }
    }
    if (nodata_rows > 0) GDALSetRasterNoDataValue(GDALGetRasterBand(out, b + 1), 0.0);
    REQUIRE(GDALRasterIO(GDALGetRasterBand(out, b + 1), GF_Write, 0, 0, image.cols, image.rows, band.data(), image.cols, image.rows,
                         GDT_Byte, 0, 0) == CE_None);
  }
  GDALClose(out);
  return path;
}

struct Fixture {
  mmp::test::TempDir dir;
  ServeSettings settings;
  std::unique_ptr<ServeApi> api;

  explicit Fixture(std::size_t max_body = 1 << 20) {
    settings.model = kModel;
    settings.images = {writeScene(dir, "scene.png"), writeGeoScene(dir)};
    settings.out = dir.file("adapted.mmp");
    settings.max_picture_px = 64;
    settings.max_body_bytes = max_body;
    settings.max_points = 500;
    api = std::make_unique<ServeApi>(settings);
  }

  Response get(const std::string& path, std::map<std::string, std::string> query = {}) {
    return api->handle({"GET", path, std::move(query), ""});
  }
  Response post(const std::string& path, const std::string& body) { return api->handle({"POST", path, {}, body}); }
};

// A refusal: the status and a JSON {"error": ...} whose message holds `words`.
void refused(const Response& r, int status, const std::string& words) {
  CAPTURE(r.body);
  CHECK(r.status == status);
  REQUIRE(r.type == "application/json");
  const Json json = Json::parse(r.body);
  REQUIRE(json.contains("error"));
  CHECK(json["error"].get<std::string>().find(words) != std::string::npos);
}

Json ok(const Response& r) {
  CAPTURE(r.body.substr(0, 300));
  REQUIRE(r.status == 200);
  REQUIRE(r.type == "application/json");
  return Json::parse(r.body);
}

cv::Mat picture(const Response& r) {
  REQUIRE(r.status == 200);
  const std::vector<std::uint8_t> bytes(r.body.begin(), r.body.end());
  return cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
}

}  // namespace

TEST_CASE("serve: a killed server's temporary folder is removed by the next server, a running one's is kept") {
  namespace fs = std::filesystem;
  const std::string tag = std::to_string(::getpid());
  const fs::path abandoned = fs::temp_directory_path() / ("mmp-serve.abandoned" + tag);
  const fs::path running = fs::temp_directory_path() / ("mmp-serve.running" + tag);
  for (const fs::path& folder : {abandoned, running}) {
    fs::create_directories(folder);
    std::ofstream(folder / ".lock") << "";
    std::ofstream(folder / "1_download.tif") << "bytes a killed server left";
  }
  const int held = ::open((running / ".lock").c_str(), O_RDWR);  // as a running server holds its own
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  {
    Fixture f;  // a server starting
    CHECK_FALSE(fs::exists(abandoned));
    CHECK(fs::exists(running / "1_download.tif"));
  }
  ::close(held);
  std::error_code ignored;
  fs::remove_all(running, ignored);
}

TEST_CASE("serve: the page's own files are served by exact name and no request path reaches the file system") {
  Fixture f;
  const Response page = f.get("/");
  CHECK(page.status == 200);
  CHECK(page.type.rfind("text/html", 0) == 0);
  CHECK(page.body.find("/app.js") != std::string::npos);
  CHECK(f.get("/app.js").type.rfind("text/javascript", 0) == 0);
  CHECK(f.get("/style.css").status == 200);
  for (const std::string path : {"/../../etc/passwd", "/etc/passwd", "//etc/passwd", "/app.js/../../../etc/passwd", "/index.html%00",
                                  "/./app.js", "/api/images/0/../../../etc/passwd", "/api/images/0/image.jpg/..", "/api/../../etc/passwd"}) {
    CAPTURE(path);
    CHECK(f.get(path).status == 404);
  }
  refused(f.get("/api/nothing"), 404, "no endpoint");
  refused(f.post("/", "{}"), 405, "use GET");
  refused(f.get("/api/undo"), 405, "use POST");
  refused(f.api->handle({"DELETE", "/api/session", {}, ""}), 405, "use GET");
}

TEST_CASE("serve: the session lists the model and the images and the info endpoint says how familiar an image is") {
  Fixture f;
  const Json session = ok(f.get("/api/session"));
  CHECK(session["model"]["kind"] == "linear");
  CHECK(session["teaching"] == true);
  REQUIRE(session["images"].size() == 2);
  CHECK(session["images"][0]["width"] == 192);
  CHECK(session["images"][1]["georeferenced"] == true);
  CHECK(session["demonstrations"].empty());
  const Json info = ok(f.get("/api/images/0/info"));
  CHECK(info["cols"] == 48);
  CHECK(info["rows"] == 40);
  CHECK(info["familiarity"]["known"] == true);
  CHECK(info["familiarity"]["text"].get<std::string>().find("cells") != std::string::npos);
  CHECK(info["costs"]["low"].get<double>() > 0.0);
  CHECK(info["costs"]["high"].get<double>() >= info["costs"]["low"].get<double>());
  CHECK(info["frame"]["world"] == false);
  CHECK(ok(f.get("/api/images/1/info"))["frame"]["world"] == true);
}

TEST_CASE("serve: unknown image ids are 404 naming the ids that exist") {
  Fixture f;
  for (const std::string id : {"2", "-1", "abc", "0x0", "", "99999999999999999999", "1.0", " 0"}) {
    CAPTURE(id);
    refused(f.get("/api/images/" + id + "/info"), 404, "the images are 0 to 1");
  }
}

TEST_CASE("serve: pictures are bounded and regions outside the image are refused") {
  Fixture f;
  const cv::Mat overview = picture(f.get("/api/images/0/image.jpg"));
  CHECK(std::max(overview.cols, overview.rows) == 64);  // max_picture_px, from 192 x 160
  const Response costs = f.get("/api/images/0/costs.png");
  const cv::Mat overlay = picture(costs);
  CHECK(overlay.channels() == 4);
  CHECK(std::max(overlay.cols, overlay.rows) <= 64);
  CHECK(costs.headers.at("X-Region") == "0,0,192,160");
  const Response region = f.get("/api/images/0/costs.png", {{"region", "5,6,30,21"}});
  CHECK(region.headers.at("X-Region") == "4,4,32,24");  // the whole cells covering it
  CHECK(picture(region).cols == 7);                    // one pixel a cell
  const cv::Mat detail = picture(f.get("/api/images/0/image.jpg", {{"region", "10,10,40,30"}}));
  CHECK(detail.cols == 30);
  CHECK(detail.rows == 20);
  refused(f.get("/api/images/0/image.jpg", {{"region", "0,0,193,10"}}), 400, "not inside the image");
  refused(f.get("/api/images/0/image.jpg", {{"region", "30,10,10,20"}}), 400, "not inside the image");
  refused(f.get("/api/images/0/image.jpg", {{"region", "-5,0,10,10"}}), 400, "not inside the image");
  refused(f.get("/api/images/0/image.jpg", {{"region", "1,2,3"}}), 400, "expected x0,y0,x1,y1");
  refused(f.get("/api/images/0/image.jpg", {{"region", "a,b,c,d"}}), 400, "region value 'a': expected a");
  refused(f.get("/api/images/0/image.jpg", {{"region", "0,0,nan,10"}}), 400, "region value 'nan': expected a decimal number");
  refused(f.get("/api/images/0/costs.png", {{"max", "100000"}}), 400, "out of range");
  refused(f.get("/api/images/0/costs.png", {{"max", "1e400"}}), 400, "finite");
  CHECK(picture(f.get("/api/legend.png")).cols == 256);
}

TEST_CASE("serve: the cell read-out gives the cost and world coordinates and refuses points outside") {
  Fixture f;
  const Json cell = ok(f.get("/api/images/1/cell", {{"x", "10"}, {"y", "6"}}));
  CHECK(cell["row"] == 1);
  CHECK(cell["col"] == 2);
  CHECK(cell["cost"].get<double>() > 0.0);
  CHECK(cell["world"][0].get<double>() == doctest::Approx(320005.0));
  CHECK(cell["world"][1].get<double>() == doctest::Approx(2777259.0));
  CHECK_FALSE(ok(f.get("/api/images/0/cell", {{"x", "10"}, {"y", "6"}})).contains("world"));
  refused(f.get("/api/images/0/cell", {{"x", "192"}, {"y", "6"}}), 400, "outside the image's whole cells");
  refused(f.get("/api/images/0/cell", {{"x", "-1"}, {"y", "6"}}), 400, "outside the image's whole cells");
  refused(f.get("/api/images/0/cell", {{"x", "1"}}), 400, "missing query parameter 'y'");
  refused(f.get("/api/images/0/cell", {{"x", "1"}, {"y", "inf"}}), 400, "expected a decimal number");
  refused(f.get("/api/images/0/cell", {{"x", "0x10"}, {"y", "2"}}), 400, "query parameter 'x' '0x10': expected a decimal number");
  refused(f.get("/api/images/0/cell", {{"x", "nan"}, {"y", "2"}}), 400, "expected a decimal number");
  refused(f.get("/api/images/0/cell", {{"x", "1"}, {"y", "2px"}}), 400, "'y'");
}

TEST_CASE("serve: an image with pixels without data is planned on and taught, its no-data cells unknown") {
  mmp::test::TempDir dir;
  ServeSettings settings;
  settings.model = kModel;
  settings.images = {writeGeoScene(dir, 16)};
  ServeApi api(settings);
  ok(api.handle({"POST", "/api/images/0/plan", {}, R"({"start": [20, 60], "goal": [170, 150]})"}));
  const Json cell = ok(api.handle({"GET", "/api/images/0/cell", {{"x", "50"}, {"y", "5"}}, ""}));
  CHECK(cell["state"] == "unknown");
  ok(api.handle({"POST", "/api/images/0/teach", {}, R"({"points": [[20, 60], [100, 60], [170, 150]]})"}));
}

TEST_CASE("serve: plans between good points and clear refusals of bad bodies") {
  Fixture f;
  const Json plan = ok(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [180, 150]})"));
  CHECK(plan["cost"].get<double>() > 0.0);
  CHECK(plan["points"].front() == Json::array({6.0, 6.0}));
  CHECK(plan["points"].back() == Json::array({182.0, 150.0}));
  const Json ompl = ok(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [180, 150], "planner": "rrtstar", "budget": 0.2})"));
  // any-angle waypoints may cost a little less than the 8-neighbour A* optimum, never far off it
  CHECK(ompl["ompl"]["ratio"].get<double>() > 0.8);
  CHECK(ompl["ompl"]["points"].size() >= 2);
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [180, 150)"), 400, "not JSON");
  refused(f.post("/api/images/0/plan", ""), 400, "not JSON");
  refused(f.post("/api/images/0/plan", "[1, 2]"), 400, "JSON object");
  refused(f.post("/api/images/0/plan", R"({"goal": [180, 150]})"), 400, "'start' is missing");
  refused(f.post("/api/images/0/plan", R"({"start": "6,6", "goal": [180, 150]})"), 400, "'start' must be [x, y]");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6, 1], "goal": [180, 150]})"), 400, "'start' must be [x, y]");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [1e9, 150]})"), 400, "goal (1000000000, 150) lies outside");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [1e999, 150]})"), 400, "not JSON");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [10, 10], "planner": "dijkstra"})"), 400, "planner");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [10, 10], "planner": "rrtstar", "budget": 1000})"), 400, "budget");
  refused(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [10, 10], "planner": 7})"), 400, "type");
}

TEST_CASE("serve: a body over the bound is refused with 413") {
  Fixture f(4096);
  refused(f.post("/api/images/0/teach", std::string(5000, ' ')), 413, "more than the 4096 allowed");
}

TEST_CASE("serve: a body nested deeper than 16 levels is refused before parsing and the server goes on") {
  Fixture f;
  // 500,000 levels, inside the 1 MiB bound, once overflowed the stack in the parsed value's copy.
  const std::string deep = std::string(500000, '[') + std::string(500000, ']');
  for (const char* path : {"/api/images/0/plan", "/api/images/0/teach", "/api/images/0/suggest", "/api/undo"}) {
    CAPTURE(path);
    refused(f.post(path, "{\"start\": " + deep + "}"), 400, "more than 16 levels deep");
    refused(f.post(path, "{\"points\": " + std::string(17, '[') + std::string(17, ']') + "}"), 400, "at most 16");
  }
  CHECK(ok(f.get("/api/session"))["limits"]["max_json_depth"] == 16);
  // Sixteen levels still reach the endpoint, which names the shape it wanted.
  refused(f.post("/api/images/0/plan", "{\"start\": " + std::string(15, '[') + std::string(15, ']') + "}"), 400, "'start' must be [x, y]");
  CHECK(ok(f.post("/api/images/0/plan", R"({"start": [6, 6], "goal": [180, 150]})"))["cost"].get<double>() > 0.0);
}

TEST_CASE("serve: teaching changes the costs and the plan and undo restores them exactly") {
  Fixture f;
  const std::string before = f.get("/api/images/0/costs.png").body;
  const std::string plan_body = R"({"start": [6, 150], "goal": [186, 10]})";
  const Json plan_before = ok(f.post("/api/images/0/plan", plan_body));
  // an L-shaped demonstration far from the straight line: along the top, then down
  const Json taught = ok(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10], [186, 10]], "revision": 0})"));
  CHECK(taught["revision"] == 1);
  CHECK(taught["step"]["demonstrations"] == 1);
  REQUIRE(taught["demonstrations"].size() == 1);
  CHECK(taught["demonstrations"][0]["cells"].get<int>() >= 80);  // the corners joined cell by cell
  const std::string after = f.get("/api/images/0/costs.png").body;
  CHECK(after != before);
  const Json plan_after = ok(f.post("/api/images/0/plan", plan_body));
  CHECK(plan_after["cost"].get<double>() != plan_before["cost"].get<double>());
  CHECK(ok(f.get("/api/session"))["demonstrations"].size() == 1);
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10]], "revision": 0})"), 409, "another tab taught it");
  refused(f.post("/api/undo", R"({"revision": "1"})"), 400, "'revision' must be an integer");
  const Json undone = ok(f.post("/api/undo", R"({"revision": 1})"));
  CHECK(undone["revision"] == 2);
  CHECK(undone["demonstrations"].empty());
  CHECK(f.get("/api/images/0/costs.png").body == before);
  CHECK(ok(f.post("/api/images/0/plan", plan_body))["cost"].get<double>() == plan_before["cost"].get<double>());
  refused(f.post("/api/undo", "{}"), 409, "nothing to undo");
}

TEST_CASE("serve: bad demonstrations are refused and change nothing") {
  Fixture f;
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 150]]})"), 400, "needs 2 or more");
  refused(f.post("/api/images/0/teach", R"({"points": "6,150"})"), 400, "'points' is missing");
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 150], [600, 10]]})"), 400, "outside");
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, "x"]]})"), 400, "must be [x, y]");
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 6], [7, 7]]})"), 400, "one cell");
  std::string many = R"({"points": [)";
  for (int i = 0; i < 501; ++i) many += std::string(i ? "," : "") + "[6, 6]";
  refused(f.post("/api/images/0/teach", many + "]}"), 413, "more than the 500 allowed");
  refused(f.post("/api/images/5/teach", R"({"points": [[6, 150], [6, 10]]})"), 404, "no image '5'");
  CHECK(ok(f.get("/api/session"))["revision"] == 0);
}

TEST_CASE("serve: two threads teaching at once are serialised") {
  Fixture f;
  std::atomic<int> good{0}, bad{0};
  const auto teach = [&](const std::string& body) {
    for (int i = 0; i < 2; ++i) {
      const Response r = f.post("/api/images/0/teach", body);
      (r.status == 200 ? good : bad) += 1;
    }
  };
  std::thread a(teach, R"({"points": [[6, 150], [100, 100]]})"), b(teach, R"({"points": [[186, 10], [90, 60]]})");
  a.join();
  b.join();
  CHECK(good == 4);
  CHECK(bad == 0);
  const Json session = ok(f.get("/api/session"));
  CHECK(session["revision"] == 4);
  CHECK(session["demonstrations"].size() == 4);
}

TEST_CASE("serve: save writes the adapted model atomically and it loads with its demonstrations") {
  Fixture f;
  ok(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10], [186, 10]]})"));
  const Json saved = ok(f.post("/api/save", ""));
  CHECK(saved["saved"] == f.settings.out);
  const mmp::CostModel model = mmp::CostModel::load(f.settings.out);
  CHECK(model.info().count("adapted_demonstrations") == 1);
  CHECK(model.info().at("adapted_images").find("scene.png") != std::string::npos);

  ServeSettings off = f.settings;
  off.out = "";
  ServeApi without(off);
  refused(without.handle({"POST", "/api/save", {}, ""}), 409, "--out");
  ServeSettings same = f.settings;
  same.out = kModel;
  CHECK_THROWS_AS(ServeApi{same}, mmp::InvalidArgument);
}

TEST_CASE("serve: demonstrations are named, renamed, and their names round-trip through the CSV and the model") {
  Fixture f;
  ok(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10], [186, 10]], "name": "harbour road"})"));
  ok(f.post("/api/images/0/teach", R"({"points": [[30, 30], [100, 120]]})"));
  Json session = ok(f.get("/api/session"));
  CHECK(session["demonstrations"][0]["name"] == "harbour road");
  CHECK(session["demonstrations"][1]["name"] == "path 2");
  const Json renamed = ok(f.post("/api/rename", R"({"index": 2, "name": "quay"})"));
  CHECK(renamed["demonstrations"][1]["name"] == "quay");
  refused(f.post("/api/rename", R"({"index": 3, "name": "x"})"), 404, "no demonstration 3");
  refused(f.post("/api/rename", R"({"index": 1, "name": "a,b"})"), 400, "without a comma");
  refused(f.post("/api/rename", R"({"index": 1, "name": "quay"})"), 400, "'quay' is taken");
  refused(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10]], "name": ")" + std::string(101, 'x') + R"("})"), 400,
          "give 1 to 100 characters");
  const Response csv = f.get("/api/images/0/demonstrations.csv");
  { std::ofstream(f.dir.file("named.csv")) << csv.body; }
  const std::vector<mmp::PixelPath> paths = mmp::readPathCsv(f.dir.file("named.csv"));
  REQUIRE(paths.size() == 2);
  CHECK(paths[0].name == "harbour road");
  CHECK(paths[1].name == "quay");
  const Response model = f.get("/api/model.mmp");
  { std::ofstream(f.dir.file("named.mmp"), std::ios::binary) << model.body; }
  CHECK(mmp::CostModel::load(f.dir.file("named.mmp")).info().at("adapted_demonstration_names") == "harbour road\nquay");
}

TEST_CASE("serve: the downloads are the library's own files") {
  Fixture f;
  refused(f.get("/api/images/0/demonstrations.csv"), 404, "no demonstration has been taught");
  ok(f.post("/api/images/0/teach", R"({"points": [[6, 150], [6, 10], [186, 10]]})"));
  const Response csv = f.get("/api/images/0/demonstrations.csv");
  REQUIRE(csv.status == 200);
  CHECK(csv.download == "scene_demonstrations.csv");
  { std::ofstream(f.dir.file("paths.csv")) << csv.body; }
  const std::vector<mmp::PixelPath> paths = mmp::readPathCsv(f.dir.file("paths.csv"));
  REQUIRE(paths.size() == 1);
  CHECK(paths[0].points.size() == ok(f.get("/api/session"))["demonstrations"][0]["cells"].get<std::size_t>());

  const Response model = f.get("/api/model.mmp");
  REQUIRE(model.status == 200);
  { std::ofstream(f.dir.file("downloaded.mmp"), std::ios::binary) << model.body; }
  CHECK(mmp::CostModel::load(f.dir.file("downloaded.mmp")).info().count("adapted_demonstrations") == 1);

  const Response tif = f.get("/api/images/1/costmap.tif");
  REQUIRE(tif.status == 200);
  CHECK(tif.body.substr(0, 4) == std::string("II*\0", 4));

  refused(f.get("/api/images/0/nav2.tar"), 422, "no world frame");
  const Response tar = f.get("/api/images/1/nav2.tar", {{"lethal_quantile", "0.9"}, {"origin", "local"}});
  REQUIRE(tar.status == 200);
  CHECK(tar.body.size() % 512 == 0);
  CHECK(tar.body.substr(0, 8) == "map.yaml");
  CHECK(tar.body.find("map.pgm") != std::string::npos);
  CHECK(std::stoll(tar.headers.at("X-Lethal-Cells")) > 0);
  refused(f.get("/api/images/1/nav2.tar", {{"lethal_quantile", "0.9"}, {"lethal_above", "3"}}), 400, "not both");
  refused(f.get("/api/images/1/nav2.tar", {{"lethal_quantile", "2"}}), 400, "out of range");
  refused(f.get("/api/images/1/nav2.tar", {{"scale", "cubic"}}), 400, "log or linear");
}

TEST_CASE("serve: suggest gives pairs of passable cells and refuses a bad count") {
  Fixture f;
  const Json s = ok(f.post("/api/images/0/suggest", R"({"n": 2})"));
  CHECK(s["pairs"].size() >= 1);
  CHECK(s["pairs"].size() <= 2);
  refused(f.post("/api/images/0/suggest", R"({"n": 0})"), 400, "'n' must be an integer from 1 to 10");
  refused(f.post("/api/images/0/suggest", R"({"n": "many"})"), 400, "'n'");
  // within the view the page sends, out of an excluded box
  const Json in_view = ok(f.post("/api/images/0/suggest", R"({"n": 2, "region": [0, 0, 96, 160], "exclude": [[0, 0, 96, 48]]})"));
  REQUIRE(in_view["pairs"].size() >= 1);
  for (const Json& pair : in_view["pairs"]) {
    for (const char* end : {"start", "goal"}) {
      CHECK(pair[end][0].get<double>() <= 96.0);
      CHECK(pair[end][1].get<double>() >= 48.0);
    }
  }
  refused(f.post("/api/images/0/suggest", R"({"region": [0, 0, 1e9, 10]})"), 400, "'region' must be [x0, y0, x1, y1] in pixels");
  refused(f.post("/api/images/0/suggest", R"({"exclude": [[5, 5, 1, 1]]})"), 400, "'exclude[0]' must be");
}

TEST_CASE("serve: images are listed from files and folders and bounded in size") {
  mmp::test::TempDir dir;
  writeScene(dir, "b.png");
  writeScene(dir, "a.jpg");
  { std::ofstream(dir.file("notes.txt")) << "not an image"; }
  const std::vector<std::string> listed = mmp::serve::listImages({dir.file("")});
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].find("a.jpg") != std::string::npos);
  CHECK_THROWS_WITH_AS(mmp::serve::listImages({dir.file("missing.png")}), doctest::Contains("no such file or folder"), mmp::InvalidArgument);
  mmp::test::TempDir empty;
  CHECK_THROWS_WITH_AS(mmp::serve::listImages({empty.file("")}), doctest::Contains("holds no .png"), mmp::InvalidArgument);
  ServeSettings settings;
  settings.model = kModel;
  settings.images = listed;
  settings.max_image_pixels = 1000;
  CHECK_THROWS_WITH_AS(ServeApi{settings}, doctest::Contains("more than the 1000 px allowed"), mmp::InvalidArgument);
}
