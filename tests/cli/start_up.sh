#!/usr/bin/env bash
# The `mmp` launcher (tools/cli/mmp.cpp): `--version` loads none of the command libraries, a command loads
# no libtorch (only network training does, from libmmp_torch.so), and under an address-space limit too
# tight for the libraries a command says it needs more memory instead of hanging or aborting.
#   start_up.sh MMP MODEL [--no-limits]    (--no-limits: the sanitizer build, whose shadow memory no
#                                           `ulimit -v` allows, checks the rest only)
set -uo pipefail
mmp="$1" model="$2" limits=1
[[ ${3:-} == --no-limits ]] && limits=0
failed=0
check() {  # check NAME CONDITION-STATUS DETAIL
  if [[ $2 -eq 0 ]]; then echo "ok: $1"; else echo "FAILED: $1: $3"; failed=1; fi
}

version="$("$mmp" --version)"
[[ $version =~ ^mmp\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
check "--version prints the version" $? "got '$version'"

loaded="$(LD_DEBUG=files "$mmp" --version 2>&1 | grep -c 'file=.*\(gdal\|opencv\|torch\|blas\|libmmp_cli\)')"
[[ $loaded -eq 0 ]]
check "--version loads no command library" $? "$loaded of GDAL, OpenCV, libtorch, BLAS or libmmp_cli loaded"

info="$(LD_DEBUG=files "$mmp" info "$model" 2>&1)"
grep -q 'file=.*libmmp_cli.so' <<< "$info"
check "mmp info loads libmmp_cli.so" $? "no libmmp_cli.so in LD_DEBUG's list"
torch="$(grep -c 'file=.*\(libtorch\|libdnnl\|mmp_torch\)' <<< "$info")"
[[ $torch -eq 0 ]]
check "mmp info loads no libtorch" $? "$torch libtorch libraries loaded"

if ((limits)); then
  small="$(ulimit -v 65536 && "$mmp" --version 2>&1)"
  [[ $small == "$version" ]]
  check "--version runs in 64 MiB of address space" $? "got '$small'"
  tight="$(ulimit -v 307200 && timeout 60 "$mmp" info "$model" 2>&1)"
  status=$?
  [[ $status -eq 1 && $tight == *"mmp: error: mmp needs more memory"*"ulimit -v"* ]]
  check "mmp info in 300 MiB says it needs more memory" $? "exit $status, '$tight'"
  roomy="$(ulimit -v 1048576 && timeout 60 "$mmp" info "$model" 2>&1)"
  status=$?
  [[ $status -eq 0 && $roomy == *"behaviour"* ]]
  check "mmp info runs in 1 GiB" $? "exit $status, '${roomy:0:300}'"
fi
exit $failed
