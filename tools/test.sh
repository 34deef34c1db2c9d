#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds mmp in build/ and runs every test through CTest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
MMP_PACKAGES+=("${MMP_TEST_PACKAGES[@]}")
mmp_install_packages
mmp_build
cd "$MMP_BUILD_DIR"
ctest --output-on-failure -j"$(nproc)"
