#!/usr/bin/env bash
# The fault probes of tests/faults/: each probe_<NN>_<what>.sh replays one fault from outside, the way a user or a
# broken machine meets it (a replaced database, a full disk, a stopped trial, racing resumes, hostile files), against
# the real `pitwall` ($PITWALL_CLI). Each runs in a fresh empty folder (its working directory, also $WORK) and
# exits 0 when Pitwall handled the fault, 1 when it did not, 77 when this machine cannot stage the fault (no root
# for a loop mount, say); its last line of output says what happened. This script runs them all and prints a
# table; it exits 1 if any probe failed. Run: ctest -R '^faults$' --output-on-failure (or PITWALL_CLI=... bash run.sh
# [PATTERN]).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${PITWALL_CLI:?PITWALL_CLI must name the pitwall executable (ctest sets it)}"
export PITWALL_CLI
pattern="${1:-}"
failed=0
passed=0
skipped=0
printf '%-36s %-6s %s\n' probe result "what happened"
for probe in "$here"/probe_*.sh; do
    name="$(basename "$probe" .sh)"
    [[ -n "$pattern" && "$name" != *"$pattern"* ]] && continue
    work="$(mktemp -d "${TMPDIR:-/tmp}/pitwall-fault.XXXXXX")"
    log="$work.log"
    (cd "$work" && WORK="$work" timeout 240 bash "$probe") >"$log" 2>&1
    rc=$?
    last="$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
    case $rc in
    0) result=pass; passed=$((passed + 1)) ;;
    77) result=skip; skipped=$((skipped + 1)) ;;
    *) result=FAIL; failed=$((failed + 1)) ;;
    esac
    printf '%-36s %-6s %s\n' "$name" "$result" "$last"
    if [[ $result == FAIL ]]; then
        echo "---- output of $name (exit $rc) ----"
        cat "$log"
        echo "----"
    fi
    rm -rf "$work" "$log"
done
echo "faults: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
