#include <mmp/datasets/ocr_data.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace mmp;
using namespace mmp::datasets;

static std::string ocrLine(int id, char letter, int next, int word, int position, int fold, const std::string& lit) {
  std::string s = std::to_string(id) + "\t" + letter + "\t" + std::to_string(next) + "\t" + std::to_string(word) + "\t" +
                  std::to_string(position) + "\t" + std::to_string(fold);
  for (int p = 0; p < kLetterPixels; ++p) s += lit.find(char('A' + p % 26)) != std::string::npos && p < 26 ? "\t1" : "\t0";
  return s + "\t\n";
}

TEST_CASE("OCR words become chain sequences with the lit pixels as active features") {
  std::istringstream in(ocrLine(1, 'c', 2, 1, 1, 0, "AC") + ocrLine(2, 'a', -1, 1, 2, 0, "") +
                        ocrLine(3, 'z', -1, 2, 1, 4, "BZ"));
  const LetterData letters = parseLetters(in, "mem");
  const OcrWords words = ocrWords(letters, groupWords(letters));
  REQUIRE(words.data->sequences() == 2);
  CHECK(words.folds == std::vector<int>{0, 4});
  CHECK(words.data->labels() == 26);
  CHECK(words.data->features() == 128);
  CHECK(words.data->length(0) == 2);
  CHECK(words.data->label(0) == 2);
  CHECK(words.data->label(2) == 25);
  CHECK(std::vector<int>(words.data->activeBegin(0), words.data->activeEnd(0)) == std::vector<int>{0, 2});
  CHECK(words.data->activeBegin(1) == words.data->activeEnd(1));
  CHECK(std::vector<int>(words.data->activeBegin(2), words.data->activeEnd(2)) == std::vector<int>{1, 25});
  const ChainExample e(words.data, 0);
  CHECK(e.dimension() == 129 * 26 + 26 * 26 + 52);
  LetterWords wrong = groupWords(letters);
  wrong.starts.back() = 2;
  CHECK_THROWS_AS(ocrWords(letters, wrong), InvalidArgument);
}

TEST_CASE("the small and large protocols split the words by fold") {
  const std::vector<int> folds = {0, 1, 2, 1, 0, 9};
  const FoldSplit small = foldSplit(folds, OcrProtocol::Small, 1);
  CHECK(small.train == std::vector<std::size_t>{1, 3});
  CHECK(small.test == std::vector<std::size_t>{0, 2, 4, 5});
  const FoldSplit large = foldSplit(folds, parseOcrProtocol("large"), 1);
  CHECK(large.train == small.test);
  CHECK(large.test == small.train);
  CHECK(describe(OcrProtocol::Large) == "large");
  CHECK_THROWS_AS(foldSplit(folds, OcrProtocol::Small, 10), InvalidArgument);
  CHECK_THROWS_WITH_AS(parseOcrProtocol("medium"), doctest::Contains("valid: small, large"), InvalidArgument);
}
