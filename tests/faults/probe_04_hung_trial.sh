# Issue 27, 4: a hung trial is noticed. A command that never ends fails at --trial-timeout and its process is gone;
# a command that stops itself (SIGSTOP) and a worker stopped by its command fail for "no progress". Each trial does
# the damage itself, so nothing depends on when the probe looks.
source "$(dirname "$0")/common.sh"
need_hpo
printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >space.yaml
# hang.sh never ends: its pid goes to hang.pid, then it waits.
printf '#!/bin/sh\necho $$ >"%s/hang.pid"\necho "{\\"step\\": 0, \\"value\\": $1}"\nexec sleep 1000\n' "$WORK" >hang.sh
# stop.sh stops itself; stopworker.sh stops its parent, the worker.
printf '#!/bin/sh\necho "{\\"step\\": 0, \\"value\\": $1}"\nkill -STOP $$\nsleep 1000\n' >stop.sh
printf '#!/bin/sh\necho "{\\"step\\": 0, \\"value\\": $1}"\nkill -STOP $PPID\nexec sleep 1000\n' >stopworker.sh
search() { # SCRIPT STUDY OPTIONS...
    local script=$1 study=$2
    shift 2
    pw hpo --db r.db --study "$study" --command "/bin/sh $WORK/$script {x}" --space space.yaml --trials 1 \
        --sampler random --pruner none --partition SPX --term-grace 1 "$@"
}
expect_exit 1 "a trial that never ends" -- search hang.sh hang --trial-timeout 2
expect_output 'trial 0 FAIL: exceeded --trial-timeout 2 s' "the reason names the time limit"
timeout_line="$(grep -m1 'exceeded --trial-timeout' "$WORK/out")"
if kill -0 "$(cat hang.pid)" 2>/dev/null; then
    echo "the timed-out command $(cat hang.pid) still runs"
    kill -9 "$(cat hang.pid)"
    exit 1
fi
expect_exit 1 "a command that stops itself" -- search stop.sh stop --heartbeat-interval 0.2 --heartbeat-grace 1
expect_output 'trial 0 FAIL: no progress for [0-9]+ s \(stopped\?\): pid [0-9]+ \(sh\) of the trial is stopped' \
    "the reason names the stopped command"
expect_exit 1 "a stopped worker" -- search stopworker.sh stopworker --heartbeat-interval 0.2 --heartbeat-grace 1
expect_output 'trial 0 FAIL: no progress for [0-9]+ s \(stopped\?\): its worker \(pid [0-9]+\) is stopped' \
    "the reason names the stopped worker"
echo "failed, not hung: ${timeout_line#*FAIL: }; $(grep -m1 -o 'no progress.*is stopped' "$WORK/out")"
