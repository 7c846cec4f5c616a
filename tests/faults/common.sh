# Sourced by the probes: small helpers. Each probe runs in its own empty folder ($WORK).
set -uo pipefail
pw() { "$PITWALL_CLI" "$@"; }
# expect_exit CODE DESCRIPTION -- COMMAND...: runs it, keeps stdout+stderr in $WORK/out, fails the probe on another
# exit status.
expect_exit() {
    local want=$1 what=$2
    shift 3
    "$@" >"$WORK/out" 2>&1 </dev/null
    local got=$?
    if [[ $got -ne $want ]]; then
        cat "$WORK/out"
        echo "$what: exit $got, expected $want"
        exit 1
    fi
}
# expect_output REGEX DESCRIPTION: the last command's output matches.
expect_output() {
    if ! grep -Eq -- "$1" "$WORK/out"; then
        cat "$WORK/out"
        echo "$2: output lacks /$1/"
        exit 1
    fi
}
refute_output() {
    if grep -Eq -- "$1" "$WORK/out"; then
        cat "$WORK/out"
        echo "$2: output has /$1/"
        exit 1
    fi
}
# Probes that run searches need `pitwall hpo` (the engine module); without it they cannot stage the fault.
need_hpo() {
    if ! "$PITWALL_CLI" hpo --help >/dev/null 2>&1; then
        echo "pitwall hpo is not available in this build (no engine module)"
        exit 77
    fi
}
# A trial command that reports x as its objective, and the one-parameter space it samples.
write_trial() {
    printf '#!/bin/sh\necho "{\\"objective\\": $1}"\n' >"$WORK/trial.sh"
    printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >"$WORK/space.yaml"
    TRIAL_COMMAND="/bin/sh $WORK/trial.sh {x}"
}
# Confirmations of resumed commands go to this probe's own state folder, not the user's.
export XDG_STATE_HOME="$WORK/state"
