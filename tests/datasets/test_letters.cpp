#include <mmp/datasets/letters.hpp>

#include <mmp/core/error.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace mmp;
using namespace mmp::datasets;

static std::string line(int id, const std::string& letter, int next, int word, int position, int fold, int ones) {
  std::string s = std::to_string(id) + "\t" + letter + "\t" + std::to_string(next) + "\t" + std::to_string(word) +
                  "\t" + std::to_string(position) + "\t" + std::to_string(fold);
  for (int p = 0; p < kLetterPixels; ++p) s += p < ones ? "\t1" : "\t0";
  return s + "\t\n";  // the format's trailing tab
}

TEST_CASE("letters parse with labels, folds, word structure and pixels") {
  std::istringstream in(line(1, "o", 2, 1, 1, 3, 5) + line(2, "z", -1, 1, 2, 3, 0));
  const LetterData data = parseLetters(in, "mem");
  REQUIRE(data.size() == 2);
  CHECK(data.labels == std::vector<int>{14, 25});
  CHECK(data.folds == std::vector<int>{3, 3});
  CHECK(data.next_ids == std::vector<int>{2, -1});
  CHECK(data.pixels.row(0).cast<int>().sum() == 5);
  const Eigen::VectorXd x = data.featuresWithBias(0);
  CHECK(x.size() == 129);
  CHECK(x[128] == 1.0);
  CHECK(x.head(5).sum() == 5.0);
}

TEST_CASE("a malformed letter line is refused with its line number and what was expected") {
  const std::string good = line(1, "a", -1, 1, 1, 0, 3);
  auto fails = [&](const std::string& text, const std::string& message) {
    std::istringstream in(good + text);
    CHECK_THROWS_WITH_AS(parseLetters(in, "letter.data"), doctest::Contains(message.c_str()), DataError);
  };
  fails(line(2, "A", -1, 2, 1, 0, 3), "letter.data:2: letter is 'A', expected one of a..z");
  fails(line(2, "b", -1, 2, 1, 12, 3), "letter.data:2: fold is 12, expected 0..9");
  fails(line(2, "b", -1, 2, 0, 1, 3), "letter.data:2: position is 0, expected >= 1");
  fails("2\tb\t-1\t2\t1\t0\t1\t0\n", "letter.data:2: found 8 tab-separated fields, expected 134");
  std::string two = line(2, "b", -1, 2, 1, 0, 3);
  fails(two.replace(two.size() - 4, 4, "\t7\t\n"), "letter.data:2: pixel 128 is '7', expected 0 or 1");
  fails("x" + line(2, "b", -1, 2, 1, 0, 3), "letter.data:2: field 'id' is 'x2', expected an integer");
  std::istringstream empty("");
  CHECK_THROWS_WITH_AS(parseLetters(empty, "e"), doctest::Contains("no letters"), DataError);
}

TEST_CASE("letters group into words by next_id, word_id and position") {
  std::istringstream in(line(1, "o", 2, 1, 1, 3, 5) + line(2, "z", 3, 1, 2, 3, 0) + line(3, "e", -1, 1, 3, 3, 2) +
                        line(4, "a", -1, 2, 1, 7, 1) + line(5, "b", 6, 3, 1, 0, 4) + line(6, "c", -1, 3, 2, 0, 4));
  const LetterData data = parseLetters(in, "mem");
  CHECK(data.lines == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
  const LetterWords words = groupWords(data);
  REQUIRE(words.size() == 3);
  CHECK(words.starts == std::vector<std::size_t>{0, 3, 4, 6});
  CHECK(words.folds == std::vector<int>{3, 7, 0});
  CHECK(words.word_ids == std::vector<int>{1, 2, 3});
  CHECK(words.length(0) == 3);
  CHECK(words.length(1) == 1);
}

TEST_CASE("a broken word structure is refused with the line and what was expected") {
  auto fails = [](const std::string& text, const std::string& message) {
    std::istringstream in(text);
    const LetterData data = parseLetters(in, "letter.data");
    CHECK_THROWS_WITH_AS(groupWords(data), doctest::Contains(message.c_str()), DataError);
  };
  const std::string first = line(1, "a", 2, 1, 1, 0, 3);
  fails(first + line(3, "b", -1, 1, 2, 0, 3), "letter.data:2: id is 3, expected 2 (the next_id of line 1)");
  fails(first + line(2, "b", -1, 9, 2, 0, 3), "letter.data:2: word_id is 9, expected 1 (the word of line 1)");
  fails(first + line(2, "b", -1, 1, 3, 0, 3), "letter.data:2: position is 3, expected 2 (one after line 1)");
  fails(first + line(2, "b", -1, 1, 2, 4, 3), "letter.data:2: fold is 4, expected 0 (a word lies in one fold");
  fails(first + line(2, "b", -1, 2, 1, 0, 3), "letter.data:2: a new word starts here (position 1), but line 1 has next_id 2");
  fails(first, "letter.data:1: next_id is 2 but no letter follows; expected -1");
  fails(line(1, "a", -1, 1, 1, 0, 3) + line(2, "b", -1, 1, 2, 0, 3),
        "letter.data:2: position is 2, but line 1 ends its word (next_id -1); expected position 1");
  fails(line(1, "a", -1, 1, 2, 0, 3), "letter.data:1: position is 2 on the first line; expected position 1");
  fails(line(1, "a", -1, 1, 1, 0, 3) + line(2, "b", -1, 1, 1, 0, 3), "letter.data:2: word_id 1 was already used");
  // blank lines are skipped but still counted
  fails(first + "\n" + line(3, "b", -1, 1, 3, 0, 3), "letter.data:3: id is 3, expected 2");
}
