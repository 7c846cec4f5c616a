# Issue 27, 10: `jobs stop --now` signals only the job's own process. A running job's record names the pid of an
# unrelated process (as after pid reuse, or in an edited shared file): the stop must leave that process alone and
# say that the job's process is gone.
source "$(dirname "$0")/common.sh"
command -v python3 >/dev/null || { echo "python3 is needed to record the job"; exit 77; }
[[ -r /proc/self/stat ]] || { echo "no /proc here"; exit 77; }
expect_exit 0 "study create" -- pw study create --db r.db --study s
sleep 1000 &
victim=$!
trap 'kill -9 $victim 2>/dev/null' EXIT
# Field 22 of /proc/PID/stat: the 20th after the command's closing parenthesis.
start="$(sed 's/.*) //' "/proc/$victim/stat" | awk '{ print $20 }')"
# Job 1: the pid with another start time (a reused pid); job 2: the pid without a start time (an edited record).
python3 - "$WORK/r.db" "$(hostname)" "$victim" "$((start + 1))" <<'PY'
import sqlite3, sys, time
path, host, pid, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(path)
t = time.time()
for process_start in (start, None):
    db.execute("INSERT INTO pitwall_jobs (kind, spec_json, state, host, pid, process_start, create_time, start_time, "
               "heartbeat_time, progress, progress_message, error, log_file) VALUES ('train', '{}', 'running', ?, ?, "
               "?, ?, ?, ?, 0, '', '', '')", (host, pid, process_start, t, t, t))
db.commit()
PY
for job in 1 2; do
    expect_exit 1 "jobs stop $job --now" -- pw jobs stop "$job" --now --db r.db
    expect_output 'not signalled|was not signalled' "the stop says nothing was signalled"
    if ! kill -0 "$victim" 2>/dev/null; then
        echo "jobs stop $job --now killed pid $victim, which is not the job's process"
        exit 1
    fi
done
echo "pid $victim left alone: $(head -n 1 "$WORK/out")"
