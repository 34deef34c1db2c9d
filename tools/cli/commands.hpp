// Subcommands of the `mmp` command line; each registers itself on the app.
#pragma once

#include <CLI/CLI.hpp>
#include <mmp/maps/training/network_backend.hpp>

#include <string>

namespace mmp::tools {

/// `mmp letters`: single-letter recognition on the OCR letters with both learners.
void addLettersCommand(CLI::App& app);
/// `mmp ocr`: word recognition with the chain model over ten folds (small or large protocol).
void addOcrCommand(CLI::App& app);
/// `mmp multilabel`: Yeast or Scene with the pairwise label model, lambda chosen on validation.
void addMultilabelCommand(CLI::App& app);

/// `mmp train CONFIG.yaml`: maximum margin planning on imagery, evaluation against baselines, panels.
void addTrainCommand(CLI::App& app);

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

/// Registers the network backend of the commands' own copy of maps_training (libmmp_cli.so hides the static
/// libraries it links, so a program that links them too has its own): what mmp_cli_main does with the
/// launcher's loader, and what a program that calls the commands itself (tests/cli) does with its own.
void useNetworkBackend(NetworkBackendLoader load);

/// The folder of the running `mmp` program, as the launcher gave it ("" in a program that calls the
/// commands itself): an installed mmp's configs and models are in <it>/../share/mmp.
const std::string& programFolder();

}  // namespace mmp::tools

/// The `mmp` command itself, with main's arguments: what the launcher (mmp.cpp) calls in libmmp_cli.so.
/// `program_folder` is the launcher's own folder (programFolder); `load_torch` loads libtorch's module when a network is first trained (registered as the network
/// backend, network_backend.hpp; the launcher's is network_module.hpp's loadTorchModule).  Returns the
/// exit status (0, or 1 after an "mmp: error: ..." line on standard error).
extern "C" int mmp_cli_main(int argc, char** argv, const char* program_folder,
                            const mmp::NetworkTorchModule* (*load_torch)(std::string& why));
/// The version libmmp_cli.so was built as ("0.2.0"), for the launcher to check it against its own.
extern "C" const char* mmp_cli_version();
