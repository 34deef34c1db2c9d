// End to end on the real OCR words (a few hundred of them): the chain model, trained through the
// oracle contract, beats the per-letter multiclass model of `mmp letters` on the same split.
// Reads ../shared/data/ocr/letter.data.gz beside the checkout (or $MMP_DATA_ROOT/ocr/...); says so
// and skips when the file is absent.
#include <mmp/datasets/ocr_data.hpp>
#include "support.hpp"
#include "test_paths.hpp"

#include <mmp/core/tasks/multiclass.hpp>
#include <mmp/learners/online_greedy_projection.hpp>

#include <doctest/doctest.h>

#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>


using namespace mmp;
using namespace mmp::datasets;

namespace {

std::string ocrDataPath() { return test::sharedDataPath("ocr/letter.data.gz"); }

/// The first whole words of the file, at least `min_letters` letters (decompressed with zlib).
std::string firstWords(const std::string& path, std::size_t min_letters) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string text;
  char line[4096];
  std::size_t letters = 0;
  while (gzgets(file, line, sizeof line) != nullptr) {
    text += line;
    ++letters;
    // the third field is next_id: -1 ends a word
    const std::string_view view(line);
    const std::size_t a = view.find('\t'), b = view.find('\t', a + 1), c = view.find('\t', b + 1);
    if (letters >= min_letters && view.substr(b + 1, c - b - 1) == "-1") break;
  }
  gzclose(file);
  return text;
}

OnlineGreedyProjection::Params learnerParams(double lambda) {
  OnlineGreedyProjection::Params p;
  p.lambda = lambda;
  p.stop.max_iterations = 15;
  p.averaging = Averaging::LateWeighted;
  p.shuffle = true;
  return p;
}

}  // namespace

TEST_CASE("OCR end to end: the chain model beats per-letter multiclass on the same few hundred words" * doctest::test_suite("long")) {
  const std::string path = ocrDataPath();
  if (!std::ifstream(path)) {
    MESSAGE("skipped: no OCR data at " << path << " (set MMP_DATA_ROOT to the folder holding ocr/letter.data.gz)");
    return;
  }
  // Every fourth word of the first 16,000 letters: ~480 words of a couple of dozen kinds (the file
  // runs through its words kind by kind).
  std::istringstream text(firstWords(path, 16000));
  const LetterData letters = parseLetters(text, path);
  const LetterWords grouped = groupWords(letters);
  const OcrWords words = ocrWords(letters, grouped);
  REQUIRE(words.folds.size() >= 1600);

  // Split by fold: folds 0-4 train, 5-9 test (each word lies in one fold).
  std::vector<std::unique_ptr<ChainExample>> chain_train, chain_test;
  std::vector<std::unique_ptr<MulticlassExample>> letter_train, letter_test;
  for (std::size_t k = 0; k < words.folds.size(); k += 4) {
    const bool train = words.folds[k] < 5;
    (train ? chain_train : chain_test).push_back(std::make_unique<ChainExample>(words.data, k));
    for (std::size_t i = grouped.starts[k]; i < grouped.starts[k + 1]; ++i) {
      (train ? letter_train : letter_test)
          .push_back(std::make_unique<MulticlassExample>(letters.featuresWithBias(i), letters.labels[i], datasets::kLetterClasses));
    }
  }
  ExampleList chain_list, letter_list;
  for (const auto& e : chain_train) chain_list.push_back(e.get());
  for (const auto& e : letter_train) letter_list.push_back(e.get());

  OnlineGreedyProjection chain_learner(learnerParams(0.01));
  const Eigen::VectorXd w_chain = chain_learner.train(chain_list);
  std::vector<const ChainExample*> test_words;
  for (const auto& e : chain_test) test_words.push_back(e.get());
  const double chain_error = labelErrors(test_words, w_chain).rate();

  // the multiclass model at its better lambda of two, so that the comparison favours it
  double letter_error = 1.0;
  for (double lambda : {0.01, 0.001}) {
    OnlineGreedyProjection letter_learner(learnerParams(lambda));
    const Eigen::VectorXd w = letter_learner.train(letter_list);
    std::size_t wrong = 0;
    for (const auto& e : letter_test) wrong += e->predict(w) != e->label();
    letter_error = std::min(letter_error, static_cast<double>(wrong) / static_cast<double>(letter_test.size()));
  }
  MESSAGE(chain_train.size() << " training words, " << chain_test.size() << " test words: chain letter error "
                             << chain_error << ", per-letter multiclass " << letter_error);
  CHECK(chain_error < letter_error);
  CHECK(chain_error < 0.3);
}
