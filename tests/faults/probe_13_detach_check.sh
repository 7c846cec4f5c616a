# Issue 27, 13: `hpo --detach` with bad input fails in the foreground (exit 2, no job id), and a job id and its log
# file are never used twice: not after a refused job's row was removed, not when a log of that name is left over.
source "$(dirname "$0")/common.sh"
need_hpo
write_trial
expect_exit 2 "hpo --detach with a missing space file" -- \
    pw hpo --detach --db r.db --space missing.yaml --command "$TRIAL_COMMAND" --trials 1 --partition SPX
refute_output 'follow it with' "no job id is given for a job that cannot start"
expect_output 'missing.yaml' "the problem names the file"
refused="$(grep -m1 'missing.yaml' "$WORK/out")"
if [[ -e r.db ]]; then
    echo "the refused --detach start created r.db"
    exit 1
fi
# A search refused in the foreground after its job was recorded (job 1, removed again)...
expect_exit 0 "study create" -- pw study create --db r.db --study other
expect_exit 2 "a refused search" -- pw hpo --db r.db --space missing.yaml --command "$TRIAL_COMMAND" --trials 1
expect_output 'pitwall: job 1 \(hpo\)' "the refused search had job 1"
# ...and a log of job 2 left over from an earlier file at this path.
mkdir -p r.db.jobs
echo "LEFTOVER from another job 2" >r.db.jobs/job-2.log
id="$(pw hpo --detach --db r.db --study s --space space.yaml --command "$TRIAL_COMMAND" --trials 1 --partition SPX \
    --sampler random 2>detach.err </dev/null)" || { cat detach.err; echo "the detached search failed to start"; exit 1; }
if [[ "$id" != 2 ]]; then
    echo "the detached search got job id '$id', expected 2 (job 1 was given before)"
    exit 1
fi
expect_exit 0 "jobs log --follow" -- pw jobs log "$id" --follow --db r.db
refute_output 'LEFTOVER' "the new job's log does not hold the old file's text"
expect_output "pitwall: job $id \(hpo\)" "the new job's log is its own"
if [[ "$(cat r.db.jobs/job-2.log)" != "LEFTOVER from another job 2" ]]; then
    echo "the leftover log was changed"
    exit 1
fi
# `train --detach` checks its configuration first too: a missing file or a bad key starts no job.
printf 'training:\n  optimization:\n    batch_size: -3\n' >bad.yaml
for config in missing.yaml bad.yaml; do
    expect_exit 2 "train --detach $config" -- pw train "$config" --detach --db t.db
    refute_output 'follow it with' "train --detach $config gives no job id"
    expect_output "$config" "train --detach $config: the problem names the file"
done
train_refused="$(grep -m1 'bad.yaml' "$WORK/out")"
if [[ -e t.db ]]; then
    echo "a refused train --detach created t.db"
    exit 1
fi
expect_exit 0 "train --check on a valid config" -- pw train "${PITWALL_SOURCE_DIR:?}/configs/transfuser/smoke.yaml" --check --db t.db
expect_output "the config is valid" "train --check says so"
echo "refused in the foreground ($refused; train: $train_refused); next ids 1 then 2, log $(ls r.db.jobs | tr '\n' ' ')"
