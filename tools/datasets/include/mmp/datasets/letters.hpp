// Reader for the OCR letters of Taskar, Guestrin and Koller (letter.data, see shared/data/ocr): the
// data-set front end of `mmp letters` and `mmp ocr` (ocr_data.hpp turns the letters into words).
//
// One letter per line, tab-separated, with a trailing tab:
//   id  letter  next_id  word_id  position  fold  p_1 ... p_128   (16x8 binary pixels, row-major)
// parseLetters reads the uncompressed text (readLetters decompresses letter.data.gz) and refuses a
// malformed line with its line number and what was expected; groupWords then checks the word
// structure (next_id, word_id, position, fold) and returns the words, each a run of consecutive lines.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace mmp::datasets {

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
  std::vector<std::size_t> lines;  ///< source line of each letter (1-based), for error messages
  std::string source;              ///< the source name given to parseLetters

  std::size_t size() const { return labels.size(); }
  /// Pixels of letter i as doubles, followed by a constant 1 (bias): 129 values.
  Eigen::VectorXd featuresWithBias(std::size_t i) const;
};

/// Throws mmp::DataError "<source>:<line>: <what was expected>" on a malformed line.
LetterData parseLetters(std::istream& in, const std::string& source_name);
/// parseLetters on the file at `path`, gzip or plain; throws mmp::DataError naming it.
LetterData readLetters(const std::string& path);

/// The letters grouped into words: word k is letters [starts[k], starts[k+1]) in file order.
struct LetterWords {
  std::vector<std::size_t> starts;  ///< size() + 1 entries, starts.back() == the letter count
  std::vector<int> folds;           ///< fold of each word
  std::vector<int> word_ids;        ///< word_id of each word

  std::size_t size() const { return folds.size(); }
  std::size_t length(std::size_t k) const { return starts[k + 1] - starts[k]; }
};

/*!
    requires
        - data as parseLetters returns it (lines may be empty: then letter i is called line i + 1)
    ensures
        - returns the words: a letter at position 1 starts a word, every other letter continues the
          word of the letter before it, and the last letter of a word has next_id -1
        - throws mmp::DataError "<source>:<line>: <what was expected>" at the first letter that
          breaks this: an id other than the previous letter's next_id, a word_id, position or fold
          that differs from the word it continues, a word that ends without next_id -1, a word_id
          that was used by an earlier word
!*/
LetterWords groupWords(const LetterData& data);

}  // namespace mmp::datasets
