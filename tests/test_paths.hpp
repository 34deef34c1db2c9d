// The paths the test suites need: the checkout, the mmp executable, the shared data sets and the fuzz
// corpora.  Only test_paths.cpp is compiled with them, so that no other test file depends on where
// the checkout is (a fresh clone in another folder reuses their ccache entries).
#pragma once

#include <string>

namespace mmp::test {

const char* sourceDir();   ///< the checkout
const char* executable();  ///< the mmp command line built with the suites
const char* fuzzDir();     ///< tests/fuzz

/// A file of the shared data sets: under $MMP_DATA_ROOT if set, else ../shared/data beside the checkout.
std::string sharedDataPath(const std::string& relative);

}  // namespace mmp::test
