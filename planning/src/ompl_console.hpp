// Internal to mmp::planning_ompl: OMPL logs to the console through one process-wide handler, and
// mmp never prints.
#pragma once

namespace mmp::detail {

/// Replaces OMPL's output handler by one that drops everything and sets its log level to none, once
/// per process (thread-safe); every entry point that makes OMPL objects calls it first.
void silenceOmpl();

}  // namespace mmp::detail
