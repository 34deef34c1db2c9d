// dlib's structural_sequence_labeling_trainer on our OCR chain (benchmarks only: dlib is a
// benchmark peer).  DlibChainFeatures gives dlib exactly our chain's joint features, so both
// trainers fit the same linear model with the same Hamming loss; runDlibFold trains and tests one fold.
#pragma once

#include <mmp/frontend/ocr_experiment.hpp>

#include <mmp/learners/learner.hpp>

#include <dlib/svm_threaded.h>

#include <chrono>
#include <vector>

namespace mmp::tools {

/// One OCR word for dlib: a view of one sequence of our ChainData (the same pixels, no copy).
struct DlibWord {
  const ChainData* data = nullptr;
  std::size_t first = 0;
  std::size_t length = 0;
  std::size_t size() const { return length; }
};

/*!
    dlib's feature extractor (dlib/svm/sequence_labeler_abstract.h) producing exactly our chain's
    joint features (mmp::ChainLayout): the emission of each active pixel and the bias for the
    label at a position, the transition from the previous label, and start/end weights.  So both
    trainers fit the same linear model with the same Hamming loss; only the optimiser differs.
!*/
class DlibChainFeatures {
 public:
  typedef DlibWord sequence_type;

  DlibChainFeatures() = default;
  explicit DlibChainFeatures(ChainLayout layout) : layout_(layout) {}

  unsigned long num_features() const { return static_cast<unsigned long>(layout_.dimension()); }
  unsigned long order() const { return 1; }
  unsigned long num_labels() const { return static_cast<unsigned long>(layout_.labels); }

  template <typename feature_setter, typename EXP>
  void get_features(feature_setter& set_feature, const sequence_type& x, const dlib::matrix_exp<EXP>& y,
                    unsigned long position) const {
    const int label = static_cast<int>(y(0));
    const std::size_t p = x.first + position;
    for (const std::int32_t* f = x.data->activeBegin(p); f != x.data->activeEnd(p); ++f) {
      set_feature(static_cast<unsigned long>(layout_.emission(*f, label)));
    }
    set_feature(static_cast<unsigned long>(layout_.emission(layout_.features, label)));
    if (y.size() > 1) set_feature(static_cast<unsigned long>(layout_.transition(static_cast<int>(y(1)), label)));
    if (layout_.start_end) {
      if (position == 0) set_feature(static_cast<unsigned long>(layout_.start(label)));
      if (position + 1 == x.size()) set_feature(static_cast<unsigned long>(layout_.end(label)));
    }
  }

 private:
  ChainLayout layout_{datasets::kLetterClasses, datasets::kLetterPixels, true};
};

// dlib's sequence_labeler serialises its feature extractor; ours has nothing to save.
[[maybe_unused]] inline void serialize(const DlibChainFeatures&, std::ostream&) {}
[[maybe_unused]] inline void deserialize(DlibChainFeatures&, std::istream&) {}

struct MethodFold {
  double error = 0.0, train_seconds = 0.0, test_seconds = 0.0;
};

/// Trains dlib on the fold's training words (C = c), tests on its test words; its weights in our
/// ChainLayout order go to *weights if given.
inline MethodFold runDlibFold(const datasets::OcrWords& words, const datasets::FoldSplit& split, bool start_end, double c, int threads,
                              Eigen::VectorXd* weights = nullptr) {
  const ChainData& data = *words.data;
  MethodFold result;
  const std::chrono::steady_clock::time_point train_start = std::chrono::steady_clock::now();
  std::vector<DlibWord> samples;
  std::vector<std::vector<unsigned long>> labels;
  for (std::size_t i : split.train) {
    samples.push_back({&data, data.first(i), data.length(i)});
    labels.emplace_back();
    for (std::size_t t = 0; t < data.length(i); ++t) labels.back().push_back(static_cast<unsigned long>(data.label(data.first(i) + t)));
  }
  dlib::structural_sequence_labeling_trainer<DlibChainFeatures> trainer(
      DlibChainFeatures(ChainLayout{data.labels(), data.features(), start_end}));
  trainer.set_c(c);
  trainer.set_num_threads(static_cast<unsigned long>(threads));
  const dlib::sequence_labeler<DlibChainFeatures> labeler = trainer.train(samples, labels);
  result.train_seconds = secondsSince(train_start);
  if (weights != nullptr) {
    const auto& w = labeler.get_weights();
    weights->resize(static_cast<Eigen::Index>(w.size()));
    for (long i = 0; i < w.size(); ++i) (*weights)[i] = w(i);
  }

  const std::chrono::steady_clock::time_point test_start = std::chrono::steady_clock::now();
  std::size_t wrong = 0, total = 0;
  std::vector<unsigned long> predicted;
  for (std::size_t i : split.test) {
    labeler.label_sequence({&data, data.first(i), data.length(i)}, predicted);
    for (std::size_t t = 0; t < predicted.size(); ++t) {
      wrong += predicted[t] != static_cast<unsigned long>(data.label(data.first(i) + t));
    }
    total += data.length(i);
  }
  result.test_seconds = secondsSince(test_start);
  result.error = static_cast<double>(wrong) / static_cast<double>(total);
  return result;
}

}  // namespace mmp::tools
