#!/usr/bin/env bash
# Lists the skips of a CTest run, and fails on a silent one.
# Usage: bash packaging/check-skips.sh [junit.xml]   (default: <build>/Testing/ctest-junit.xml, which
#        packaging/test.sh has CTest write with --output-junit; <build> is PITWALL_BUILD_DIR or <checkout>/build)
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
junit="${1:-${PITWALL_BUILD_DIR:-$root/build}/Testing/ctest-junit.xml}"
refused=0

direct=$(cd "$root" && grep -rn --include='*.cpp' --include='*.h' 'QSKIP(' tests | grep -v '^tests/support/components.h:' || true)
if [ -n "$direct" ]; then
  echo "pitwall: QSKIP outside tests/support/components.h (CTest would count the test as passed):"
  sed 's/^/  /' <<< "$direct"
  refused=1
fi

if [ ! -f "$junit" ]; then
  echo "pitwall: no CTest JUnit report at $junit"
  exit 1
fi
# CTest's JUnit report: per test <testcase name="..." status="run|fail|notrun|disabled">, with the test's output
# (Qt Test's "SKIP   : Class::function() why" lines) in <system-out>; "notrun" is also SKIP_RETURN_CODE's skip.
report=$(awk '
  function attr(line, key) {
    if (!match(line, key "=\"[^\"]*\"")) return ""
    return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
  }
  function unescape(text) {
    gsub(/&lt;/, "<", text); gsub(/&gt;/, ">", text); gsub(/&quot;/, "\"", text); gsub(/&apos;/, "\047", text)
    gsub(/&amp;/, "\\&", text)
    return text
  }
  /<testcase / { name = attr($0, "name"); status = attr($0, "status"); why = "" }
  /^SKIP   : / && why == "" { why = unescape(substr($0, 10)) }
  /<\/testcase>/ || /<testcase .*\/>/ {
    if (status == "notrun" && why != "") print "optional\t" name "\t" why
    else if (status == "run" && why != "") print "silent\t" name "\t" why
  }
' "$junit")
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
