# Issue 27, 8 (command output): a trial command printing a 100 MB line without a newline, and 100 MB on stderr. The
# worker keeps 1 MiB of the line (its peak memory grows by less than 32 MB, measured by the command from its
# parent's VmHWM), trial.log keeps its head and tail (under 4 MB) and says what it left out, and the trial completes.
source "$(dirname "$0")/common.sh"
need_hpo
printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >space.yaml
cat >trial.sh <<SH
#!/bin/sh
hwm() { sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' /proc/\$PPID/status; }
before=\$(hwm)
head -c 100000000 /dev/zero | tr '\\0' e >&2
head -c 100000000 /dev/zero | tr '\\0' x
echo
echo \$(( \$(hwm) - before )) >"$WORK/growth_kb"
echo "{\"objective\": \$1}"
SH
expect_exit 0 "a search whose command floods its output" -- \
    pw hpo --db r.db --study s --command "/bin/sh $WORK/trial.sh {x}" --space space.yaml --trials 1 \
    --sampler random --pruner none --partition SPX
growth="$(cat growth_kb)"
if [[ -z "$growth" || "$growth" -ge 32768 ]]; then
    echo "the worker's peak memory grew by ${growth:-?} kB"
    exit 1
fi
log="$(find runs -name trial.log | head -n 1)"
size="$(stat -c %s "$log")"
if [[ "$size" -ge 4000000 ]]; then
    echo "trial.log is $size bytes"
    exit 1
fi
grep -q 'bytes of output left out here' "$log" || { echo "trial.log does not say what it left out"; exit 1; }
grep -q 'the line above was 100000000 bytes long: only its first 1048576 are kept' "$log" ||
    { echo "trial.log does not say the line was cut"; exit 1; }
echo "worker peak memory +${growth} kB, trial.log $size bytes: $(grep -m1 -o '[0-9]* bytes of output left out' "$log")"
