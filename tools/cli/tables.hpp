// The tables `mmp train` and `mmp adapt` print from their metrics JSON (train_metrics.hpp).
#pragma once

#include <mmp/frontend/json_output.hpp>

namespace mmp::tools {

/// Prints the table of methods (methodsJson: {method: summaryJson}), in its order.
void printMethodTable(const Json& methods);
/// Prints, for each baseline of comparisonsJson, how much lower the learned mean cost ratio is on the
/// same pairs, with its 95 % paired-bootstrap interval.
void printComparisons(const Json& comparisons);

}  // namespace mmp::tools
