#include <mmp/core/tasks/chain.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

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
  if (labels_.size() <= 64) {
    // which positions each feature is on in: psi's emission block is then built feature by feature
    std::vector<std::uint64_t> masks(static_cast<std::size_t>(layout_.features), 0);
    for (std::size_t t = 0; t < labels_.size(); ++t) {
      for (const std::int32_t* f = data_->activeBegin(first + t); f != data_->activeEnd(first + t); ++f) {
        masks[static_cast<std::size_t>(*f)] |= std::uint64_t{1} << t;
      }
    }
    for (int f = 0; f < layout_.features; ++f) {
      if (masks[static_cast<std::size_t>(f)] != 0) feature_masks_.emplace_back(f, masks[static_cast<std::size_t>(f)]);
    }
  }
  jointFeatures(labels_, target_);
  beta_ = std::pow(static_cast<double>(length()), -options_.length_power);
}

void ChainExample::checkWeights(const Eigen::VectorXd& w) const {
  if (w.size() != dimension()) {
    throw InvalidArgument("chain example: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(dimension()));
  }
}

void ChainExample::emissionScores(const double* wd, double added_loss, double* emission) const {
  // e_t(y) = bias(y) + sum of the active features' weights (+ added_loss if y is wrong: the
  // Hamming loss decomposes over positions)
  const int K = layout_.labels;
  const std::size_t first = data_->first(sequence_);
  const double* bias = wd + layout_.emission(layout_.features, 0);
  for (std::size_t t = 0; t < length(); ++t) {
    double* e = emission + t * K;
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
}

double ChainExample::viterbi(const Eigen::VectorXd& w, double loss_weight, std::vector<int>& out) const {
  const int K = layout_.labels;
  const std::size_t L = length();
  const double* wd = w.data();
  // Scratch: the emission scores e_t (L x K), then the recursion's rows delta_t (L x K); on the
  // stack for the usual sizes (a word of up to 19 letters over 26 labels).
  constexpr std::size_t kStackScratch = 1024;
  double stack_scratch[kStackScratch];
  std::vector<double> heap_scratch;
  if (2 * L * K > kStackScratch) heap_scratch.resize(2 * L * K);
  double* const emission = heap_scratch.empty() ? stack_scratch : heap_scratch.data();
  double* const delta = emission + L * K;

  // 1) emission scores, plus the loss of a wrong label when loss-augmented
  emissionScores(wd, loss_weight * options_.position_loss, emission);

  // 2) forward recursion delta_t(b) = e_t(b) + max_a [delta_{t-1}(a) + transition(a, b)]; only the
  //    maxima here (a plain max vectorises), the maximising a is found again when backtracking
  const double* transitions = wd + layout_.transition(0, 0);
  std::copy(emission, emission + K, delta);
  if (layout_.start_end) {
    const double* start = wd + layout_.start(0);
    for (int y = 0; y < K; ++y) delta[y] += start[y];
  }
  for (std::size_t t = 1; t < L; ++t) {
    const double* previous = delta + (t - 1) * K;
    double* current = delta + t * K;
    for (int b = 0; b < K; ++b) current[b] = previous[0] + transitions[b];
    for (int a = 1; a < K; ++a) {
      const double da = previous[a];
      const double* ta = transitions + a * K;
      for (int b = 0; b < K; ++b) current[b] = std::max(current[b], da + ta[b]);
    }
    const double* e = emission + t * K;
    for (int b = 0; b < K; ++b) current[b] += e[b];
  }
  double* last = delta + (L - 1) * K;  // the last row is not needed for backtracking
  if (layout_.start_end) {
    const double* end = wd + layout_.end(0);
    for (int y = 0; y < K; ++y) last[y] += end[y];
  }

  // 3) best final label (lowest on ties), then back: at each step the lowest a reaching the maximum
  //    (the same sums as in 2, so the same maximum, exactly)
  int best = 0;
  for (int y = 1; y < K; ++y) {
    if (last[y] > last[best]) best = y;
  }
  const double best_score = last[best];
  out.resize(L);
  out[L - 1] = best;
  for (std::size_t t = L - 1; t > 0; --t) {
    const double* previous = delta + (t - 1) * K;
    const int b = out[t];
    int arg = 0;
    double value = previous[0] + transitions[b];
    for (int a = 1; a < K; ++a) {
      const double v = previous[a] + transitions[a * K + b];
      if (v > value) value = v, arg = a;
    }
    out[t - 1] = arg;
  }
  return best_score;
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

namespace {

void checkChainLabels(const std::vector<int>& labels, std::size_t L, int K) {
  if (labels.size() != L) {
    throw InvalidArgument("chain example: " + std::to_string(labels.size()) + " labels for a sequence of length " +
                          std::to_string(L));
  }
  for (std::size_t t = 0; t < L; ++t) {
    if (labels[t] < 0 || labels[t] >= K) {
      throw InvalidArgument("chain example: label " + std::to_string(labels[t]) + " at position " + std::to_string(t) +
                            " is outside 0.." + std::to_string(K - 1));
    }
  }
}

// Writes (key, count) entries straight into a sparse vector's storage, in the order they come.
struct SparseCountWriter {
  FeatureVector::Sparse::StorageIndex* index;
  double* value;
  std::size_t n = 0;

  void put(Eigen::Index key, double count) {
    index[n] = static_cast<FeatureVector::Sparse::StorageIndex>(key);
    value[n++] = count;
  }

  // Sorted keys, each once with its multiplicity.
  void putSorted(Eigen::Index* keys, std::size_t count) {
    std::sort(keys, keys + count);
    for (std::size_t i = 0; i < count;) {
      std::size_t j = i + 1;
      while (j < count && keys[j] == keys[i]) ++j;
      put(keys[i], static_cast<double>(j - i));
      i = j;
    }
  }
};

// The emission counts of a sequence of at most 64 positions: with position masks, the labels at the
// positions where feature f is on.
void putMaskedEmissions(const std::vector<std::pair<std::int32_t, std::uint64_t>>& feature_masks,
                        const ChainLayout& layout, const std::vector<int>& labels, SparseCountWriter& out) {
  int at[64];
  for (const auto& [feature, mask] : feature_masks) {
    int count = 0;
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
      const int y = labels[static_cast<std::size_t>(__builtin_ctzll(m))];
      int i = count++;
      for (; i > 0 && at[i - 1] > y; --i) at[i] = at[i - 1];  // insertion sort: a handful of labels
      at[i] = y;
    }
    for (int i = 0; i < count;) {
      int j = i + 1;
      while (j < count && at[j] == at[i]) ++j;
      out.put(layout.emission(feature, at[i]), static_cast<double>(j - i));
      i = j;
    }
  }
}

}  // namespace

void ChainExample::jointFeatures(const std::vector<int>& labels, FeatureVector& psi) const {
  const std::size_t L = length();
  checkChainLabels(labels, L, layout_.labels);
  // psi is a count vector (ChainLayout), written straight into the sparse storage in increasing
  // index order: features, bias, transitions, start, end.
  const std::size_t first = data_->first(sequence_);
  const std::size_t bound = static_cast<std::size_t>(data_->activeEnd(first + L - 1) - data_->activeBegin(first)) + 2 * L + 2;
  auto& v = psi.resetSparse(dimension());
  v.resizeNonZeros(static_cast<Eigen::Index>(bound));
  SparseCountWriter out{v.innerIndexPtr(), v.valuePtr()};
  std::vector<Eigen::Index> keys;  // used for sequences over 64 positions only
  // 1) features: with position masks, the labels at the positions where feature f is on
  if (L <= 64) {
    putMaskedEmissions(feature_masks_, layout_, labels, out);
  } else {  // long sequences: every (feature, label) use, sorted
    for (std::size_t t = 0; t < L; ++t) {
      for (const std::int32_t* f = data_->activeBegin(first + t); f != data_->activeEnd(first + t); ++f) {
        keys.push_back(layout_.emission(*f, labels[t]));
      }
    }
    out.putSorted(keys.data(), keys.size());
  }
  // 2) bias: how often each label is used (labels in increasing order)
  if (L <= 64) {
    Eigen::Index bias[64];
    for (std::size_t t = 0; t < L; ++t) bias[t] = layout_.emission(layout_.features, labels[t]);
    out.putSorted(bias, L);
  } else {
    keys.clear();
    for (std::size_t t = 0; t < L; ++t) keys.push_back(layout_.emission(layout_.features, labels[t]));
    out.putSorted(keys.data(), keys.size());
  }
  // 3) transitions, 4) start and end
  if (L <= 64) {
    Eigen::Index pairs[64];
    for (std::size_t t = 1; t < L; ++t) pairs[t - 1] = layout_.transition(labels[t - 1], labels[t]);
    out.putSorted(pairs, L - 1);
  } else {
    keys.clear();
    for (std::size_t t = 1; t < L; ++t) keys.push_back(layout_.transition(labels[t - 1], labels[t]));
    out.putSorted(keys.data(), keys.size());
  }
  if (layout_.start_end) {
    out.put(layout_.start(labels.front()), 1.0);
    out.put(layout_.end(labels.back()), 1.0);
  }
  v.resizeNonZeros(static_cast<Eigen::Index>(out.n));  // keeps the allocation
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
  answer(result);
}

void ChainExample::answer(OracleResult& result) const {
  if (result.output == labels_) {
    result.psi_output = target_;
  } else {
    jointFeatures(result.output, result.psi_output);
  }
  result.psi_target = target_;
  result.loss = loss(result.output);  // recomputed from y*, not taken from the search
  result.beta = beta_;
}

void ChainExample::maxProduct(const Eigen::VectorXd& w, Eigen::MatrixXd& forward, Eigen::MatrixXd& backward) const {
  checkWeights(w);
  const int K = layout_.labels;
  const Eigen::Index L = static_cast<Eigen::Index>(length());
  // Column t of each K x L matrix is position t (Eigen is column-major).
  Eigen::MatrixXd emission(K, L);
  emissionScores(w.data(), 0.0, emission.data());
  const auto transition = [&](int a, int b) { return w[layout_.transition(a, b)]; };
  forward.resize(K, L);
  backward.resize(K, L);
  for (int y = 0; y < K; ++y) forward(y, 0) = emission(y, 0) + (layout_.start_end ? w[layout_.start(y)] : 0.0);
  for (Eigen::Index t = 1; t < L; ++t) {
    for (int b = 0; b < K; ++b) {
      double best = forward(0, t - 1) + transition(0, b);
      for (int a = 1; a < K; ++a) best = std::max(best, forward(a, t - 1) + transition(a, b));
      forward(b, t) = best + emission(b, t);
    }
  }
  for (int y = 0; y < K; ++y) backward(y, L - 1) = layout_.start_end ? w[layout_.end(y)] : 0.0;
  for (Eigen::Index t = L - 2; t >= 0; --t) {
    for (int a = 0; a < K; ++a) {
      double best = transition(a, 0) + emission(0, t + 1) + backward(0, t + 1);
      for (int b = 1; b < K; ++b) best = std::max(best, transition(a, b) + emission(b, t + 1) + backward(b, t + 1));
      backward(a, t) = best;
    }
  }
}

void ChainExample::maxMarginals(const Eigen::VectorXd& w, MaxMarginals& m) const {
  Eigen::MatrixXd forward, backward;
  maxProduct(w, forward, backward);
  m.score = (forward + backward).transpose();  // positions x labels
  m.loss.setConstant(m.score.rows(), m.score.cols(), options_.position_loss);
  m.target = labels_;
  for (std::size_t t = 0; t < labels_.size(); ++t) m.loss(static_cast<Eigen::Index>(t), labels_[t]) = 0.0;
}

void ChainExample::bestWith(const Eigen::VectorXd& w, int position, int value, OracleResult& result) const {
  const int K = layout_.labels;
  const int L = static_cast<int>(length());
  if (position < 0 || position >= L || value < 0 || value >= K) {
    throw InvalidArgument("chain example: position " + std::to_string(position) + " and label " + std::to_string(value) +
                          " outside 0.." + std::to_string(L - 1) + " and 0.." + std::to_string(K - 1));
  }
  Eigen::MatrixXd forward, backward;
  maxProduct(w, forward, backward);
  Eigen::MatrixXd emission(K, L);
  emissionScores(w.data(), 0.0, emission.data());
  const auto transition = [&](int a, int b) { return w[layout_.transition(a, b)]; };
  std::vector<int>& y = result.output;
  y.assign(static_cast<std::size_t>(L), 0);
  y[static_cast<std::size_t>(position)] = value;
  // back from the position along the forward maxima, on along the backward ones; lowest label on ties
  for (int t = position; t > 0; --t) {
    const int b = y[static_cast<std::size_t>(t)];
    int arg = 0;
    for (int a = 1; a < K; ++a) {
      if (forward(a, t - 1) + transition(a, b) > forward(arg, t - 1) + transition(arg, b)) arg = a;
    }
    y[static_cast<std::size_t>(t - 1)] = arg;
  }
  for (int t = position; t + 1 < L; ++t) {
    const int a = y[static_cast<std::size_t>(t)];
    const auto next = [&](int b) { return transition(a, b) + emission(b, t + 1) + backward(b, t + 1); };
    int arg = 0;
    for (int b = 1; b < K; ++b) {
      if (next(b) > next(arg)) arg = b;
    }
    y[static_cast<std::size_t>(t + 1)] = arg;
  }
  answer(result);
}

void ChainExample::exactSlackViolator(const Eigen::VectorXd& w, OracleResult& result) const {
  checkWeights(w);
  const int K = layout_.labels;
  const int L = static_cast<int>(length());
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  Eigen::MatrixXd emission(K, L);
  emissionScores(w.data(), 0.0, emission.data());
  // best(y, k) at position t: the best score of positions 0..t ending in y with k wrong labels;
  // from(t) (y, k) = the previous label reaching it.  Viterbi over (label, errors so far).
  const auto cell = [&](int y, int k) { return static_cast<Eigen::Index>(k) * K + y; };
  Eigen::VectorXd best = Eigen::VectorXd::Constant(Eigen::Index(K) * (L + 1), kNone), next;
  std::vector<std::vector<int>> from(static_cast<std::size_t>(L), std::vector<int>(std::size_t(K) * (L + 1), -1));
  for (int y = 0; y < K; ++y) {
    best[cell(y, y != labels_[0])] = emission(y, 0) + (layout_.start_end ? w[layout_.start(y)] : 0.0);
  }
  for (int t = 1; t < L; ++t) {
    next.setConstant(best.size(), kNone);
    for (int k = 0; k <= t; ++k) {
      for (int a = 0; a < K; ++a) {
        const double here = best[cell(a, k)];
        if (here == kNone) continue;
        for (int b = 0; b < K; ++b) {
          const int errors = k + (b != labels_[static_cast<std::size_t>(t)]);
          const double v = here + w[layout_.transition(a, b)] + emission(b, t);
          if (v > next[cell(b, errors)]) {
            next[cell(b, errors)] = v;
            from[static_cast<std::size_t>(t)][static_cast<std::size_t>(cell(b, errors))] = a;
          }
        }
      }
    }
    best.swap(next);
  }
  // the largest L(y) (1 + s(y) - s(y_i)) over error counts k >= 1; the demonstration if none is positive
  const double target_score = target_.dot(w);
  double top = 0.0;
  int top_label = -1, top_errors = 0;
  for (int k = 1; k <= L; ++k) {
    for (int y = 0; y < K; ++y) {
      const double s = best[cell(y, k)];
      if (s == kNone) continue;
      const double term = options_.position_loss * k * (1.0 + s + (layout_.start_end ? w[layout_.end(y)] : 0.0) - target_score);
      if (term > top) top = term, top_label = y, top_errors = k;
    }
  }
  if (top_label < 0) {
    result.output = labels_;
  } else {
    result.output.resize(static_cast<std::size_t>(L));
    int y = top_label, k = top_errors;
    for (int t = L - 1; t >= 0; --t) {
      result.output[static_cast<std::size_t>(t)] = y;
      const int wrong = y != labels_[static_cast<std::size_t>(t)];
      if (t > 0) y = from[static_cast<std::size_t>(t)][static_cast<std::size_t>(cell(y, k))];
      k -= wrong;
    }
  }
  answer(result);
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
