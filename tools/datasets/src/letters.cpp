#include <mmp/datasets/letters.hpp>

#include <mmp/datasets/gzip_file.hpp>

#include <mmp/core/error.hpp>

#include <charconv>
#include <sstream>
#include <unordered_set>
#include <string_view>

namespace mmp::datasets {
namespace {

int parseInt(std::string_view field, const std::string& source, std::size_t line, const char* name) {
  int value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size()) {
    failAtLine(source, line, std::string("field '") + name + "' is '" + std::string(field) + "', expected an integer");
  }
  return value;
}

}  // namespace

Eigen::VectorXd LetterData::featuresWithBias(std::size_t i) const {
  Eigen::VectorXd x(kLetterPixels + 1);
  x.head(kLetterPixels) = pixels.row(static_cast<Eigen::Index>(i)).cast<double>().transpose();
  x[kLetterPixels] = 1.0;
  return x;
}

LetterData parseLetters(std::istream& in, const std::string& source_name) {
  constexpr int kFields = 6 + kLetterPixels;
  LetterData data;
  data.source = source_name;
  std::vector<std::uint8_t> pixels;
  std::string text;
  std::size_t line = 0;
  std::string_view fields[kFields];
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    // Split on tabs; the format ends each line with a tab, so a final empty field is allowed.
    std::string_view rest(text);
    int count = 0;
    while (!rest.empty()) {
      const std::size_t tab = rest.find('\t');
      const std::string_view field = rest.substr(0, tab);
      if (count == kFields) {
        failAtLine(source_name, line, "more than " + std::to_string(kFields) +
                                    " tab-separated fields (id, letter, next_id, word_id, position, fold, 128 pixels)");
      }
      fields[count++] = field;
      if (tab == std::string_view::npos) break;
      rest.remove_prefix(tab + 1);
    }
    if (count != kFields) {
      failAtLine(source_name, line, "found " + std::to_string(count) + " tab-separated fields, expected " +
                                  std::to_string(kFields) + " (id, letter, next_id, word_id, position, fold, 128 pixels)");
    }
    if (fields[1].size() != 1 || fields[1][0] < 'a' || fields[1][0] > 'z') {
      failAtLine(source_name, line, "letter is '" + std::string(fields[1]) + "', expected one of a..z");
    }
    data.ids.push_back(parseInt(fields[0], source_name, line, "id"));
    data.labels.push_back(fields[1][0] - 'a');
    data.next_ids.push_back(parseInt(fields[2], source_name, line, "next_id"));
    data.word_ids.push_back(parseInt(fields[3], source_name, line, "word_id"));
    const int position = parseInt(fields[4], source_name, line, "position");
    if (position < 1) failAtLine(source_name, line, "position is " + std::to_string(position) + ", expected >= 1");
    data.positions.push_back(position);
    const int fold = parseInt(fields[5], source_name, line, "fold");
    if (fold < 0 || fold > 9) failAtLine(source_name, line, "fold is " + std::to_string(fold) + ", expected 0..9");
    data.folds.push_back(fold);
    data.lines.push_back(line);
    for (int p = 0; p < kLetterPixels; ++p) {
      const std::string_view v = fields[6 + p];
      if (v != "0" && v != "1") {
        failAtLine(source_name, line, "pixel " + std::to_string(p + 1) + " is '" + std::string(v) + "', expected 0 or 1");
      }
      pixels.push_back(static_cast<std::uint8_t>(v[0] - '0'));
    }
  }
  if (data.labels.empty()) throw DataError(source_name + ": no letters found (empty file?)");
  data.pixels = Eigen::Map<const decltype(data.pixels)>(pixels.data(), static_cast<Eigen::Index>(data.labels.size()),
                                                         kLetterPixels);
  return data;
}

LetterData readLetters(const std::string& path) {
  std::istringstream text(readMaybeGzip(path));
  return parseLetters(text, path);
}

LetterWords groupWords(const LetterData& data) {
  const std::size_t n = data.size();
  const auto lineOf = [&](std::size_t i) { return i < data.lines.size() ? data.lines[i] : i + 1; };
  const std::string source = data.source.empty() ? std::string("letters") : data.source;
  const auto wrong = [&](std::size_t i, const std::string& what) { failAtLine(source, lineOf(i), what); };
  LetterWords words;
  std::unordered_set<int> seen_word_ids;
  for (std::size_t i = 0; i < n; ++i) {
    const bool starts_word = data.positions[i] == 1;
    const bool previous_continues = i > 0 && data.next_ids[i - 1] != -1;
    if (starts_word) {
      if (previous_continues) {
        wrong(i, "a new word starts here (position 1), but line " + std::to_string(lineOf(i - 1)) + " has next_id " +
                     std::to_string(data.next_ids[i - 1]) + "; expected that letter (id " +
                     std::to_string(data.next_ids[i - 1]) + ") here");
      }
      if (!seen_word_ids.insert(data.word_ids[i]).second) {
        wrong(i, "word_id " + std::to_string(data.word_ids[i]) +
                     " was already used by an earlier word; expected a new word_id at position 1");
      }
      words.starts.push_back(i);
      words.folds.push_back(data.folds[i]);
      words.word_ids.push_back(data.word_ids[i]);
      continue;
    }
    // 2) a continuing letter must be the one its predecessor points to, in the same word and fold
    if (!previous_continues) {
      wrong(i, "position is " + std::to_string(data.positions[i]) +
                   (i == 0 ? std::string(" on the first line") : ", but line " + std::to_string(lineOf(i - 1)) + " ends its word (next_id -1)") +
                   "; expected position 1");
    }
    const std::string previous = "line " + std::to_string(lineOf(i - 1));
    if (data.ids[i] != data.next_ids[i - 1]) {
      wrong(i, "id is " + std::to_string(data.ids[i]) + ", expected " + std::to_string(data.next_ids[i - 1]) +
                   " (the next_id of " + previous + ")");
    }
    if (data.word_ids[i] != data.word_ids[i - 1]) {
      wrong(i, "word_id is " + std::to_string(data.word_ids[i]) + ", expected " +
                   std::to_string(data.word_ids[i - 1]) + " (the word of " + previous + ")");
    }
    if (data.positions[i] != data.positions[i - 1] + 1) {
      wrong(i, "position is " + std::to_string(data.positions[i]) + ", expected " +
                   std::to_string(data.positions[i - 1] + 1) + " (one after " + previous + ")");
    }
    if (data.folds[i] != data.folds[i - 1]) {
      wrong(i, "fold is " + std::to_string(data.folds[i]) + ", expected " + std::to_string(data.folds[i - 1]) +
                   " (a word lies in one fold, " + previous + ")");
    }
  }
  if (n > 0 && data.next_ids[n - 1] != -1) {
    wrong(n - 1, "next_id is " + std::to_string(data.next_ids[n - 1]) +
                     " but no letter follows; expected -1 (the end of the word)");
  }
  words.starts.push_back(n);
  return words;
}

}  // namespace mmp::datasets
