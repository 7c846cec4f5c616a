# Issue 27, 6: processes a trial command leaves behind are stopped when the trial ends: one in a session of its own
# (setsid) and one orphaned by a double fork inside the command's process group.
source "$(dirname "$0")/common.sh"
need_hpo
printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >space.yaml
cat >trial.sh <<SH
#!/bin/sh
setsid sh -c 'echo \$\$ >"$WORK/setsid.pid"; exec sleep 1000' </dev/null >/dev/null 2>&1 &
( sh -c 'echo \$\$ >"$WORK/forked.pid"; exec sleep 1000' </dev/null >/dev/null 2>&1 & )
while [ ! -s "$WORK/setsid.pid" ] || [ ! -s "$WORK/forked.pid" ]; do sleep 0.05; done
echo "{\"objective\": \$1}"
SH
expect_exit 0 "a search whose trial leaves two processes running" -- \
    pw hpo --db r.db --study s --command "/bin/sh $WORK/trial.sh {x}" --space space.yaml --trials 1 \
    --sampler random --pruner none --partition SPX
left=()
for f in setsid.pid forked.pid; do
    pid="$(cat "$f")"
    if kill -0 "$pid" 2>/dev/null && [[ "$(cut -d')' -f2 "/proc/$pid/stat" | cut -d' ' -f2)" != Z ]]; then
        left+=("$pid")
        kill -9 "$pid"
    fi
done
if [[ ${#left[@]} -gt 0 ]]; then
    echo "still running after the search: ${left[*]}"
    exit 1
fi
log="$(find runs -name trial.log | head -n 1)"
if ! grep -q 'stopped 2 process(es) that trial 0 left running' "$log"; then
    cat "$log"
    echo "the trial's log does not name what was stopped"
    exit 1
fi
echo "$(grep -m1 -o 'stopped 2 process.*' "$log")"
