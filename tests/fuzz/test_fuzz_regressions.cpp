// Replays every seed (corpus/<target>/) and every input a fuzzer once crashed on (regressions/<target>/)
// through the fuzz entry functions: each must end in a return or an mmp::Error, never in another
// exception, a crash or (in the sanitizer builds) a sanitizer report.  Inputs in pending/ wait for a
// fix and are not replayed.
#include "fuzz_targets.hpp"
#include "test_paths.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> filesIn(const fs::path& folder) {
  std::vector<fs::path> files;
  if (!fs::is_directory(folder)) return files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::uint8_t> bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replays corpus/<target>/ and regressions/<target>/; returns how many seeds there were.
std::size_t replay(const char* name) {
  const auto& all = mmp::fuzz::targets();
  const auto target = std::find_if(all.begin(), all.end(), [&](const auto& t) { return std::string(t.name) == name; });
  REQUIRE(target != all.end());
  const fs::path root = mmp::test::fuzzDir();
  const std::vector<fs::path> seeds = filesIn(root / "corpus" / name);
  std::vector<fs::path> inputs = seeds;
  for (const fs::path& f : filesIn(root / "regressions" / name)) inputs.push_back(f);
  for (const fs::path& file : inputs) {
    const std::vector<std::uint8_t> bytes = bytesOf(file);
    INFO("input ", file.string());
    CHECK_NOTHROW(target->run(bytes.data(), bytes.size()));
  }
  return seeds.size();
}

}  // namespace

// One test case per target, so that CTest names the format that fails.  Every target has seeds: an
// empty corpus would make its test pass without running anything.
TEST_CASE("fuzz inputs replay: model_file") { CHECK(replay("model_file") > 0); }
TEST_CASE("fuzz inputs replay: train_config") { CHECK(replay("train_config") > 0); }
TEST_CASE("fuzz inputs replay: demonstration") { CHECK(replay("demonstration") > 0); }
TEST_CASE("fuzz inputs replay: letters") { CHECK(replay("letters") > 0); }
TEST_CASE("fuzz inputs replay: pairs") { CHECK(replay("pairs") > 0); }
TEST_CASE("fuzz inputs replay: image") { CHECK(replay("image") > 0); }
TEST_CASE("fuzz inputs replay: multilabel") { CHECK(replay("multilabel") > 0); }
TEST_CASE("fuzz inputs replay: geotiff") { CHECK(replay("geotiff") > 0); }
TEST_CASE("fuzz inputs replay: serve") { CHECK(replay("serve") > 0); }

TEST_CASE("every fuzz target has a replay test case") {
  // The nine cases above name the targets by hand; a new target must get its own.
  CHECK(mmp::fuzz::targets().size() == 9);
}
