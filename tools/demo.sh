#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds mmp and runs the main demo.  Extra arguments go to the demo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
mmp_install_packages
mmp_build
"$MMP_BUILD_DIR/bin/mmp" letters "$@"
