#include <mmp/core/chain.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp {

ChainData::ChainData(int labels, int features) : labels_(labels), features_(features) {
  if (labels_ < 2) throw InvalidArgument("chain data: need at least 2 labels, got " + std::to_string(labels_));
  if (features_ < 0) throw InvalidArgument("chain data: the feature count must be >= 0, got " + std::to_string(features_));
}

std::size_t ChainData::addSequence(const std::vector<std::vector<int>>& active, const std::vector<int>& labels) {
  if (labels.empty()) throw InvalidArgument("chain data: a sequence needs at least one position");
  if (active.size() != labels.size()) {
    throw InvalidArgument("chain data: " + std::to_string(active.size()) + " feature lists for " +
                          std::to_string(labels.size()) + " labels");
  }
  // Check everything first, so that a refused sequence leaves the store unchanged.
  for (std::size_t t = 0; t < labels.size(); ++t) {
    if (labels[t] < 0 || labels[t] >= labels_) {
      throw InvalidArgument("chain data: position " + std::to_string(t) + " has label " + std::to_string(labels[t]) +
                            ", expected 0.." + std::to_string(labels_ - 1));
    }
    for (std::size_t j = 0; j < active[t].size(); ++j) {
      const int f = active[t][j];
      if (f < 0 || f >= features_ || (j > 0 && f <= active[t][j - 1])) {
        throw InvalidArgument("chain data: position " + std::to_string(t) + " has active feature " + std::to_string(f) +
                              " at entry " + std::to_string(j) + ", expected strictly increasing indices in 0.." +
                              std::to_string(features_ - 1));
      }
    }
  }
  for (std::size_t t = 0; t < labels.size(); ++t) {
    active_.insert(active_.end(), active[t].begin(), active[t].end());
    active_start_.push_back(active_.size());
    position_labels_.push_back(labels[t]);
  }
  sequence_start_.push_back(position_labels_.size());
  return sequences() - 1;
}

ChainExample::ChainExample(std::shared_ptr<const ChainData> data, std::size_t sequence, ChainOptions options)
    : data_(std::move(data)), sequence_(sequence), options_(options) {
  if (!data_) throw InvalidArgument("chain example: the data is null");
  if (sequence_ >= data_->sequences()) {
    throw InvalidArgument("chain example: sequence " + std::to_string(sequence_) + " of a store with " +
                          std::to_string(data_->sequences()));
  }
  if (!(options_.position_loss > 0.0) || !std::isfinite(options_.position_loss)) {
    throw InvalidArgument("chain example: position_loss must be a finite number > 0");
  }
  if (!(options_.length_power >= 0.0) || !std::isfinite(options_.length_power)) {
    throw InvalidArgument("chain example: length_power must be a finite number >= 0");
  }
  layout_ = ChainLayout{data_->labels(), data_->features(), options_.start_end};
  const std::size_t first = data_->first(sequence_);
  labels_.resize(length());
  for (std::size_t t = 0; t < labels_.size(); ++t) labels_[t] = data_->label(first + t);
  jointFeatures(labels_, target_);
  beta_ = std::pow(static_cast<double>(length()), -options_.length_power);
}

void ChainExample::checkWeights(const Eigen::VectorXd& w) const {
  if (w.size() != dimension()) {
    throw InvalidArgument("chain example: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(dimension()));
  }
}

double ChainExample::viterbi(const Eigen::VectorXd& w, double loss_weight, std::vector<int>& out) const {
  const int K = layout_.labels;
  const std::size_t L = length();
  const std::size_t first = data_->first(sequence_);
  const double* wd = w.data();
  // Scratch: emission scores (L x K), back pointers (L x K), two rows of the recursion.
  std::vector<double> scores(L * K + 2 * K);
  std::vector<int> back(L * K);
  double* delta = scores.data() + L * K;
  double* next = delta + K;

  // 1) emission scores e_t(y) = bias(y) + sum of the active features' weights, plus the loss of a
  //    wrong label when loss-augmented (the Hamming loss decomposes over positions)
  const double* bias = wd + layout_.emission(layout_.features, 0);
  const double added_loss = loss_weight * options_.position_loss;
  for (std::size_t t = 0; t < L; ++t) {
    double* e = scores.data() + t * K;
    std::copy(bias, bias + K, e);
    for (const std::int32_t* f = data_->activeBegin(first + t); f != data_->activeEnd(first + t); ++f) {
      const double* wf = wd + layout_.emission(*f, 0);
      for (int y = 0; y < K; ++y) e[y] += wf[y];
    }
    if (added_loss != 0.0) {
      for (int y = 0; y < K; ++y) {
        if (y != labels_[t]) e[y] += added_loss;
      }
    }
  }

  // 2) forward recursion delta_t(b) = e_t(b) + max_a [delta_{t-1}(a) + transition(a, b)], first a on ties
  const double* transitions = wd + layout_.transition(0, 0);
  std::copy(scores.data(), scores.data() + K, delta);
  if (layout_.start_end) {
    const double* start = wd + layout_.start(0);
    for (int y = 0; y < K; ++y) delta[y] += start[y];
  }
  for (std::size_t t = 1; t < L; ++t) {
    int* bt = back.data() + t * K;
    for (int b = 0; b < K; ++b) next[b] = delta[0] + transitions[b], bt[b] = 0;
    for (int a = 1; a < K; ++a) {
      const double da = delta[a];
      const double* ta = transitions + a * K;
      for (int b = 0; b < K; ++b) {
        const double v = da + ta[b];
        if (v > next[b]) next[b] = v, bt[b] = a;
      }
    }
    const double* e = scores.data() + t * K;
    for (int b = 0; b < K; ++b) delta[b] = next[b] + e[b];
  }
  if (layout_.start_end) {
    const double* end = wd + layout_.end(0);
    for (int y = 0; y < K; ++y) delta[y] += end[y];
  }

  // 3) best final label (lowest on ties), then follow the back pointers
  int best = 0;
  for (int y = 1; y < K; ++y) {
    if (delta[y] > delta[best]) best = y;
  }
  out.resize(L);
  out[L - 1] = best;
  for (std::size_t t = L - 1; t > 0; --t) out[t - 1] = back[t * K + out[t]];
  return delta[best];
}

double ChainExample::predict(const Eigen::VectorXd& w, std::vector<int>& labels) const {
  checkWeights(w);
  return viterbi(w, 0.0, labels);
}

std::size_t ChainExample::errors(const Eigen::VectorXd& w) const {
  std::vector<int> predicted;
  predict(w, predicted);
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < predicted.size(); ++t) wrong += predicted[t] != labels_[t];
  return wrong;
}

void ChainExample::jointFeatures(const std::vector<int>& labels, FeatureVector& psi) const {
  const std::size_t L = length();
  if (labels.size() != L) {
    throw InvalidArgument("chain example: " + std::to_string(labels.size()) + " labels for a sequence of length " +
                          std::to_string(L));
  }
  for (std::size_t t = 0; t < L; ++t) {
    if (labels[t] < 0 || labels[t] >= layout_.labels) {
      throw InvalidArgument("chain example: label " + std::to_string(labels[t]) + " at position " + std::to_string(t) +
                            " is outside 0.." + std::to_string(layout_.labels - 1));
    }
  }
  // Every used entry once per use, then sorted and counted: psi is a count vector (ChainLayout).
  const std::size_t first = data_->first(sequence_);
  std::vector<Eigen::Index> keys;
  keys.reserve(static_cast<std::size_t>(data_->activeEnd(first + L - 1) - data_->activeBegin(first)) + 2 * L + 2);
  for (std::size_t t = 0; t < L; ++t) {
    for (const std::int32_t* f = data_->activeBegin(first + t); f != data_->activeEnd(first + t); ++f) {
      keys.push_back(layout_.emission(*f, labels[t]));
    }
    keys.push_back(layout_.emission(layout_.features, labels[t]));
    if (t > 0) keys.push_back(layout_.transition(labels[t - 1], labels[t]));
  }
  if (layout_.start_end) {
    keys.push_back(layout_.start(labels.front()));
    keys.push_back(layout_.end(labels.back()));
  }
  std::sort(keys.begin(), keys.end());
  auto& v = psi.resetSparse(dimension());
  v.reserve(static_cast<Eigen::Index>(keys.size()));
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i + 1;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    v.insertBack(keys[i]) = static_cast<double>(j - i);
    i = j;
  }
}

double ChainExample::loss(const std::vector<int>& labels) const {
  if (labels.size() != labels_.size()) {
    throw InvalidArgument("chain example: " + std::to_string(labels.size()) + " labels for a sequence of length " +
                          std::to_string(labels_.size()));
  }
  std::size_t wrong = 0;
  for (std::size_t t = 0; t < labels.size(); ++t) wrong += labels[t] != labels_[t];
  return options_.position_loss * static_cast<double>(wrong);
}

void ChainExample::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  checkWeights(w);
  if (!(loss_weight >= 0.0)) throw InvalidArgument("chain example: loss_weight must be >= 0");
  viterbi(w, loss_weight, result.output);
  if (result.output == labels_) {
    result.psi_output = target_;
  } else {
    jointFeatures(result.output, result.psi_output);
  }
  result.psi_target = target_;
  result.loss = loss(result.output);  // recomputed from y*, not taken from the search
  result.beta = beta_;
}

LabelErrors labelErrors(const std::vector<const ChainExample*>& examples, const Eigen::VectorXd& w, ThreadPool* pool) {
  std::vector<std::size_t> wrong(examples.size());
  const auto one = [&](std::size_t i) { wrong[i] = examples[i]->errors(w); };
  if (pool != nullptr) {
    pool->parallelFor(examples.size(), one);
  } else {
    for (std::size_t i = 0; i < examples.size(); ++i) one(i);
  }
  LabelErrors errors;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    errors.wrong += wrong[i];
    errors.total += examples[i]->length();
  }
  return errors;
}

}  // namespace mmp
