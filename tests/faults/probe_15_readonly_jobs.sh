# Issue 27, 15: on a read-only mount (or folder), `jobs list` and `jobs show` work like `study list` and `db info`,
# write nothing, and `jobs stop` says the file cannot be written here. As root, file modes do not apply: the folder
# is bind-mounted read-only in a mount namespace of its own (unshare), else the commands run as nobody.
source "$(dirname "$0")/common.sh"
command -v python3 >/dev/null || { echo "python3 is needed to record a job"; exit 77; }
mkdir ro
expect_exit 0 "study create" -- pw study create --db ro/r.db --study s
python3 - "$WORK/ro/r.db" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
t = time.time()
db.execute("INSERT INTO pitwall_jobs (kind, spec_json, state, host, pid, create_time, start_time, end_time, "
           "heartbeat_time, progress, progress_message, exit_code, error, log_file) VALUES ('train', "
           "'{\"argv\": [\"train\", \"x.yaml\"]}', 'finished', 'h', 0, ?, ?, ?, ?, 1, '', 0, '', '')", (t, t, t, t))
db.commit()
PY
before="$(cd ro && sha256sum r.db && ls -A)"
# The reading commands, then a stop; each one's output in NAME.out and its exit status in rc.txt.
printf '%s\n' \
    'cd "$1"' \
    'for c in "study list" "db info" "jobs list --all" "jobs show 1" "jobs stop 1"; do' \
    '    "$PITWALL_CLI" $c --db ro/r.db >"${c// /_}.out" 2>&1 </dev/null; echo "$c: $?" >>rc.txt' \
    'done' >reads.sh
staged=""
if [[ $(id -u) -ne 0 ]]; then
    chmod 0555 ro
    bash reads.sh "$WORK"
    staged="a read-only folder"
elif unshare -m sh -c 'mount --bind "$0/ro" "$0/ro" && mount -o remount,ro,bind "$0/ro" "$0/ro" &&
        ! touch "$0/ro/probe" 2>/dev/null && bash "$0/reads.sh" "$0"' "$WORK" 2>/dev/null; then
    staged="a read-only bind mount"
elif command -v setpriv >/dev/null; then
    rm -f rc.txt
    chmod 0555 ro
    chmod 0444 ro/r.db
    chmod 0777 "$WORK"
    setpriv --reuid=65534 --regid=65534 --clear-groups bash reads.sh "$WORK"
    staged="a read-only folder (as nobody)"
fi
chmod 0755 ro 2>/dev/null
[[ -n "$staged" ]] || { echo "cannot make a read-only folder here (no mount namespace, no setpriv)"; exit 77; }
for c in "study list" "db info" "jobs list --all" "jobs show 1"; do
    if ! grep -qx "$c: 0" rc.txt; then
        cat rc.txt "${c// /_}.out"
        echo "$c failed on $staged"
        exit 1
    fi
done
grep -q 'finished' jobs_list_--all.out || { cat jobs_list_--all.out; echo "jobs list lacks the job"; exit 1; }
grep -qx 'jobs stop 1: 2' rc.txt || { cat rc.txt jobs_stop_1.out; echo "jobs stop: expected exit 2"; exit 1; }
grep -q 'cannot be written here' jobs_stop_1.out || { cat jobs_stop_1.out; echo "jobs stop does not say why"; exit 1; }
if [[ "$(cd ro && sha256sum r.db && ls -A)" != "$before" ]]; then
    echo "reading changed the folder: $(ls -A ro)"
    exit 1
fi
echo "on $staged: study list, db info, jobs list, jobs show work; jobs stop: $(head -n 1 jobs_stop_1.out)"
