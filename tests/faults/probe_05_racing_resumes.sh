# Issue 27, 5: four `jobs resume` of one failed job at once: exactly one resumes it (one header in its log), the
# others say it is already resuming. The resumed trials wait until every resume has answered (for a file this
# probe creates), so that no resume can come after the resumed job ended.
source "$(dirname "$0")/common.sh"
need_hpo
command -v python3 >/dev/null || { echo "python3 is needed to record a failed job"; exit 77; }
printf '%s\n' '#!/bin/sh' "if [ -e '$WORK/hold' ]; then while [ ! -e '$WORK/release' ]; do sleep 0.1; done; fi" \
    'echo "{\"objective\": $1}"' >trial.sh
printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >space.yaml
expect_exit 0 "the first search" -- pw hpo --db r.db --study s --command "/bin/sh $WORK/trial.sh {x}" \
    --space space.yaml --trials 1 --partition SPX
# A search of study s that failed an hour ago: job 100.
python3 - "$WORK" "$(hostname)" <<'PY'
import json, sqlite3, sys, time
work, host = sys.argv[1], sys.argv[2]
db = sqlite3.connect(work + "/r.db")
spec = {"kind": "hpo", "argv": ["hpo", "--resume", "s", "--trials", "3", "--partition", "SPX"], "cwd": work,
        "db": work + "/r.db"}
t = time.time() - 3600
db.execute("INSERT INTO pitwall_jobs (job_id, kind, spec_json, state, host, pid, create_time, start_time, end_time, "
           "heartbeat_time, progress, progress_message, exit_code, error, log_file) "
           "VALUES (100, 'hpo', ?, 'failed', ?, 0, ?, ?, ?, ?, 0, '', 1, 'exit status 1', '')",
           (json.dumps(spec), host, t, t, t, t))
db.execute("INSERT INTO pitwall_job_links (job_id, kind, ref) VALUES (100, 'study', 's')")
db.commit()
PY
touch hold
for i in 1 2 3 4; do
    pw jobs resume 100 --db r.db >"resume$i.out" 2>&1 </dev/null &
    pids[i]=$!
done
started=0
for i in 1 2 3 4; do
    wait "${pids[i]}"
    rc=$?
    if [[ $rc -eq 0 ]]; then
        started=$((started + 1))
    elif ! grep -q 'job 100 is already resuming' "resume$i.out"; then
        cat "resume$i.out"
        echo "resume $i: exit $rc without saying the job is already resuming"
        touch release
        exit 1
    fi
done
touch release
if [[ $started -ne 1 ]]; then
    cat resume*.out
    echo "$started of 4 racing resumes started the job, expected 1"
    exit 1
fi
expect_exit 0 "jobs log --follow" -- pw jobs log 100 --follow --db r.db
headers="$(grep -c 'pitwall: job 100 (hpo)' "$WORK/out")"
if [[ $headers -ne 1 ]]; then
    echo "the job's log has $headers headers, expected 1"
    exit 1
fi
others="$(grep -h -m1 -o 'job 100 is already resuming[^;]*' resume*.out | head -n 1)"
echo "1 of 4 racing resumes ran the job; the others: $others"
