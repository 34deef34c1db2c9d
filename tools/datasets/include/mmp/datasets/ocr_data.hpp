// Taskar's OCR words as chain sequences, the two cross-validation protocols of the data set, and
// where the tools find letter.data.gz.
//
//   OcrDataset dataset = readOcrDataset(locateOcrData(root, config_path));
//   const OcrWords& words = dataset.words;                      // one sequence per word
//   FoldSplit split = foldSplit(words.folds, OcrProtocol::Small, k);
//   ChainExample example(words.data, split.train[0]);           // mmp/core/tasks/chain.hpp
#pragma once

#include <mmp/datasets/letters.hpp>

#include <mmp/core/tasks/chain.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mmp::datasets {

struct OcrWords {
  /// One sequence per word: 26 labels (a..z), 128 binary pixel features (the lit pixels are the
  /// active ones, about a fifth of them), in word order.
  std::shared_ptr<const ChainData> data;
  std::vector<int> folds;  ///< fold of each word, 0..9
};

/// requires: words == groupWords(letters).  ensures: the words as chain sequences (see OcrWords).
OcrWords ocrWords(const LetterData& letters, const LetterWords& words);

/// ensures: returns <root>/ocr/letter.data.gz; throws mmp::DataError saying where to get the file
/// and how to point the tools at it when it is not there.  config_path is named in the message.
std::string locateOcrData(const std::string& root, const std::string& config_path);

struct OcrDataset {
  OcrWords words;
  std::size_t letters = 0;
  std::string path;
  double read_seconds = 0.0;
};

/// Reads, checks and groups the letters of `path` (gzip or plain); throws mmp::DataError.
OcrDataset readOcrDataset(const std::string& path);

/*!
    The protocols of the OCR data set over its ten folds, for fold k:
        Small   train on fold k, test on the other nine (Taskar et al. 2003; ~600 training words)
        Large   train on the other nine, test on fold k (~6,200 training words)
!*/
enum class OcrProtocol { Small, Large };
/// "small" or "large"; throws mmp::InvalidArgument naming the valid names otherwise.
OcrProtocol parseOcrProtocol(const std::string& name);
std::string describe(OcrProtocol protocol);

struct FoldSplit {
  std::vector<std::size_t> train;  ///< word indices, increasing
  std::vector<std::size_t> test;
};

/// requires: 0 <= k <= 9.  ensures: the protocol's split of the words for fold k.
FoldSplit foldSplit(const std::vector<int>& word_folds, OcrProtocol protocol, int k);

}  // namespace mmp::datasets
