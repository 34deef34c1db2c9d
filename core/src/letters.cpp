#include <mmp/core/letters.hpp>

#include <mmp/core/error.hpp>

#include <charconv>
#include <string_view>

namespace mmp {
namespace {

[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& what) {
  throw DataError(source + ":" + std::to_string(line) + ": " + what);
}

int parseInt(std::string_view field, const std::string& source, std::size_t line, const char* name) {
  int value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size()) {
    fail(source, line, std::string("field '") + name + "' is '" + std::string(field) + "', expected an integer");
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
        fail(source_name, line, "more than " + std::to_string(kFields) +
                                    " tab-separated fields (id, letter, next_id, word_id, position, fold, 128 pixels)");
      }
      fields[count++] = field;
      if (tab == std::string_view::npos) break;
      rest.remove_prefix(tab + 1);
    }
    if (count != kFields) {
      fail(source_name, line, "found " + std::to_string(count) + " tab-separated fields, expected " +
                                  std::to_string(kFields) + " (id, letter, next_id, word_id, position, fold, 128 pixels)");
    }
    if (fields[1].size() != 1 || fields[1][0] < 'a' || fields[1][0] > 'z') {
      fail(source_name, line, "letter is '" + std::string(fields[1]) + "', expected one of a..z");
    }
    data.ids.push_back(parseInt(fields[0], source_name, line, "id"));
    data.labels.push_back(fields[1][0] - 'a');
    data.next_ids.push_back(parseInt(fields[2], source_name, line, "next_id"));
    data.word_ids.push_back(parseInt(fields[3], source_name, line, "word_id"));
    const int position = parseInt(fields[4], source_name, line, "position");
    if (position < 1) fail(source_name, line, "position is " + std::to_string(position) + ", expected >= 1");
    data.positions.push_back(position);
    const int fold = parseInt(fields[5], source_name, line, "fold");
    if (fold < 0 || fold > 9) fail(source_name, line, "fold is " + std::to_string(fold) + ", expected 0..9");
    data.folds.push_back(fold);
    for (int p = 0; p < kLetterPixels; ++p) {
      const std::string_view v = fields[6 + p];
      if (v != "0" && v != "1") {
        fail(source_name, line, "pixel " + std::to_string(p + 1) + " is '" + std::string(v) + "', expected 0 or 1");
      }
      pixels.push_back(static_cast<std::uint8_t>(v[0] - '0'));
    }
  }
  if (data.labels.empty()) throw DataError(source_name + ": no letters found (empty file?)");
  data.pixels = Eigen::Map<const decltype(data.pixels)>(pixels.data(), static_cast<Eigen::Index>(data.labels.size()),
                                                         kLetterPixels);
  return data;
}

}  // namespace mmp
