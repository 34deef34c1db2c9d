#include "temp_dir.hpp"

#include <mmp/datasets/gzip_file.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>

using namespace mmp;
using namespace mmp::datasets;

namespace {

std::string bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Writes the lines gzip-compressed, flushing the deflate stream after each line, and returns the
// compressed size after each line: a cut there leaves a stream that decompresses to whole lines.
std::vector<std::size_t> writeGzipLines(const std::string& path, const std::vector<std::string>& lines) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  std::vector<std::size_t> ends;
  for (const std::string& line : lines) {
    REQUIRE(gzwrite(file, line.data(), static_cast<unsigned>(line.size())) == static_cast<int>(line.size()));
    REQUIRE(gzflush(file, Z_FULL_FLUSH) == Z_OK);
    ends.push_back(bytesOf(path).size());
  }
  REQUIRE(gzclose(file) == Z_OK);
  return ends;
}

}  // namespace

TEST_CASE("readMaybeGzip reads plain and gzip files alike") {
  test::TempDir dir;
  const std::string text = "first line\nsecond line\n";
  writeBytes(dir.file("plain.txt"), text);
  CHECK(readMaybeGzip(dir.file("plain.txt")) == text);
  writeGzipLines(dir.file("text.gz"), {"first line\n", "second line\n"});
  CHECK(readMaybeGzip(dir.file("text.gz")) == text);
  CHECK_THROWS_WITH_AS(readMaybeGzip(dir.file("missing.gz")), doctest::Contains("missing.gz"), DataError);
}

TEST_CASE("a truncated gzip file is refused, naming the file, wherever it is cut") {
  test::TempDir dir;
  const std::vector<std::string> lines = {"1\ta\t2\n", "2\tb\t-1\n", "3\tc\t-1\n", "4\td\t-1\n"};
  const std::string whole_path = dir.file("letters.gz");
  const std::vector<std::size_t> ends = writeGzipLines(whole_path, lines);
  const std::string whole = bytesOf(whole_path);
  REQUIRE(ends.back() < whole.size());  // the gzip trailer (CRC and length) follows the last line

  SUBCASE("cut at a line boundary: the shorter text must not pass for the whole file") {
    const std::string cut = dir.file("cut_at_line.gz");
    writeBytes(cut, whole.substr(0, ends[1]));
    CHECK_THROWS_WITH_AS(readMaybeGzip(cut), doctest::Contains("cut_at_line.gz' is truncated"), DataError);
  }
  SUBCASE("cut anywhere after the gzip header") {
    // The first two bytes are the gzip magic: a file of fewer bytes is not recognisable as gzip.
    for (std::size_t size = 2; size < whole.size(); ++size) {
      const std::string cut = dir.file("cut.gz");
      writeBytes(cut, whole.substr(0, size));
      INFO("cut after ", size, " of ", whole.size(), " bytes");
      CHECK_THROWS_WITH_AS(readMaybeGzip(cut), doctest::Contains("cut.gz' is truncated"), DataError);
    }
  }
}
