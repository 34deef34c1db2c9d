#include <mmp/maps/training_domain.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>

namespace mmp {

std::string Familiarity::describe() const {
  if (!known) return "the model holds no statistics of its training images (trained before mmp kept them): no check of the image";
  if (cells == 0) return "no cell of the image has data: no check of the image";
  char text[320];
  std::snprintf(text, sizeof text, "%.2f %% of the image's %lld cells have colours unlike every training cell (warning above %.0f %%)",
                100.0 * share(), cells, 100.0 * kWarnShare);
  std::string line = text;
  if (!texture_known) {
    line += "; texture not checked (the model keeps colour statistics only: it was saved before mmp kept texture)";
  } else if (textured == 0) {
    line += "; texture not checked (no whole " + std::to_string(texture_block_px) + " px block of the image has data)";
  } else {
    std::snprintf(text, sizeof text,
                  "; %.2f %% of its %lld cells in whole %d px blocks have a colour and contrast unlike every training cell's "
                  "(warning above %.1f %%)",
                  100.0 * textureShare(), textured, texture_block_px, 100.0 * kTextureWarnShare);
    line += text;
  }
  if (share() > kWarnShare || textureWarns()) {
    line += ": the image is unlike what the model learned from, and its costs there are guesses";
  }
  if (fewColours()) {
    line += "; and its cells hold only " + std::to_string(colours.count()) + " of " + std::to_string(kColourBins) +
            " colours (a photograph's hold dozens or more): is it a label mask or a blank image? Its costs are guesses";
  }
  return line;
}

namespace {

bool ascendingEdges(const std::vector<double>& edges) {
  return !edges.empty() && edges.size() <= 15 &&
         std::all_of(edges.begin(), edges.end(), [](double e) { return std::isfinite(e) && e > 0; }) &&
         std::adjacent_find(edges.begin(), edges.end(), std::greater_equal<double>()) == edges.end();
}

}  // namespace

TrainingDomain::TrainingDomain(int cell_size)
    : TrainingDomain(cell_size, kTextureBlock, std::vector<double>(kContrastEdges.begin(), kContrastEdges.end())) {}

TrainingDomain::TrainingDomain(int cell_size, int texture_block, std::vector<double> contrast_edges)
    : cell_size_(cell_size), texture_block_(texture_block), texture_edges_(std::move(contrast_edges)) {
  if (cell_size < 1) throw InvalidArgument("training domain: cell size " + std::to_string(cell_size) + " must be >= 1");
  if (texture_block < 0 || texture_block > 64) {
    throw InvalidArgument("training domain: texture block " + std::to_string(texture_block) + " must be 0 (none) to 64 cells");
  }
  if (texture_block == 0) texture_edges_.clear();
  if (texture_block > 0 && !ascendingEdges(texture_edges_)) {
    throw InvalidArgument("training domain: the contrast edges must be 1 to 15 ascending grey standard deviations > 0");
  }
}

int TrainingDomain::bin(double r, double g, double b) {
  const auto level = [](double v) { return std::clamp(static_cast<int>(v * kLevels / 256.0), 0, kLevels - 1); };
  return (level(r) * kLevels + level(g)) * kLevels + level(b);
}

int TrainingDomain::contrastLevel(double deviation) const {
  return static_cast<int>(std::upper_bound(texture_edges_.begin(), texture_edges_.end(), deviation) - texture_edges_.begin());
}

template <typename Visit>
void TrainingDomain::forEachCell(const cv::Mat& bgr, const cv::Mat& valid, Visit&& visit) const {
  if (bgr.type() != CV_8UC3) throw InvalidArgument("training domain: the image must be 8-bit BGR (CV_8UC3)");
  if (!valid.empty() && (valid.type() != CV_8UC1 || valid.size() != bgr.size())) {
    throw InvalidArgument("training domain: the valid mask must be CV_8UC1 of the image's size");
  }
  const int k = cell_size_;
  const int rows = bgr.rows / k, cols = bgr.cols / k;
  // Cells are visited a band of `group` cell rows at a time: one row of texture blocks.
  const int group = std::max(1, texture_block_);
  const int block_cols = texture_block_ > 0 ? cols / texture_block_ : 0;
  const auto joint_level = [](double v) {
    return std::clamp(static_cast<int>(v * kTextureColourLevels / 256.0), 0, kTextureColourLevels - 1);
  };
  std::vector<double> sums(static_cast<std::size_t>(group) * cols * 3);
  std::vector<char> complete(static_cast<std::size_t>(group) * cols);
  std::vector<double> grey(static_cast<std::size_t>(block_cols) * 2);  // per block: sum, sum of squares
  std::vector<char> block_complete(static_cast<std::size_t>(block_cols));
  const double pixels = static_cast<double>(k) * k;
  for (int r0 = 0; r0 < rows; r0 += group) {
    const int band = std::min(group, rows - r0);
    const bool whole_band = texture_block_ > 0 && band == texture_block_;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(complete.begin(), complete.end(), 1);
    std::fill(grey.begin(), grey.end(), 0.0);
    std::fill(block_complete.begin(), block_complete.end(), 1);
    for (int y = r0 * k; y < (r0 + band) * k; ++y) {
      const int r = y / k - r0;
      const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(y);
      const unsigned char* ok = valid.empty() ? nullptr : valid.ptr<unsigned char>(y);
      double* cell_sums = sums.data() + static_cast<std::size_t>(r) * cols * 3;
      char* cell_complete = complete.data() + static_cast<std::size_t>(r) * cols;
      for (int x = 0; x < cols * k; ++x) {
        const int c = x / k;
        const double red = row[x][2], green = row[x][1], blue = row[x][0];
        if (ok != nullptr && ok[x] == 0) cell_complete[c] = 0;
        cell_sums[3 * c] += red;
        cell_sums[3 * c + 1] += green;
        cell_sums[3 * c + 2] += blue;
        if (whole_band) {
          const int b = c / texture_block_;
          if (b < block_cols) {
            const double luma = 0.299 * red + 0.587 * green + 0.114 * blue;
            grey[2 * b] += luma;
            grey[2 * b + 1] += luma * luma;
            if (ok != nullptr && ok[x] == 0) block_complete[b] = 0;
          }
        }
      }
    }
    std::vector<int> levels(static_cast<std::size_t>(block_cols), -1);
    if (whole_band) {
      const double block_pixels = pixels * texture_block_ * texture_block_;
      for (int b = 0; b < block_cols; ++b) {
        if (!block_complete[b]) continue;
        const double mean = grey[2 * b] / block_pixels;
        levels[b] = contrastLevel(std::sqrt(std::max(0.0, grey[2 * b + 1] / block_pixels - mean * mean)));
      }
    }
    for (int r = 0; r < band; ++r) {
      const double* cell_sums = sums.data() + static_cast<std::size_t>(r) * cols * 3;
      const char* cell_complete = complete.data() + static_cast<std::size_t>(r) * cols;
      for (int c = 0; c < cols; ++c) {
        if (!cell_complete[c]) continue;
        const double red = cell_sums[3 * c] / pixels, green = cell_sums[3 * c + 1] / pixels, blue = cell_sums[3 * c + 2] / pixels;
        int joint = -1;
        const int b = texture_block_ > 0 ? c / texture_block_ : 0;
        if (whole_band && b < block_cols && levels[b] >= 0) {
          joint = ((joint_level(red) * kTextureColourLevels + joint_level(green)) * kTextureColourLevels + joint_level(blue)) *
                      textureLevels() + levels[b];
        }
        visit(bin(red, green, blue), joint);
      }
    }
  }
}

void TrainingDomain::add(const cv::Mat& bgr, const cv::Mat& valid) {
  if (counts_.empty()) counts_.assign(kBins, 0);
  if (hasTexture() && texture_counts_.empty()) texture_counts_.assign(static_cast<std::size_t>(kTextureColourBins) * textureLevels(), 0);
  forEachCell(bgr, valid, [this](int b, int joint) {
    ++counts_[b];
    ++cells_;
    if (joint >= 0) {
      ++texture_counts_[joint];
      ++texture_cells_;
    }
  });
  updateNear();
}

void TrainingDomain::merge(const TrainingDomain& other) {
  if (other.empty()) return;
  if (other.cell_size_ != cell_size_ || other.texture_block_ != texture_block_ || other.texture_edges_ != texture_edges_) {
    throw InvalidArgument("training domain: statistics of " + std::to_string(other.cell_size_) + " px cells (texture blocks of " +
                          std::to_string(other.texture_block_) + " cells) cannot join those of " + std::to_string(cell_size_) +
                          " px cells (blocks of " + std::to_string(texture_block_) + " cells)");
  }
  if (counts_.empty()) counts_.assign(kBins, 0);
  for (int b = 0; b < kBins; ++b) counts_[b] += other.counts_[b];
  cells_ += other.cells_;
  if (hasTexture()) {
    if (texture_counts_.empty()) texture_counts_.assign(other.texture_counts_.size(), 0);
    for (std::size_t b = 0; b < texture_counts_.size(); ++b) texture_counts_[b] += other.texture_counts_[b];
    texture_cells_ += other.texture_cells_;
  }
  updateNear();
}

void TrainingDomain::updateNear() {
  // Marks, in `near`, each bin within one colour level (per channel, same contrast level) of a bin
  // holding at least kMinShare of `total`.
  const auto mark = [](const std::vector<long long>& counts, long long total, int levels, int contrast_levels,
                       std::vector<bool>& near) {
    near.assign(counts.size(), false);
    const double least = kMinShare * static_cast<double>(total);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] == 0 || static_cast<double>(counts[i]) < least) continue;
      const int t = static_cast<int>(i) % contrast_levels, b = static_cast<int>(i) / contrast_levels;
      const int r = b / (levels * levels), g = (b / levels) % levels, bl = b % levels;
      for (int dr = -1; dr <= 1; ++dr) {
        for (int dg = -1; dg <= 1; ++dg) {
          for (int db = -1; db <= 1; ++db) {
            const int rr = r + dr, gg = g + dg, bb = bl + db;
            if (rr < 0 || gg < 0 || bb < 0 || rr >= levels || gg >= levels || bb >= levels) continue;
            near[static_cast<std::size_t>(((rr * levels + gg) * levels + bb) * contrast_levels + t)] = true;
          }
        }
      }
    }
  };
  mark(counts_, cells_, kLevels, 1, near_);
  if (hasTexture() && !texture_counts_.empty()) mark(texture_counts_, texture_cells_, kTextureColourLevels, textureLevels(), texture_near_);
}

void TrainingDomain::check(const cv::Mat& bgr, const cv::Mat& valid, Familiarity& into) const {
  into.known = !empty();
  if (empty()) return;
  into.texture_known = hasTexture();
  into.texture_block_px = texture_block_ * cell_size_;
  const bool texture = hasTexture() && !texture_counts_.empty();
  forEachCell(bgr, valid, [this, texture, &into](int b, int joint) {
    ++into.cells;
    into.colours.set(static_cast<std::size_t>(b));
    if (!near_[b]) ++into.outside;
    if (texture && joint >= 0) {
      ++into.textured;
      if (!texture_near_[joint]) ++into.texture_outside;
    }
  });
}

namespace {

// Appends the bins that hold cells and their counts.
void storeCounts(const std::vector<long long>& counts, std::vector<double>& bins, std::vector<double>& out) {
  bins.clear();
  out.clear();
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (counts[b] == 0) continue;
    bins.push_back(static_cast<double>(b));
    out.push_back(static_cast<double>(counts[b]));
  }
}

}  // namespace

void TrainingDomain::store(Model& model) const {
  if (empty()) return;
  model.settings["domain.cell_size"] = std::to_string(cell_size_);
  model.settings["domain.cells"] = std::to_string(cells_);
  storeCounts(counts_, model.arrays["domain.bins"], model.arrays["domain.counts"]);
  if (!hasTexture() || texture_cells_ == 0) return;
  model.settings["domain.texture_block"] = std::to_string(texture_block_);
  model.settings["domain.texture_cells"] = std::to_string(texture_cells_);
  model.arrays["domain.texture_edges"] = texture_edges_;
  storeCounts(texture_counts_, model.arrays["domain.texture_bins"], model.arrays["domain.texture_counts"]);
}

TrainingDomain TrainingDomain::fromModel(const Model& model) {
  const auto fault = [](const std::string& what) {
    return DataError("its training statistics (domain.*) are damaged: " + what);
  };
  const auto size = model.settings.find("domain.cell_size");
  const auto block = model.settings.find("domain.texture_block");
  if (size == model.settings.end()) {
    if (block != model.settings.end()) throw fault("domain.texture_block is present without domain.cell_size");
    return {};
  }
  TrainingDomain domain;
  try {
    domain = TrainingDomain(std::stoi(size->second));
  } catch (const std::exception&) {
    throw fault("domain.cell_size is '" + size->second + "', not a cell size >= 1");
  }
  // Reads a pair of bins/counts arrays into `counts` (of counts.size() bins); returns the cells.
  const auto read = [&](const std::string& bins_key, const std::string& counts_key, std::vector<long long>& counts) {
    const auto bins = model.arrays.find(bins_key);
    const auto found = model.arrays.find(counts_key);
    if (bins == model.arrays.end() || found == model.arrays.end() || bins->second.size() != found->second.size() ||
        bins->second.empty()) {
      throw fault(bins_key + " and " + counts_key + " must both be present, non-empty and of one length");
    }
    long long cells = 0;
    const double limit = static_cast<double>(counts.size());
    for (std::size_t i = 0; i < bins->second.size(); ++i) {
      const double b = bins->second[i], n = found->second[i];
      if (b < 0 || b >= limit || b != std::floor(b) || n < 1 || n != std::floor(n) || n > 1e15) {
        throw fault(bins_key + " entry " + std::to_string(i) + " (bin " + numberText(b) + ", count " + numberText(n) +
                    ") is not a bin in [0, " + std::to_string(counts.size()) + ") with a whole count >= 1");
      }
      if (static_cast<double>(cells) + n > 1e15) {
        throw fault(counts_key + " add up to more than 1e15 cells by entry " + std::to_string(i));
      }
      counts[static_cast<std::size_t>(b)] += static_cast<long long>(n);
      cells += static_cast<long long>(n);
    }
    return cells;
  };
  domain.counts_.assign(kBins, 0);
  domain.cells_ = read("domain.bins", "domain.counts", domain.counts_);
  if (block == model.settings.end()) {  // saved before texture was kept: colours only
    domain.texture_block_ = 0;
    domain.texture_edges_.clear();
  } else {
    int cells_per_block = 0;
    try {
      std::size_t used = 0;
      cells_per_block = std::stoi(block->second, &used);
      if (used != block->second.size()) cells_per_block = 0;
    } catch (const std::exception&) {
      cells_per_block = 0;
    }
    if (cells_per_block < 1 || cells_per_block > 64) {
      throw fault("domain.texture_block is '" + block->second + "', not a block side of 1 to 64 cells");
    }
    domain.texture_block_ = cells_per_block;
    const auto edges = model.arrays.find("domain.texture_edges");
    if (edges == model.arrays.end() || !ascendingEdges(edges->second)) {
      throw fault("domain.texture_edges must hold 1 to 15 ascending grey standard deviations > 0");
    }
    domain.texture_edges_ = edges->second;
    domain.texture_counts_.assign(static_cast<std::size_t>(kTextureColourBins) * domain.textureLevels(), 0);
    domain.texture_cells_ = read("domain.texture_bins", "domain.texture_counts", domain.texture_counts_);
  }
  domain.updateNear();
  return domain;
}

}  // namespace mmp
