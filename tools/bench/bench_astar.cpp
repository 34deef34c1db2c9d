// bench_astar: mmp's GridPlanner against Boost.Graph on the same grid costs (a benchmark, not a test).
//
// For each grid size and cost regime: corner-to-corner point-to-point A* and a full-map search
// (Dijkstra from a corner), median of --runs runs, expansions per second and bytes of search state
// per cell (the planner's records, step bytes and open list); the same point-to-point search with
// costs asked on demand (plan(CellCosts) over the vector, exact bounds: the overhead of lazy costs
// and the share of cells a search asks for); in the same run Boost.Graph's dijkstra_shortest_paths and astar_search over the same
// step costs (a compressed-sparse-row graph with 8 neighbours), with the optimal costs checked equal.
// Prints a table and, last, one JSON line for the 1024^2 grid (the regime with the smallest speedup).
#include <mmp/frontend/json_output.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/random.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <boost/graph/astar_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {

using mmp::kInf;

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <class F>
double medianMs(int runs, F&& run) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    run();
    times.push_back(millisecondsSince(t0));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Spatially varied costs.  smooth: sums of sines in [1, 5]; blocky: 16x16-cell blocks with costs
// spanning 1..200; obstacles: smooth costs with ~20% of cells in impassable discs.
std::vector<double> makeCosts(const std::string& regime, int n, std::uint64_t seed) {
  mmp::Random rng(seed);
  const auto u = [&rng] { return rng.uniform(); };
  std::vector<double> costs(static_cast<std::size_t>(n) * n);
  const double f1 = 2 + 6 * u(), f2 = 2 + 6 * u(), p1 = 6.28 * u(), p2 = 6.28 * u();
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const double x = static_cast<double>(c) / n, y = static_cast<double>(r) / n;
      costs[static_cast<std::size_t>(r) * n + c] =
          3.0 + std::sin(f1 * 6.28 * x + p1) * std::cos(f2 * 6.28 * y + p2) + std::sin(13.0 * (x + y)) + 0.2 * u();
    }
  }
  if (regime == "blocky") {
    const int block = 16, blocks = (n + block - 1) / block;
    std::vector<double> level(static_cast<std::size_t>(blocks) * blocks);
    for (double& v : level) v = std::pow(200.0, u());  // log-uniform in [1, 200]
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) costs[static_cast<std::size_t>(r) * n + c] = level[static_cast<std::size_t>(r / block) * blocks + c / block];
    }
  } else if (regime == "obstacles") {
    const int discs = n * n / 1500;
    const auto pos = [&rng, n] { return static_cast<int>(rng.below(static_cast<std::uint64_t>(n))); };
    for (int k = 0; k < discs; ++k) {
      const int r0 = pos(), c0 = pos(), radius = 2 + static_cast<int>(u() * 12);
      for (int r = std::max(0, r0 - radius); r <= std::min(n - 1, r0 + radius); ++r) {
        for (int c = std::max(0, c0 - radius); c <= std::min(n - 1, c0 + radius); ++c) {
          if ((r - r0) * (r - r0) + (c - c0) * (c - c0) <= radius * radius) costs[static_cast<std::size_t>(r) * n + c] = kInf;
        }
      }
    }
  }
  costs.front() = costs.back() = 1.0;  // both corners passable
  return costs;
}

using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                 boost::property<boost::edge_weight_t, double>>;

Graph makeGraph(const std::vector<double>& costs, int n) {
  std::vector<std::pair<int, int>> edges;
  std::vector<double> weights;
  edges.reserve(costs.size() * 8);
  weights.reserve(costs.size() * 8);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const int u = r * n + c;
      if (!std::isfinite(costs[u])) continue;
      for (int dr = -1; dr <= 1; ++dr) {
        for (int dc = -1; dc <= 1; ++dc) {
          const int vr = r + dr, vc = c + dc;
          if ((dr == 0 && dc == 0) || vr < 0 || vr >= n || vc < 0 || vc >= n) continue;
          const int v = vr * n + vc;
          if (!std::isfinite(costs[v])) continue;
          edges.emplace_back(u, v);
          weights.push_back((dr != 0 && dc != 0 ? std::sqrt(2.0) : 1.0) * 0.5 * (costs[u] + costs[v]));
        }
      }
    }
  }
  return Graph(boost::edges_are_sorted, edges.begin(), edges.end(), weights.begin(), static_cast<std::size_t>(n) * n);
}

template <class T>
auto propertyMap(std::vector<T>& values, const Graph& graph) {
  return boost::make_iterator_property_map(values.begin(), boost::get(boost::vertex_index, graph));
}

struct FoundGoal {};
struct GoalVisitor : boost::default_astar_visitor {
  int goal;
  explicit GoalVisitor(int g) : goal(g) {}
  void examine_vertex(std::size_t u, const Graph&) const {
    if (static_cast<int>(u) == goal) throw FoundGoal{};
  }
};

struct Octile : boost::astar_heuristic<Graph, double> {
  int n, goal;
  double scale;
  Octile(int n_, int goal_, double scale_) : n(n_), goal(goal_), scale(scale_) {}
  double operator()(std::size_t u) const {
    const double dr = std::abs(static_cast<int>(u) / n - goal / n), dc = std::abs(static_cast<int>(u) % n - goal % n);
    return scale * ((dr + dc) + (std::sqrt(2.0) - 2.0) * std::min(dr, dc));
  }
};

// Costs on demand from a vector, counting the cells asked for.
struct LazyCosts : mmp::CellCosts {
  const std::vector<double>& costs;
  double lower = kInf, upper = 0.0;
  mutable long asked = 0;
  explicit LazyCosts(const std::vector<double>& c) : costs(c) {
    for (double x : costs) {
      if (std::isfinite(x)) lower = std::min(lower, x), upper = std::max(upper, x);
    }
  }
  double lowerBound() const override { return lower; }
  double upperBound() const override { return upper; }
  double cost(int s) const override {
    ++asked;
    return costs[static_cast<std::size_t>(s)];
  }
};

struct Row {
  int grid;
  std::string regime;
  double ours_p2p_ms, ours_full_ms, bgl_dijkstra_ms, bgl_astar_ms, lazy_p2p_ms;
  long p2p_expansions, full_expansions;
  double bytes_per_cell, max_cost_difference, lazy_share;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_astar: mmp's exact grid A* against Boost.Graph on the same costs"};
  std::vector<int> sizes = {256, 512, 1024, 2048};
  int runs = 5;
  bool no_bgl = false;
  app.add_option("--sizes", sizes, "grid sizes (cells per side)")->capture_default_str();
  app.add_option("--runs", runs, "runs per measurement; the median is reported (>= 5 for the headline)")->capture_default_str();
  app.add_flag("--no-bgl", no_bgl, "skip Boost.Graph (a quick look at our own times)");
  CLI11_PARSE(app, argc, argv);

  std::vector<Row> rows;
  std::printf("%6s %-10s %12s %12s %14s %12s %10s %10s %12s %9s %10s %12s %11s\n", "grid", "regime", "ours p2p ms",
              "ours full ms", "BGL dijkstra", "BGL A* ms", "speedup", "full Mexp/s", "p2p exp", "B/cell", "cost diff",
              "lazy p2p ms", "lazy asked");
  for (int n : sizes) {
    for (const std::string regime : {"smooth", "blocky", "obstacles"}) {
      const std::vector<double> costs = makeCosts(regime, n, 7 + n);
      const int start = 0, goal = n * n - 1;
      mmp::GridPlanner planner(n, n);
      mmp::PlanResult p2p, full;
      Row row{n, regime, 0, 0, kInf, kInf, 0, 0, 0, 0, 0, 0};
      row.ours_p2p_ms = medianMs(runs, [&] { p2p = planner.plan(costs, start, goal); });
      const LazyCosts lazy(costs);
      mmp::PlanResult lazy_p2p;
      row.lazy_p2p_ms = medianMs(runs, [&] {
        lazy.asked = 0;
        lazy_p2p = planner.plan(lazy, start, goal);
      });
      row.lazy_share = static_cast<double>(lazy.asked) / static_cast<double>(costs.size());
      if (lazy_p2p.status != p2p.status || lazy_p2p.cost != p2p.cost) row.max_cost_difference = kInf;
      row.ours_full_ms = medianMs(runs, [&] { full = planner.plan(costs, start, -1); });
      row.p2p_expansions = p2p.expansions;
      row.full_expansions = full.expansions;
      row.bytes_per_cell = static_cast<double>(planner.stateBytes()) / (static_cast<double>(n) * n);
      if (!no_bgl) {
        const Graph graph = makeGraph(costs, n);
        std::vector<double> dist(costs.size());
        std::vector<std::size_t> pred(costs.size());
        row.bgl_dijkstra_ms = medianMs(runs, [&] {
          boost::dijkstra_shortest_paths(graph, static_cast<std::size_t>(start),
                                         boost::distance_map(propertyMap(dist, graph)).predecessor_map(propertyMap(pred, graph)));
        });
        // Every cell's optimal cost must agree (relative difference).
        for (std::size_t s = 0; s < costs.size(); ++s) {
          const double ours = planner.distance(static_cast<int>(s));
          const bool both_unreached = !std::isfinite(ours) && dist[s] >= std::numeric_limits<double>::max();
          if (!both_unreached) row.max_cost_difference = std::max(row.max_cost_difference, std::abs(ours - dist[s]) / std::max(1.0, dist[s]));
        }
        double min_cost = kInf;
        for (double c : costs) min_cost = std::min(min_cost, c);
        std::vector<double> astar_dist(costs.size()), rank(costs.size());
        std::vector<boost::default_color_type> color(costs.size());
        row.bgl_astar_ms = medianMs(runs, [&] {
          try {
            boost::astar_search_no_init(
                graph, static_cast<std::size_t>(start), Octile(n, goal, min_cost),
                boost::distance_map(propertyMap(astar_dist, graph)).predecessor_map(propertyMap(pred, graph))
                    .rank_map(propertyMap(rank, graph)).color_map(propertyMap(color, graph)).visitor(GoalVisitor(goal)));
          } catch (const FoundGoal&) {
          }
          // astar_search_no_init leaves initialisation to us: reset for the next run (inside the timing,
          // as astar_search itself would do it).
          std::fill(astar_dist.begin(), astar_dist.end(), std::numeric_limits<double>::max());
          std::fill(rank.begin(), rank.end(), std::numeric_limits<double>::max());
          std::fill(color.begin(), color.end(), boost::white_color);
          astar_dist[start] = 0.0;
          rank[start] = 0.0;
        });
        if (p2p.status == mmp::PlanStatus::Success) {
          row.max_cost_difference = std::max(row.max_cost_difference, std::abs(p2p.cost - dist[goal]) / std::max(1.0, dist[goal]));
        }
      }
      rows.push_back(row);
      std::printf("%6d %-10s %12.2f %12.2f %14.2f %12.2f %9.1fx %10.1f %12ld %9.1f %10.1e %12.2f %10.0f%%\n", n,
                  regime.c_str(), row.ours_p2p_ms, row.ours_full_ms, row.bgl_dijkstra_ms, row.bgl_astar_ms,
                  row.bgl_dijkstra_ms / row.ours_full_ms, row.full_expansions / row.ours_full_ms / 1e3, row.p2p_expansions,
                  row.bytes_per_cell, row.max_cost_difference, row.lazy_p2p_ms, 100.0 * row.lazy_share);
      std::fflush(stdout);
    }
  }
  // Headline: the 1024^2 grid (or the largest run), the regime with the smallest speedup.
  const Row* headline = nullptr;
  for (const Row& r : rows) {
    if (r.grid != 1024 && std::find(sizes.begin(), sizes.end(), 1024) != sizes.end()) continue;
    if (!headline || r.bgl_dijkstra_ms / r.ours_full_ms < headline->bgl_dijkstra_ms / headline->ours_full_ms) headline = &r;
  }
  double worst_difference = 0.0;
  for (const Row& r : rows) worst_difference = std::max(worst_difference, r.max_cost_difference);
  if (headline) {
    const mmp::tools::Json line = {{"grid", headline->grid},
                                   {"regime", headline->regime},
                                   {"ours_full_ms", headline->ours_full_ms},
                                   {"ours_p2p_ms", headline->ours_p2p_ms},
                                   {"ours_lazy_p2p_ms", headline->lazy_p2p_ms},
                                   {"bgl_dijkstra_ms", headline->bgl_dijkstra_ms},
                                   {"bgl_astar_ms", headline->bgl_astar_ms},
                                   {"speedup_vs_bgl", headline->bgl_dijkstra_ms / headline->ours_full_ms},
                                   {"bytes_per_cell", headline->bytes_per_cell},
                                   {"max_cost_rel_diff", worst_difference},
                                   {"runs", runs}};
    std::printf("%s\n", mmp::tools::jsonText(line, -1).c_str());
  }
  return worst_difference <= 1e-9 ? 0 : 1;
}
