#!/usr/bin/env bash
# Lists the skips of the last CTest run in a build folder, and fails on a silent one.
# Usage: bash packaging/check-skips.sh [build dir]   (default: PITWALL_BUILD_DIR or <checkout>/build)
#
# A test may skip only for an optional component, one that packaging/install-deps.sh cannot install, and only
# through PITWALL_SKIP_OPTIONAL (tests/support/components.h): its executable then exits 77 and CTest counts it as
# skipped ("Not Run"). A missing component that the script installs is a failure (PITWALL_FAIL_MISSING). So:
#  - a QSKIP written anywhere else in tests/ is refused, whether or not it ran;
#  - a test that CTest counted as passed although Qt Test printed SKIP is a silent skip, and is refused;
#  - the optional skips are listed, and allowed.
# Exit status 1 when anything was refused, else 0.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${PITWALL_BUILD_DIR:-$root/build}}"
log="$build/Testing/Temporary/LastTest.log"
refused=0

direct=$(cd "$root" && grep -rn --include='*.cpp' --include='*.h' 'QSKIP(' tests | grep -v '^tests/support/components.h:' || true)
if [ -n "$direct" ]; then
  echo "pitwall: QSKIP outside tests/support/components.h (CTest would count the test as passed):"
  sed 's/^/  /' <<< "$direct"
  refused=1
fi

if [ ! -f "$log" ]; then
  echo "pitwall: no CTest log at $log"
  exit 1
fi
# LastTest.log: per test "N/M Test: name", its output with Qt Test's "SKIP   : Class::function() why" lines,
# then "Test Passed.", "Test Failed." or a line with "Skipped" for an exit status that matched SKIP_RETURN_CODE.
report=$(awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3; why = "" }
  /^SKIP   : / && why == "" { why = substr($0, 10) }
  /^Test Passed\./ && why != "" { print "silent\t" name "\t" why }
  /^Test (Skipped|Not Run)/ || /^Skipped/ { print "optional\t" name "\t" why }
' "$log")
silent=$(awk -F'\t' '$1 == "silent" { print "  " $2 ": " $3 }' <<< "$report")
optional=$(awk -F'\t' '$1 == "optional" { print "  " $2 ": " $3 }' <<< "$report")
if [ -n "$optional" ]; then
  echo "pitwall: skipped for a missing optional component:"
  echo "$optional"
fi
if [ -n "$silent" ]; then
  echo "pitwall: silent skips, counted as passed by CTest (use PITWALL_FAIL_MISSING or PITWALL_SKIP_OPTIONAL):"
  echo "$silent"
  refused=1
fi
exit "$refused"
