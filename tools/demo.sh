#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds mmp and runs the main demo: maximum margin planning on the
# embedded synthetic aerial scene (no external data), writing the model, Figure-2-style panels, a
# training curve and metrics.json to out/demo/.  Extra arguments go to `mmp train`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
mmp_install_packages
mmp_build
cd "$MMP_SOURCE_DIR"
"$MMP_BUILD_DIR/bin/mmp" train configs/demo.yaml "$@"
