// What the command line says when a command fails: the message of an mmp::Error (which names the
// file, key, line or cell), and a plain "out of memory" for the allocation failures of the standard
// library and OpenCV, whose own messages do not say so.
#pragma once

#include <exception>
#include <string>

namespace mmp::tools {

std::string describeFailure(const std::exception& e);

}  // namespace mmp::tools
