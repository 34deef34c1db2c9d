#include "progress.hpp"

#include <doctest/doctest.h>

using namespace mmp::tools;

TEST_CASE("durations read as minutes and seconds, hours from an hour") {
  CHECK(durationText(0) == "0:00");
  CHECK(durationText(7.4) == "0:07");
  CHECK(durationText(59.6) == "1:00");
  CHECK(durationText(725) == "12:05");
  CHECK(durationText(3723) == "1:02:03");
  CHECK(durationText(-3) == "0:00");
}

TEST_CASE("the ETA follows the stage's mean rate, rounded, and stays silent while it means nothing") {
  CHECK(etaText(10.0, 5, 5) == "ETA 0:10");        // 2 s a unit, 5 to go
  CHECK(etaText(10.0, 3, 1) == "ETA 0:04");        // 3.33 s rounded up
  CHECK(etaText(100.0, 1, 2) == "ETA 3:20");       // 200 s: tens of seconds under ten minutes
  CHECK(etaText(101.0, 1, 2) == "ETA 3:30");       // 202 s, rounded up: no flicker between 3:20 and 3:22
  CHECK(etaText(1000.0, 1, 1) == "ETA 17:00");     // whole minutes beyond ten
  CHECK(etaText(5000.0, 1, 1) == "ETA 1:24:00");
  CHECK(etaText(10.0, 5, 0) == "ETA 0:00");        // done
  CHECK(etaText(10.0, 5, -1).empty());             // unknown total
  CHECK(etaText(10.0, 0, 5).empty());              // nothing done yet: no rate
  CHECK(etaText(0.5, 5, 5).empty());               // under a second: too early to tell
}
