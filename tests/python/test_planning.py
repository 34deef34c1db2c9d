"""mmp.plan: exact A* against brute force, OMPL's planners, world points, statuses, errors and Ctrl-C."""

import heapq
import math
import signal
import sys

import numpy as np
import pytest

import mmp


def dijkstra(costs, start, goal, eight=True):
    """The optimal trapezoid cost |step| (c(a) + c(b)) / 2 from start to goal, by plain Dijkstra."""
    rows, cols = costs.shape
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr or dc) and (eight or not (dr and dc))]
    best = {start: 0.0}
    queue = [(0.0, start)]
    while queue:
        g, (r, c) = heapq.heappop(queue)
        if (r, c) == goal:
            return g
        if g > best[(r, c)]:
            continue
        for dr, dc in steps:
            n = (r + dr, c + dc)
            if 0 <= n[0] < rows and 0 <= n[1] < cols and np.isfinite(costs[n]):
                ng = g + math.hypot(dr, dc) * (costs[r, c] + costs[n]) / 2
                if ng < best.get(n, math.inf):
                    best[n] = ng
                    heapq.heappush(queue, (ng, n))
    return math.inf


def path_cost(costs, path):
    return sum(math.dist(a, b) * (costs[tuple(a)] + costs[tuple(b)]) / 2 for a, b in zip(path[:-1], path[1:]))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("connectivity", [8, 4])
def test_astar_is_optimal_and_its_path_costs_what_it_says(seed, connectivity):
    rng = np.random.default_rng(seed)
    costs = rng.uniform(0.5, 5.0, size=(18, 23))
    costs[rng.random(costs.shape) < 0.2] = np.inf
    start, goal = (0, 0), (17, 22)
    costs[start] = costs[goal] = 1.0
    plan = mmp.plan(costs, start, goal, connectivity=connectivity)
    best = dijkstra(costs, start, goal, connectivity == 8)
    if math.isinf(best):
        assert plan.status == "no_path" and math.isinf(plan.cost) and len(plan.path) == 0
        return
    assert plan.status == "success" and plan.ok and plan.cost == pytest.approx(best, rel=1e-12)
    path = plan.path
    assert path.dtype == np.int64 and tuple(path[0]) == start and tuple(path[-1]) == goal
    steps = np.abs(np.diff(path, axis=0))
    assert steps.max() == 1 and (connectivity == 8 or steps.sum(axis=1).max() == 1)
    assert np.all(np.isfinite(costs[path[:, 0], path[:, 1]]))
    assert path_cost(costs, path) == pytest.approx(plan.cost, rel=1e-12)
    assert plan.world is None and plan.expansions > 0


def test_world_points_plan_the_same_path_as_their_cells():
    rng = np.random.default_rng(7)
    frame = mmp.Frame(30, 40, 2.0, (500.0, 800.0))
    grid = mmp.CostGrid(rng.uniform(1.0, 3.0, size=(30, 40)), frame)
    by_cells = mmp.plan(grid, (3, 4), (25, 33))
    by_world = mmp.plan(grid, frame.to_world((3, 4)) + 0.3, frame.to_world((25, 33)) - 0.3, frame=frame)
    assert np.array_equal(by_cells.path, by_world.path) and by_cells.cost == by_world.cost
    assert np.allclose(by_world.world, frame.to_world(by_world.path.astype(float)))
    with pytest.raises(mmp.InvalidArgument, match=r"goal \(x 0, y 0\) lies outside the grid \(x in \[500, 580\)"):
        mmp.plan(grid, frame.to_world((3, 4)), (0.0, 0.0), frame=frame)


@pytest.mark.parametrize("planner", ["bitstar", "fmtstar"])  # both find this path well inside the budget
def test_ompl_planners_join_start_and_goal_and_cost_no_less_than_any_angle_allows(planner):
    costs = np.ones((40, 60))
    costs[10:30, 20:40] = 20.0  # a dear block between start and goal
    plan = mmp.plan(costs, (20, 2), (20, 57), planner=planner, budget=2.0)
    assert plan.status == "success" and plan.planner == planner
    assert plan.path.dtype == np.float64 and np.allclose(plan.path[0], (20, 2)) and np.allclose(plan.path[-1], (20, 57))
    straight = 55.0  # the shortest any-angle path on unit costs
    assert straight - 1e-9 <= plan.cost <= mmp.plan(costs, (20, 2), (20, 57)).cost * 1.5


def test_a_car_turns_no_tighter_than_its_radius_and_starts_on_its_heading():
    costs = np.ones((40, 60))
    costs[10:30, 20:40] = 20.0
    radius = 6.0
    plan = mmp.plan(costs, (20, 2), (20, 57), planner="rrtstar", budget=1.0, vehicle="dubins", turning_radius=radius,
                    start_heading=math.pi / 2)
    assert plan.status == "success" and plan.headings is not None and len(plan.headings) == len(plan.path)
    assert plan.headings[0] == pytest.approx(math.pi / 2) and np.allclose(plan.path[0], (20, 2))
    arc = np.hypot(*np.diff(plan.path, axis=0).T)  # chords at most 0.5 cells apart along the curve
    turn = np.abs(np.angle(np.exp(1j * np.diff(plan.headings))))
    moving = arc > 1e-9
    assert np.all(turn[moving] <= arc[moving] / radius * (1 + 1e-3) + 1e-9)  # chords: arcs shortened by < 0.03 %
    assert mmp.plan(costs, (20, 2), (20, 57), planner="rrtstar", budget=0.2).headings is None  # a point has none
    with pytest.raises(mmp.InvalidArgument, match="needs turning_radius"):
        mmp.plan(costs, (20, 2), (20, 57), planner="rrtstar", vehicle="reeds-shepp")
    with pytest.raises(mmp.InvalidArgument, match="a point has none"):
        mmp.plan(costs, (20, 2), (20, 57), planner="rrtstar", turning_radius=3.0)
    with pytest.raises(mmp.InvalidArgument, match="A\\* plans for a point"):
        mmp.plan(costs, (20, 2), (20, 57), vehicle="dubins", turning_radius=3.0)


@pytest.mark.parametrize("vehicle", ["dubins", "reeds-shepp"])
def test_a_car_radius_below_a_tenth_of_a_cell_or_beyond_a_million_raises_never_aborts(vehicle):
    # OMPL's curve formulas aborted the interpreter on an assertion for 1e-300 to 1e-3 cells.
    costs = np.ones((40, 60))
    for radius in (1e-300, 1e-6, 1e-3, 0.05, 2e6):
        with pytest.raises(mmp.InvalidArgument, match="give 0.1 to 1000000 cells"):
            mmp.plan(costs, (20, 2), (20, 57), planner="rrtstar", budget=0.1, vehicle=vehicle, turning_radius=radius)
    for planner in ("rrtstar", "bitstar", "abitstar"):  # 3 cells: RRT*'s steps aborted OMPL's Dubins words
        plan = mmp.plan(costs, (20, 2), (20, 57), planner=planner, budget=0.3, vehicle=vehicle, turning_radius=3.0)
        assert plan.status in ("success", "approximate_only", "no_solution")


def test_statuses_and_bad_input():
    costs = np.ones((10, 10))
    costs[:, 5] = np.inf
    assert mmp.plan(costs, (0, 0), (0, 9)).status == "no_path"
    assert mmp.plan(costs, (0, 0), (0, 9), planner="bitstar", budget=0.1).status in ("no_solution", "approximate_only")
    with pytest.raises(mmp.InvalidArgument, match=r"start cell 5 \(row 0, col 5\) is impassable"):
        mmp.plan(costs, (0, 5), (0, 9))  # an impassable start
    with pytest.raises(mmp.InvalidArgument, match=r"goal \(row 3, col 12\) lies outside the 10 x 10 cells"):
        mmp.plan(costs, (0, 0), (3, 12))
    with pytest.raises(mmp.InvalidArgument, match="give whole"):
        mmp.plan(costs, (0.5, 0), (3, 3))
    with pytest.raises(mmp.InvalidArgument, match='planner: unknown OMPL planner "dijkstra"; valid names: rrtstar.*or astar'):
        mmp.plan(costs, (0, 0), (3, 3), planner="dijkstra")
    with pytest.raises(mmp.InvalidArgument, match="connectivity 6"):
        mmp.plan(costs, (0, 0), (3, 3), connectivity=6)
    with pytest.raises(mmp.InvalidArgument, match=r"cell 0 \(row 0, col 0\) has cost 0.000000; costs must be > 0"):
        mmp.plan(np.zeros((5, 5)), (0, 0), (3, 3))  # costs must be > 0


def test_a_budget_cancels_astar():
    plan = mmp.plan(np.ones((600, 600)), (0, 0), (599, 599), budget=1e-9)
    assert plan.status == "cancelled" and not plan.ok


def test_ctrl_c_is_handled_during_the_search():
    """A signal that arrives while A* runs has its Python handler run by the search's own checks (every 16384
    expansions), not only once the search returns: the handler that does not raise runs before the call
    returns; the one that raises KeyboardInterrupt stops it.  The timer counts the process's CPU time
    (ITIMER_VIRTUAL), and the order of events is read from a profile hook, not a clock, so that a busy
    machine changes nothing."""
    grid = mmp.CostGrid(np.random.default_rng(3).uniform(1.0, 2.0, size=(1500, 1500)))
    events = []

    def profile(frame, event, arg):
        if event == "c_return" and getattr(arg, "__name__", "") == "plan":
            events.append("returned")

    previous = signal.signal(signal.SIGVTALRM, lambda *_: events.append("handled"))
    try:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0.02)  # after 20 ms of CPU: inside a search of ~200 ms
        sys.setprofile(profile)
        try:
            plan = mmp.plan(grid, (0, 0), (1499, 1499))
        finally:
            sys.setprofile(None)
        assert plan.ok
        assert events == ["handled", "returned"]  # during the search, not when it returned

        signal.signal(signal.SIGVTALRM, signal.default_int_handler)  # as Ctrl-C: KeyboardInterrupt
        signal.setitimer(signal.ITIMER_VIRTUAL, 0.02)
        with pytest.raises(KeyboardInterrupt):
            mmp.plan(grid, (0, 0), (1499, 1499))
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
