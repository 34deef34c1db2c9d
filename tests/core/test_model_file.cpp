#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <unistd.h>

using namespace mmp;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("mmp_model_test_" + std::to_string(std::rand()) + "_" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

Model sampleModel() {
  Model m;
  m.weights = Eigen::VectorXd::LinSpaced(5, -1.0, 3.0);
  m.feature_names = {"red", "green", "blue", "edges", "bias"};
  m.settings = {{"learner", "batch"}, {"lambda", "0.01"}};
  m.arrays = {{"scale_min", {0.0, 1.0, 2.0}}, {"empty", {}}};
  return m;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void writeBytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}


// Offset of the first weight: magic, u32 version, u64 dimension.
constexpr std::size_t kFirstWeight = 8 + 4 + 8;

}  // namespace

TEST_CASE("model files round-trip exactly and leave no temporary file") {
  TempDir dir;
  const fs::path file = dir.path / "model.mmp";
  const Model m = sampleModel();
  saveModel(file.string(), m);
  const Model back = loadModel(file.string(), 5);
  CHECK(back.weights == m.weights);
  CHECK(back.feature_names == m.feature_names);
  CHECK(back.settings == m.settings);
  CHECK(back.arrays == m.arrays);
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
  // Overwriting replaces the file whole.
  Model other = sampleModel();
  other.weights *= 2.0;
  saveModel(file.string(), other);
  CHECK(loadModel(file.string()).weights == other.weights);
}

TEST_CASE("a temporary a killed writer left is removed by the next write into the folder, a live one's is not") {
  TempDir dir;
  const pid_t child = ::fork();  // a process that has ended: its pid runs nothing now
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  ::waitpid(child, nullptr, 0);
  const fs::path file = dir.path / "model.mmp";
  const fs::path stale = dir.path / ("model.mmp.tmp" + std::to_string(child) + "_0");
  const fs::path live = dir.path / ("model.mmp.tmp" + std::to_string(::getppid()) + "_3");
  const fs::path other = dir.path / "notes.tmp12_x";  // not a writer's temporary
  for (const fs::path& p : {stale, live, other}) writeBytes(p, "half a model");
  saveModel(file.string(), sampleModel());
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other));
  CHECK(loadModel(file.string()).weights == sampleModel().weights);
}

TEST_CASE("a model is written in the oldest format that reads it right, and both formats read back") {
  TempDir dir;
  const fs::path file = dir.path / "m.mmp";
  Model m = sampleModel();
  saveModel(file.string(), m);
  CHECK(readBytes(file)[8] == 2);  // little-endian u32 after the magic
  CHECK(loadModel(file.string()).version == 2);
  m.version = 3;  // what an older reader would misread
  saveModel(file.string(), m);
  CHECK(readBytes(file)[8] == 3);
  const Model back = loadModel(file.string());
  CHECK(back.version == 3);
  CHECK(back.settings == m.settings);
  for (std::uint32_t bad : {1u, kModelFormatVersion + 1}) {
    m.version = bad;
    CHECK_THROWS_WITH_AS(saveModel(file.string(), m), doctest::Contains("is not in [2, 3]; not written"), ModelFileError);
  }
  CHECK(loadModel(file.string()).version == 3);  // a refused write leaves the file as it was
}

TEST_CASE("each corrupt model file is refused with its own message") {
  TempDir dir;
  const fs::path good = dir.path / "good.mmp", bad = dir.path / "bad.mmp";
  saveModel(good.string(), sampleModel());
  const std::string bytes = readBytes(good);

  SUBCASE("wrong magic") {
    std::string b = bytes;
    b[0] = 'X';
    writeBytes(bad, b);
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("is not an mmp model file"), ModelFileError);
  }
  SUBCASE("newer format version") {
    std::string b = bytes;
    b[8] = static_cast<char>(kModelFormatVersion + 1);
    writeBytes(bad, b);
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("newer than this library's"), ModelFileError);
  }
  SUBCASE("dimension mismatch") {
    CHECK_THROWS_WITH_AS(loadModel(good.string(), 7), doctest::Contains("has dimension 5 but 7 is needed"),
                         ModelFileError);
  }
  SUBCASE("every truncation") {
    for (std::size_t length = 9; length < bytes.size(); ++length) {
      writeBytes(bad, bytes.substr(0, length));
      CAPTURE(length);
      CHECK_THROWS_AS(loadModel(bad.string()), ModelFileError);
    }
    writeBytes(bad, bytes.substr(0, 40));
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("is truncated"), ModelFileError);
  }
  SUBCASE("trailing garbage") {
    writeBytes(bad, bytes + "extra");
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("end marker"), ModelFileError);
  }
  SUBCASE("every flipped byte") {
    for (std::size_t at = 0; at < bytes.size(); ++at) {
      std::string b = bytes;
      b[at] = static_cast<char>(b[at] ^ 0x10);
      writeBytes(bad, b);
      CAPTURE(at);
      CHECK_THROWS_AS(loadModel(bad.string()), ModelFileError);
    }
    std::string b = bytes;
    b[kFirstWeight + 3] = static_cast<char>(b[kFirstWeight + 3] ^ 0x01);  // a low bit of weight 0: still a number
    writeBytes(bad, b);
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("checksum does not match"), ModelFileError);
  }
  SUBCASE("older format version without a checksum") {
    std::string b = bytes;
    b[8] = 1;
    writeBytes(bad, b);
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("older mmp without a checksum: retrain"),
                         ModelFileError);
  }
  SUBCASE("non-finite weights and arrays, with a matching checksum") {
    for (const double x : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      std::string b = bytes;
      std::memcpy(&b[kFirstWeight + 2 * sizeof(double)], &x, sizeof x);  // weight 2, "blue"
      writeBytes(bad, test::withModelChecksum(b));
      CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("weight 2 ('blue') is"), ModelFileError);
    }
    const std::size_t array_value = bytes.find("scale_min") + 9 + 8;  // name, then the u64 count
    std::string b = bytes;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(&b[array_value], &nan, sizeof nan);
    writeBytes(bad, test::withModelChecksum(b));
    CHECK_THROWS_WITH_AS(loadModel(bad.string()), doctest::Contains("array 'scale_min' entry 0 is nan"), ModelFileError);
  }
  SUBCASE("a folder") {
    CHECK_THROWS_WITH_AS(loadModel(dir.path.string()), doctest::Contains("is a folder"), ModelFileError);
  }
  SUBCASE("missing file") {
    CHECK_THROWS_WITH_AS(loadModel((dir.path / "none.mmp").string()), doctest::Contains("cannot open"), ModelFileError);
  }
}

TEST_CASE("saving refuses an inconsistent model and an unwritable path, leaving the old file intact") {
  TempDir dir;
  const fs::path file = dir.path / "model.mmp";
  saveModel(file.string(), sampleModel());
  Model wrong = sampleModel();
  wrong.feature_names.pop_back();
  CHECK_THROWS_WITH_AS(saveModel(file.string(), wrong), doctest::Contains("4 feature names for 5 weights"), ModelFileError);
  CHECK_THROWS_AS(saveModel((dir.path / "missing_dir" / "m.mmp").string(), sampleModel()), ModelFileError);
  Model diverged = sampleModel();
  diverged.weights[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(saveModel(file.string(), diverged), doctest::Contains("not a finite number"), ModelFileError);
  CHECK(loadModel(file.string()).weights == sampleModel().weights);
  if (fs::exists("/dev/full")) {
    CHECK_THROWS_WITH_AS(saveModel("/dev/full", sampleModel()), doctest::Contains("No space left"), ModelFileError);
  }
}
