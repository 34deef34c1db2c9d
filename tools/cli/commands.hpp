// Subcommands of the `mmp` command line; each registers itself on the app.
#pragma once

#include <CLI/CLI.hpp>

namespace mmp::tools {

/// `mmp letters`: single-letter recognition on the OCR letters with both learners.
void addLettersCommand(CLI::App& app);
/// `mmp ocr`: word recognition with the chain model over ten folds (small or large protocol).
void addOcrCommand(CLI::App& app);
/// `mmp multilabel`: Yeast or Scene with the pairwise label model, lambda chosen on validation.
void addMultilabelCommand(CLI::App& app);

/// `mmp train CONFIG.yaml`: maximum margin planning on imagery, evaluation against baselines, panels.
void addTrainCommand(CLI::App& app);
/// Keeps main's argv so that `mmp train`, when its config trains a network, can run the program again
/// with libtorch's kernels pinned (kNetworkKernelPins, network_training.hpp): the kernels of the
/// documented figures.  It does not run again if MMP_NATIVE_KERNELS is set (not "0"), if the CPU lacks
/// AVX2 or FMA, or if the environment already holds every pin; nor without kept arguments (the tests'
/// in-process calls).
void keepArguments(char** argv);
/// Runs this program again with libtorch's kernels pinned as keepArguments says (`mmp train` for a
/// network, `mmp adapt` for a network parent); returns if it does not.
void pinNetworkKernels();

/// `mmp compare A B`: two runs' cost ratios on the same pairs, with a paired-bootstrap interval.
void addCompareCommand(CLI::App& app);

/// `mmp plan`: a saved model, an image, start and goal -> path file and picture.
void addPlanCommand(CLI::App& app);

/// `mmp costmap`: a saved model and an image -> cost-map picture and raw float map.
void addCostmapCommand(CLI::App& app);

/// `mmp adapt MODEL --image ... --demonstrations ... --out ...`: a saved model taught on a new site.
void addAdaptCommand(CLI::App& app);
/// `mmp suggest MODEL --image ... --out ...`: where to demonstrate next.
void addSuggestCommand(CLI::App& app);

/// `mmp serve [--model M] [--images FILES|DIR] [--host H] [--port P]`: the local teaching page.
void addServeCommand(CLI::App& app);

/// `mmp info MODEL`: what a model file holds and where it came from.
void addInfoCommand(CLI::App& app);

}  // namespace mmp::tools

/// The `mmp` command itself, with main's arguments: what the launcher (mmp.cpp) calls in libmmp_cli.so.
/// Returns the exit status (0, or 1 after an "mmp: error: ..." line on standard error).
extern "C" int mmp_cli_main(int argc, char** argv);
/// The version libmmp_cli.so was built as ("0.2.0"), for the launcher to check it against its own.
extern "C" const char* mmp_cli_version();
