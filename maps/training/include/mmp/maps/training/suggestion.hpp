// Which demonstration to ask for next on an image (`mmp suggest`, bench_adapt --suggest): start/goal
// pairs valued by how much a demonstration between them would teach a linear or LEARCH cost model,
// under one of two rules (SuggestionSettings::rule, a SuggestionRule), both built on a committee of perturbed copies of
// the model (each weight and tree step times exp(spread N(0, 1)), seeded):
//   - committee: how far the copies' A* plans stray from the model's own plan (query by committee).
//   - change: the expected model change -- the size of the cost change the update of a
//     demonstration would make on the image, if the demonstration were a copy's plan: the update
//     direction is the difference g of the path features F(copy's plan) - F(model's plan), and its
//     size is the standard deviation over the image's cells of f(s) . g, per cell of the model's plan
//     (training weights each demonstration by its length).  Features common on the image weigh in
//     proportion to how common they are (density weighting); a detour through ground seen nowhere
//     else on the image changes few cells' costs and is valued low.
// docs/teaching.md gives the measured comparison with random pairs.  Included by adaptation.hpp.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training/settings.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mmp {

// SuggestionSettings (how a pair is valued) and SuggestionSearch (how many are drawn and kept), the
// suggest.* keys: settings.hpp.

/// The rules' names ("change", "committee"): describe(SuggestionRule) of each.
const std::vector<std::string>& suggestionRules();

/*!
    requires: map made by model.features() (its unknown cells blocked); every start and goal a
              passable cell of it; model without a network (mmp::InvalidArgument otherwise); settings
              valid (settings.validate() throws otherwise)
    ensures: for each (start, goal), how much a demonstration between them would teach the model, by
             settings.rule, averaged over `members` perturbed copies of the model (seeded):
               - committee: how far their A* plans stray from the model's own plan -- the mean
                 distance, in cells, of a perturbed plan's cells to the nearest cell of the model's
                 plan.  Where small changes of the costs move the plan, the model is unsure (query by
                 committee, Silver, Bagnell and Stentz 2012).
               - change: sd over the sampled cells s of f(s) . (F(perturbed plan) - F(model's plan)),
                 divided by the model's plan's cells (F: the sum of a path's cell features).  The cells
                 are sampled from `ground` (the maps the model will plan on, made by model.features(),
                 sample_cells shared evenly among them) or, if it is empty, from `map` itself.
             0 where every copy plans the same path.  Pairs without a plan under the model get -1.  The
             values do not depend on settings.threads.
!*/
std::vector<double> demonstrationValues(const CostModel& model, const FeatureMap& map,
                                        const std::vector<std::pair<int, int>>& pairs, const SuggestionSettings& settings = {},
                                        const std::vector<const FeatureMap*>& ground = {});

/// A start/goal pair to demonstrate next, with its demonstrationValues value.
struct SuggestedPair {
  int start = 0, goal = 0;  ///< cells of the map's grid
  double value = 0.0;
};

/// Where suggestDemonstrations may suggest (the page's view, `mmp suggest --region/--exclude/--skip-taught`).
struct SuggestionArea {
  /// Cells [row0, row1) x [col0, col1) of the map's grid.
  struct Box {
    int row0 = 0, col0 = 0, row1 = 0, col1 = 0;
    bool empty() const { return row1 <= row0 || col1 <= col0; }
    bool contains(int cell, int cols) const {
      const int r = cell / cols, c = cell % cols;
      return r >= row0 && r < row1 && c >= col0 && c < col1;
    }
  };
  Box region;                  ///< both ends inside it; empty: anywhere on the map
  std::vector<Box> excluded;   ///< ground kept for checking: neither end nor a cell of the model's plan in any
  std::vector<int> taught;     ///< cells of paths already taught (grid cells)
  /// A pair whose model plan has more than half its cells within this many cells of a taught cell would
  /// teach what was taught: skipped.
  static constexpr int kTaughtRadius = 2;

  /// The cells of a rows x cols grid of cell_size-px cells that the pixel box [x0, x1) x [y0, y1] = box
  /// covers (any part of), clamped to the grid's whole cells; throws mmp::InvalidArgument "'<what>' must be
  /// [x0, y0, x1, y1] in pixels with ..." unless every value is finite, 0 <= x0 < x1 <= width and
  /// 0 <= y0 < y1 <= height (the image's pixels).  `mmp suggest --region/--exclude` and the page's API.
  static Box fromPixels(const std::array<double, 4>& box, int cell_size, int rows, int cols, int width, int height,
                        const std::string& what);
};


/*!
    requires: as demonstrationValues (ground: as there); search valid (search.validate() throws otherwise)
    ensures: up to search.n pairs, most valuable first: search.candidates pairs of passable cells at
             least min_separation_px apart, drawn with settings.seed (at most 1000 tries each), valued by
             demonstrationValues; taken in order of value, skipping a pair with an end within half the
             separation of an end already taken, and stopping at the first pair without a plan.  Within
             `area`: candidates are drawn with both ends in its region and none in an excluded box; a
             pair whose model plan enters an excluded box, or runs mostly along taught cells
             (SuggestionArea::kTaughtRadius), is skipped.  Empty when no candidate could be drawn;
             `drawn` (if given) says how many were.  Throws mmp::InvalidArgument if the region or a box
             lies off the map.
!*/
std::vector<SuggestedPair> suggestDemonstrations(const CostModel& model, const FeatureMap& map, const SuggestionSearch& search,
                                                 const SuggestionSettings& settings = {}, int* drawn = nullptr,
                                                 const std::vector<const FeatureMap*>& ground = {},
                                                 const SuggestionArea& area = {});

}  // namespace mmp
