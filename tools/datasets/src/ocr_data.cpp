#include <mmp/datasets/ocr_data.hpp>

#include <mmp/core/error.hpp>

#include <chrono>
#include <fstream>

namespace mmp::datasets {

OcrWords ocrWords(const LetterData& letters, const LetterWords& words) {
  if (words.starts.size() != words.size() + 1 || words.starts.back() != letters.size()) {
    throw InvalidArgument("ocr words: the word grouping does not match the letters (use groupWords)");
  }
  auto data = std::make_shared<ChainData>(kLetterClasses, kLetterPixels);
  std::vector<std::vector<int>> active;
  std::vector<int> labels;
  for (std::size_t k = 0; k < words.size(); ++k) {
    active.assign(words.length(k), {});
    labels.assign(words.length(k), 0);
    for (std::size_t t = 0; t < words.length(k); ++t) {
      const std::size_t i = words.starts[k] + t;
      labels[t] = letters.labels[i];
      for (int p = 0; p < kLetterPixels; ++p) {
        if (letters.pixels(static_cast<Eigen::Index>(i), p) != 0) active[t].push_back(p);
      }
    }
    data->addSequence(active, labels);
  }
  return {std::move(data), words.folds};
}

std::string locateOcrData(const std::string& root, const std::string& config_path) {
  const std::string path = root + "/ocr/letter.data.gz";
  if (root.empty() || !std::ifstream(path)) {
    throw DataError("the OCR letters are not at '" + path +
                    "'. Get letter.data.gz (Taskar, Guestrin and Koller's OCR data set, "
                    "http://ai.stanford.edu/~btaskar/ocr/) and put it in <data root>/ocr/, then pass "
                    "--data-root <data root>, set MMP_DATA_ROOT, or set data_root in " + config_path);
  }
  return path;
}

OcrDataset readOcrDataset(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  const LetterData letters = readLetters(path);
  OcrDataset dataset;
  dataset.words = ocrWords(letters, groupWords(letters));
  dataset.letters = letters.size();
  dataset.path = path;
  dataset.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return dataset;
}

OcrProtocol parseOcrProtocol(const std::string& name) {
  if (name == "small") return OcrProtocol::Small;
  if (name == "large") return OcrProtocol::Large;
  throw InvalidArgument("ocr protocol: unknown name '" + name + "' (valid: small, large)");
}

std::string describe(OcrProtocol protocol) { return protocol == OcrProtocol::Small ? "small" : "large"; }

FoldSplit foldSplit(const std::vector<int>& word_folds, OcrProtocol protocol, int k) {
  if (k < 0 || k > 9) throw InvalidArgument("ocr fold split: fold " + std::to_string(k) + " is outside 0..9");
  FoldSplit split;
  for (std::size_t i = 0; i < word_folds.size(); ++i) {
    const bool in_fold = word_folds[i] == k;
    const bool train = protocol == OcrProtocol::Small ? in_fold : !in_fold;
    (train ? split.train : split.test).push_back(i);
  }
  return split;
}

}  // namespace mmp::datasets
