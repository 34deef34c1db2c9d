#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/world_frame.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace mmp;

TEST_CASE("world <-> cell transforms round-trip and follow Nav2's lower-left origin") {
  const WorldFrame frame = WorldFrame::located(40, 60, 0.5, {1000.0, 2000.0}, "");
  // The origin is the lower-left corner of cell (rows - 1, 0); row 0 is the top (largest y).
  CHECK(frame.cellCentre(39, 0).x == doctest::Approx(1000.25));
  CHECK(frame.cellCentre(39, 0).y == doctest::Approx(2000.25));
  CHECK(frame.cellCentre(0, 59).y == doctest::Approx(2000.0 + 40 * 0.5 - 0.25));
  CHECK(frame.cellAt(frame.cellCentre(7, 11)) == 7 * 60 + 11);
  Random rng(3);
  for (int i = 0; i < 200; ++i) {
    const CellPoint p{rng.uniform() * 60, rng.uniform() * 40};
    const WorldPoint w = frame.toWorld(p);
    const CellPoint back = frame.toCell(w);
    CHECK(back.u == doctest::Approx(p.u).epsilon(1e-12));
    CHECK(back.v == doctest::Approx(p.v).epsilon(1e-12));
    CHECK(frame.cellAt(w) == static_cast<int>(p.v) * 60 + static_cast<int>(p.u));
  }
  // The extent: [x0, x1) x (y0, y1]; outside is -1.
  CHECK(frame.cellAt({999.99, 2010.0}) == -1);
  CHECK(frame.cellAt({1030.0, 2010.0}) == -1);
  CHECK(frame.cellAt({1010.0, 2000.0}) == -1);
  CHECK(frame.cellAt({1010.0, 2020.0}) == 20);
  CHECK(frame.extentText() == "x in [1000, 1030), y in (2000, 2020]");
}

TEST_CASE("a coarsened frame keeps the top-left corner and drops partial cells") {
  const WorldFrame pixels = WorldFrame::located(103, 81, 0.25, {10.0, 20.0}, "WKT");
  const WorldFrame cells = pixels.coarsened(4);
  CHECK(cells.rows == 25);
  CHECK(cells.cols == 20);
  CHECK(cells.resolution == 1.0);
  CHECK(cells.crs == "WKT");
  CHECK(cells.origin.x == 10.0);
  // Same top edge: 20 + 103 * 0.25 = 45.75; 25 cells of 1 below it.
  CHECK(cells.origin.y == doctest::Approx(45.75 - 25.0));
  // A pixel's centre lies in the cell that holds the pixel.
  for (int r = 0; r < 100; r += 7) {
    for (int c = 0; c < 80; c += 5) CHECK(cells.cellAt(pixels.cellCentre(r, c)) == (r / 4) * 20 + c / 4);
  }
  const WorldFrame unlocated = WorldFrame::unlocated(9, 9).coarsened(2);
  CHECK(unlocated.rows == 4);
  CHECK_FALSE(unlocated.hasWorld());
}

TEST_CASE("a frame without world coordinates and invalid frames are refused with the reason") {
  const WorldFrame frame = WorldFrame::unlocated(10, 10);
  CHECK_THROWS_WITH_AS(frame.cellAt({1.0, 1.0}), doctest::Contains("no world frame"), InvalidArgument);
  CHECK(frame.extentText() == "u in [0, 10), v in [0, 10)");
  CHECK_THROWS_WITH_AS(WorldFrame::located(5, 5, 0.0, {0, 0}), doctest::Contains("resolution 0 must be"), InvalidArgument);
  CHECK_THROWS_WITH_AS(WorldFrame::located(5, 5, -1.0, {0, 0}), doctest::Contains("resolution -1"), InvalidArgument);
  CHECK_THROWS_AS(WorldFrame::located(5, 5, 1.0, {std::nan(""), 0}), InvalidArgument);
  // Finite origin and resolution whose far corner overflows: every cell would lie at +inf.
  CHECK_THROWS_WITH_AS(WorldFrame::located(5, 5, 1e308, {1e308, 0}), doctest::Contains("beyond the finite numbers"),
                       InvalidArgument);
  CHECK_THROWS_AS(WorldFrame::located(5, 5, 1e308, {0, 1.7e308}), InvalidArgument);
  CHECK(WorldFrame::located(5, 5, 1e307, {0, 0}).hasWorld());  // large, still finite: fine
  CHECK_THROWS_AS(frame.coarsened(0), InvalidArgument);
}
