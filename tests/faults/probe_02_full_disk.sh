# Issue 27, 2: with --best-params (and logs) on a full file system, `hpo` printed "best parameters written to ..."
# and exited 0 with a 0-byte file. Every file Pitwall writes is checked: a full disk is an error naming the file,
# exit 1. Staged on a small ext4 file system filled up (a loop mount, as root), else on /dev/full, where every write
# fails with ENOSPC as on a full disk.
source "$(dirname "$0")/common.sh"
full="$WORK/full"
staged="/dev/full (no loop mount here)"
mkdir -p "$full"
if dd if=/dev/zero of="$WORK/disk.img" bs=1M count=4 status=none && mkfs.ext4 -q -F -m 0 "$WORK/disk.img" 2>/dev/null &&
    mount -o loop "$WORK/disk.img" "$full" 2>/dev/null; then
    trap 'umount "$full" 2>/dev/null' EXIT
    mkdir "$full/logs" # a --log-dir that exists, on the disk about to be full
    # Until the file system is full: no blocks reserved for root (-m 0), and filled again after a sync, since
    # delayed allocation gives back blocks it had reserved.
    dd if=/dev/zero of="$full/filler" bs=1k status=none 2>/dev/null
    sync
    dd if=/dev/zero of="$full/filler2" bs=1k status=none 2>/dev/null
    sync
    staged="a full 4 MiB ext4 loop mount"
    out_file="$full/export.csv"
    best="$full/best_params.yaml"
    stdout_file="$full/schema.txt"
    log_dir="$full/logs"
else
    log_dir=""
    out_file=/dev/full
    best=/dev/full
    stdout_file=/dev/full
fi
# A results file with a study of one trial to export (on the healthy disk).
write_trial
if pw hpo --help >/dev/null 2>&1; then
    expect_exit 0 "a one-trial search" -- pw hpo --db results.db --study s --space space.yaml \
        --command "$TRIAL_COMMAND" --trials 1
    expect_exit 1 "db export --out on the full disk" -- pw db export --db results.db --study s --out "$out_file"
    expect_output "cannot write $out_file: No space left on device" "db export names the file and the reason"
fi
# Standard output on the full disk (what a detached job's log is).
pw config schema >"$stdout_file" 2>"$WORK/out"
rc=$?
if [[ $rc -ne 1 ]]; then
    cat "$WORK/out"
    echo "config schema > full disk: exit $rc, expected 1"
    exit 1
fi
expect_output 'cannot write its output to standard output' "a lost standard output is reported"
need_hpo
expect_exit 1 "hpo --best-params on the full disk" -- pw hpo --db results2.db --study s2 --space space.yaml \
    --command "$TRIAL_COMMAND" --trials 1 --best-params "$best"
expect_output "$best" "the failure names best_params.yaml's path"
refute_output 'best parameters written' "success is claimed"
logs=""
if [[ -n "$log_dir" ]]; then
    # --log-dir on the full disk: the worker's own log there stays empty, so why its trials fail is in the results
    # database, and the search fails (exit 1) saying it.
    expect_exit 1 "hpo --log-dir on the full disk" -- pw hpo --db results3.db --study s3 --space space.yaml \
        --command "$TRIAL_COMMAND" --trials 1 --log-dir "$log_dir"
    expect_output "trial 0 FAIL: cannot create the trial's folder $log_dir/trial_0: No space left on device" \
        "the trial's failure names the folder and the reason"
    expect_exit 1 "hpo --log-dir NEW on the full disk" -- pw hpo --db results4.db --study s4 --space space.yaml \
        --command "$TRIAL_COMMAND" --trials 1 --log-dir "$full/new-logs"
    expect_output "No space left on device.*$full/new-logs" "a log folder that cannot be made is named"
    logs=", hpo --log-dir"
fi
echo "on $staged: db export --out, a command's standard output$logs and hpo --best-params each fail with exit 1 naming the file"
