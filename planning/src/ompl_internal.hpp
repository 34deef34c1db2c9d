// Internal to mmp::planning_ompl: what its grid and vehicle objects share.  OMPL logs to the console
// through one process-wide handler, and mmp never prints.
#pragma once

#include <mmp/planning/cost_grid.hpp>

#include <memory>

namespace mmp::detail {

/// Replaces OMPL's output handler by one that drops everything and sets its log level to none, once
/// per process (thread-safe); every entry point that makes OMPL objects calls it first.
void silenceOmpl();

/// The grid itself; throws mmp::InvalidArgument if there is none, it is empty or its cost vector is
/// not rows x cols long.
std::shared_ptr<const CostGrid> checkedGrid(std::shared_ptr<const CostGrid> grid);

}  // namespace mmp::detail
