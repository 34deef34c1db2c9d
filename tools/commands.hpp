// Subcommands of the `mmp` command line; each registers itself on the app.
#pragma once

#include <CLI/CLI.hpp>

namespace mmp::tools {

/// `mmp letters`: single-letter recognition on the OCR letters with both learners.
void addLettersCommand(CLI::App& app);
/// `mmp ocr`: word recognition with the chain model over ten folds (small or large protocol).
void addOcrCommand(CLI::App& app);

}  // namespace mmp::tools
