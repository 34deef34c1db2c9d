#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds mmp and runs the main demo: maximum margin planning on the
# embedded synthetic aerial scene (no external data), for both behaviours of Figure 2 -- follow the
# road (configs/demo.yaml -> out/demo/) and hide in the vegetation (configs/demo_hide_in_vegetation.yaml
# -> out/demo_hide_in_vegetation/) -- each writing the model, panels, a training curve and metrics.json.
# Extra arguments go to both `mmp train` runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
mmp_install_packages
mmp_build mmp  # the command alone: the demo runs nothing else
cd "$MMP_SOURCE_DIR"
"$MMP_BUILD_DIR/bin/mmp" train configs/demo.yaml "$@"
"$MMP_BUILD_DIR/bin/mmp" train configs/demo_hide_in_vegetation.yaml "$@"
