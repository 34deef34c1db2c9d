#include <mmp/maps/training_domain.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mmp {

std::string Familiarity::describe() const {
  if (!known) return "the model holds no statistics of its training images (trained before mmp kept them): no check of the image";
  if (cells == 0) return "no cell of the image has data: no check of the image";
  char text[320];
  std::snprintf(text, sizeof text, "%.2f %% of the image's %lld cells have colours unlike every training cell (warning above %.0f %%)%s",
                100.0 * share(), cells, 100.0 * kWarnShare,
                share() > kWarnShare ? ": the image is unlike what the model learned from, and its costs there are guesses" : "");
  std::string line = text;
  if (fewColours()) {
    line += "; and its cells hold only " + std::to_string(colours.count()) + " of " + std::to_string(kColourBins) +
            " colours (a photograph's hold dozens or more): is it a label mask or a blank image? Its costs are guesses";
  }
  return line;
}

TrainingDomain::TrainingDomain(int cell_size) : cell_size_(cell_size) {
  if (cell_size < 1) throw InvalidArgument("training domain: cell size " + std::to_string(cell_size) + " must be >= 1");
}

int TrainingDomain::bin(double r, double g, double b) {
  const auto level = [](double v) { return std::clamp(static_cast<int>(v * kLevels / 256.0), 0, kLevels - 1); };
  return (level(r) * kLevels + level(g)) * kLevels + level(b);
}

template <typename Visit>
void TrainingDomain::forEachCell(const cv::Mat& bgr, const cv::Mat& valid, int cell_size, Visit&& visit) {
  if (bgr.type() != CV_8UC3) throw InvalidArgument("training domain: the image must be 8-bit BGR (CV_8UC3)");
  if (!valid.empty() && (valid.type() != CV_8UC1 || valid.size() != bgr.size())) {
    throw InvalidArgument("training domain: the valid mask must be CV_8UC1 of the image's size");
  }
  const int rows = bgr.rows / cell_size, cols = bgr.cols / cell_size;
  std::vector<double> sums(static_cast<std::size_t>(cols) * 3);
  std::vector<char> complete(static_cast<std::size_t>(cols));
  const double pixels = static_cast<double>(cell_size) * cell_size;
  for (int r = 0; r < rows; ++r) {
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(complete.begin(), complete.end(), 1);
    for (int y = r * cell_size; y < (r + 1) * cell_size; ++y) {
      const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(y);
      const unsigned char* ok = valid.empty() ? nullptr : valid.ptr<unsigned char>(y);
      for (int x = 0; x < cols * cell_size; ++x) {
        const int c = x / cell_size;
        if (ok != nullptr && ok[x] == 0) complete[c] = 0;
        sums[3 * c] += row[x][2];
        sums[3 * c + 1] += row[x][1];
        sums[3 * c + 2] += row[x][0];
      }
    }
    for (int c = 0; c < cols; ++c) {
      if (complete[c]) visit(bin(sums[3 * c] / pixels, sums[3 * c + 1] / pixels, sums[3 * c + 2] / pixels));
    }
  }
}

void TrainingDomain::add(const cv::Mat& bgr, const cv::Mat& valid) {
  if (counts_.empty()) counts_.assign(kBins, 0);
  forEachCell(bgr, valid, cell_size_, [this](int b) {
    ++counts_[b];
    ++cells_;
  });
  updateNear();
}

void TrainingDomain::updateNear() {
  near_.assign(kBins, false);
  const double least = kMinShare * static_cast<double>(cells_);
  for (int b = 0; b < kBins; ++b) {
    if (counts_[b] == 0 || static_cast<double>(counts_[b]) < least) continue;
    const int r = b / (kLevels * kLevels), g = (b / kLevels) % kLevels, bl = b % kLevels;
    for (int dr = -1; dr <= 1; ++dr) {
      for (int dg = -1; dg <= 1; ++dg) {
        for (int db = -1; db <= 1; ++db) {
          const int rr = r + dr, gg = g + dg, bb = bl + db;
          if (rr < 0 || gg < 0 || bb < 0 || rr >= kLevels || gg >= kLevels || bb >= kLevels) continue;
          near_[(rr * kLevels + gg) * kLevels + bb] = true;
        }
      }
    }
  }
}

void TrainingDomain::check(const cv::Mat& bgr, const cv::Mat& valid, Familiarity& into) const {
  into.known = !empty();
  if (empty()) return;
  forEachCell(bgr, valid, cell_size_, [this, &into](int b) {
    ++into.cells;
    into.colours.set(static_cast<std::size_t>(b));
    if (!near_[b]) ++into.outside;
  });
}

void TrainingDomain::store(Model& model) const {
  if (empty()) return;
  model.settings["domain.cell_size"] = std::to_string(cell_size_);
  model.settings["domain.cells"] = std::to_string(cells_);
  std::vector<double>& bins = model.arrays["domain.bins"];
  std::vector<double>& counts = model.arrays["domain.counts"];
  bins.clear();
  counts.clear();
  for (int b = 0; b < kBins; ++b) {
    if (counts_[b] == 0) continue;
    bins.push_back(b);
    counts.push_back(static_cast<double>(counts_[b]));
  }
}

TrainingDomain TrainingDomain::fromModel(const Model& model) {
  const auto size = model.settings.find("domain.cell_size");
  if (size == model.settings.end()) return {};
  const auto fault = [](const std::string& what) {
    return DataError("its training statistics (domain.*) are damaged: " + what);
  };
  TrainingDomain domain;
  try {
    domain = TrainingDomain(std::stoi(size->second));
  } catch (const std::exception&) {
    throw fault("domain.cell_size is '" + size->second + "', not a cell size >= 1");
  }
  const auto bins = model.arrays.find("domain.bins");
  const auto counts = model.arrays.find("domain.counts");
  if (bins == model.arrays.end() || counts == model.arrays.end() || bins->second.size() != counts->second.size() ||
      bins->second.empty()) {
    throw fault("domain.bins and domain.counts must both be present, non-empty and of one length");
  }
  domain.counts_.assign(kBins, 0);
  for (std::size_t i = 0; i < bins->second.size(); ++i) {
    const double b = bins->second[i], n = counts->second[i];
    if (b < 0 || b >= kBins || b != std::floor(b) || n < 1 || n != std::floor(n) || n > 1e15) {
      throw fault("entry " + std::to_string(i) + " (bin " + numberText(b) + ", count " + numberText(n) +
                  ") is not a bin in [0, " + std::to_string(kBins) + ") with a whole count >= 1");
    }
    domain.counts_[static_cast<std::size_t>(b)] += static_cast<long long>(n);
    domain.cells_ += static_cast<long long>(n);
  }
  domain.updateNear();
  return domain;
}

}  // namespace mmp
