// Reader for the OCR letters of Taskar, Guestrin and Koller (letter.data, see shared/data/ocr).
//
// One letter per line, tab-separated, with a trailing tab:
//   id  letter  next_id  word_id  position  fold  p_1 ... p_128   (16x8 binary pixels, row-major)
// parseLetters reads the uncompressed text (the tools decompress letter.data.gz) and refuses a
// malformed line with its line number and what was expected.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace mmp {

constexpr int kLetterPixels = 128;
constexpr int kLetterClasses = 26;

struct LetterData {
  std::vector<int> ids;
  std::vector<int> labels;     ///< 0..25 for 'a'..'z'
  std::vector<int> next_ids;   ///< -1 for the last letter of a word
  std::vector<int> word_ids;
  std::vector<int> positions;  ///< 1-based position in the word
  std::vector<int> folds;      ///< 0..9
  Eigen::Matrix<std::uint8_t, Eigen::Dynamic, kLetterPixels, Eigen::RowMajor> pixels;  ///< 0/1

  std::size_t size() const { return labels.size(); }
  /// Pixels of letter i as doubles, followed by a constant 1 (bias): 129 values.
  Eigen::VectorXd featuresWithBias(std::size_t i) const;
};

/// Throws mmp::DataError "<source>:<line>: <what was expected>" on a malformed line.
LetterData parseLetters(std::istream& in, const std::string& source_name);

}  // namespace mmp
