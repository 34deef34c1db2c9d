// The libFuzzer entry of one target: compiled once per target with MMP_FUZZ_ENTRY naming its entry
// function (tests/fuzz/CMakeLists.txt), linked with -fsanitize=fuzzer.
#include "fuzz_targets.hpp"

#ifndef MMP_FUZZ_ENTRY
#error "define MMP_FUZZ_ENTRY as one of the entry functions of fuzz_targets.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return mmp::fuzz::MMP_FUZZ_ENTRY(data, size);
}
