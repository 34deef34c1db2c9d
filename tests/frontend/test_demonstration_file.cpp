#include "maps/maps_support.hpp"

#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/maps/training/regions.hpp>

#include <mmp/core/error.hpp>
#include <mmp/planning/path.hpp>

#include <doctest/doctest.h>

#include <fstream>

using namespace mmp;
using namespace mmp::tools;

namespace {

std::string writeDemonstrations(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

std::string demonstrationError(const std::string& path) {
  try {
    readDemonstrationFile(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("demonstrations are read from CSV and YAML") {
  test::TempDir dir;
  SUBCASE("CSV with a path column, comments and a header") {
    const auto paths = readDemonstrationFile(writeDemonstrations(dir, "d.csv",
                                                   "# two paths\npath,x,y\na,1,2\na,10.5,20\na,30,40\nb,5,5\n\nb,6,7\n"));
    REQUIRE(paths.size() == 2);
    CHECK(paths[0].name == "a");
    REQUIRE(paths[0].points.size() == 3);
    CHECK(paths[0].points[1].x == 10.5);
    CHECK(paths[0].points[2].y == 40.0);
    CHECK(paths[1].name == "b");
    CHECK(paths[1].points.size() == 2);
  }
  SUBCASE("CSV without a header is one path of x,y") {
    const auto paths = readDemonstrationFile(writeDemonstrations(dir, "d.csv", "1,2\n3,4\n5,6\n"));
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].points.size() == 3);
  }
  SUBCASE("YAML: a list of paths, or a map with paths; points as pairs or maps") {
    const auto a = readDemonstrationFile(writeDemonstrations(dir, "d.yaml", "- [[1, 2], [3, 4]]\n- [{x: 5, y: 6}, {x: 7, y: 8}]\n"));
    REQUIRE(a.size() == 2);
    CHECK(a[1].points[1].x == 7.0);
    const auto b = readDemonstrationFile(writeDemonstrations(dir, "e.yml", "paths:\n  - [[1, 2], [3, 4], [5, 6]]\n"));
    REQUIRE(b.size() == 1);
    CHECK(b[0].points.size() == 3);
  }
}

TEST_CASE("demonstration file errors name the file, the line or key, and the expected format") {
  test::TempDir dir;
  CHECK(demonstrationError(writeDemonstrations(dir, "a.csv", "x,y\n1,2\n3\n")).find("a.csv:3: expected 2 comma-separated fields") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "b.csv", "x,y\n1,2\n3,abc\n")).find("b.csv:3: y 'abc' is not a number") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "c.csv", "row,col\n1,2\n")).find("the header 'row,col' must be 'x,y', 'path,x,y' (pixels), 'world_x,world_y'") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "w.csv", "path,world_x,y\n1,2,3\n")).find("w.csv:1: the header 'path,world_x,y' must be") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "v.csv", "world_x,world_y\n1,abc\n")).find("v.csv:2: world_y 'abc' is not a number") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "d.csv", "x,y\n1,2\n")).find("path 1 has 1 point") != std::string::npos);
  // A path id that comes back after another path's lines (merged before, with an invented jump).
  CHECK(demonstrationError(writeDemonstrations(dir, "r.csv", "path,x,y\na,1,2\na,3,4\nb,5,6\nb,7,8\na,9,9\n"))
            .find("r.csv:6: path 'a' continues after path 'b' began") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "e.csv", "# nothing\n")).find("holds no points") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "f.yaml", "- [[1, 2], [3]]\n")).find("f.yaml: top level[0][1]: expected a point") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "g.yaml", "routes: []\n")).find("unknown key 'routes'") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "h.yaml", "paths: [5]\n")).find("paths[0]: expected a list of points") != std::string::npos);
  // Keys that are not names (YAML allows maps and lists as keys) and maps without 'paths' (fuzz finding).
  CHECK(demonstrationError(writeDemonstrations(dir, "j.yaml", "paths:\n?  - - \n")).find("j.yaml: a key is a list; the only key is 'paths'") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "k.yaml", "{}: [[[1, 2], [3, 4]]]\n")).find("k.yaml: a key is a map") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "l.yaml", "{}\n")).find("l.yaml: an empty map; expected the key 'paths'") != std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "m.yaml", "paths:\n")).find("m.yaml: paths: expected a list of paths, got empty") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "n.yaml", "- {x: 1, y: 2}\n")).find("top level[0]: expected a list of points, got a map") !=
        std::string::npos);
  CHECK(demonstrationError(writeDemonstrations(dir, "i.txt", "1,2\n")).find("use a .csv or a .yaml/.yml file") != std::string::npos);
  CHECK(demonstrationError(dir.file("missing.csv")).find("cannot read demonstration file") != std::string::npos);
}

TEST_CASE("pixel polylines become 8-connected cell paths, and plans read back") {
  const PixelPath path{"p", {{2, 2}, {37.9, 2}, {37.9, 30}}};  // cells of 4 px: (0,0) -> (0,9) -> (7,9)
  const std::vector<int> cells = pathCells(path, 4, 10, 12, "test");
  CHECK_NOTHROW(validatePath(cells, 10, 12, Connectivity::Eight));
  CHECK(cells.front() == 0);
  CHECK(cells.back() == 7 * 12 + 9);
  CHECK(cells.size() == 10 + 7);

  const PixelPath outside{"q", {{2, 2}, {48, 2}}};
  try {
    pathCells(outside, 4, 10, 12, "where");
    FAIL("no error");
  } catch (const DataError& e) {
    CHECK(std::string(e.what()).find("where: path q, point 2 (x 48, y 2) lies outside") != std::string::npos);
  }
  CHECK_THROWS_AS(pathCells({"r", {{1, 1}, {2, 2}}}, 4, 10, 12, "w"), DataError);  // one cell only

  test::TempDir dir;
  writePathCsv(dir.file("plan.csv"), {cells, {5, 6, 7}}, 12, 4);
  const auto back = readDemonstrationFile(dir.file("plan.csv"));
  REQUIRE(back.size() == 2);
  CHECK(pathCells(back[0], 4, 10, 12, "back") == cells);
  CHECK(pathCells(back[1], 4, 10, 12, "back") == std::vector<int>{5, 6, 7});
}
