# Issue 27, 11: a config that includes a 0600 shadow-style file printed its whole line (the hash) in "unknown key
# '...'", also into a detached job's log; and a symbolic link planted where a job's log goes was followed. Now a
# key that does not look like one is quoted as a short excerpt, logs are created 0600, and a planted link is never
# written through.
source "$(dirname "$0")/common.sh"
secret='$6$abcdefgh$XYZsecretHASHvalue0123456789'
printf 'root:%s:19000:0:99999:7:::\n' "$secret" >shadow
chmod 600 shadow
printf 'include: shadow\n' >config.yaml
expect_exit 2 "config validate config.yaml (including shadow)" -- pw config validate config.yaml
refute_output 'XYZsecret|19000' "the shadow line is quoted"
expect_output "shadow:1:1: unknown key 'root…'" "the key is quoted as a short excerpt"
excerpt="$(grep -o "unknown key.*" "$WORK/out" | head -n 1)"
# A detached job whose log name already holds a link to a file of the user: the file stays untouched.
need_hpo
write_trial
mkdir -p results.db.jobs
printf 'untouched\n' >victim
ln -s "$WORK/victim" results.db.jobs/job-1.log
pw hpo --db results.db --study s --space space.yaml --command "$TRIAL_COMMAND" --trials 1 --detach >"$WORK/out" 2>&1
if [[ "$(cat victim)" != untouched ]]; then
    echo "the job wrote through the planted link into $(readlink results.db.jobs/job-1.log)"
    exit 1
fi
# Refused naming the link, or started with a log of another name: either way nothing went through it.
if grep -q 'job-1.log is a symbolic link' "$WORK/out"; then
    link_result="refused: $(grep -o 'job-1.log is a symbolic link[^(]*' "$WORK/out")"
else
    link_result="not followed (the job logs elsewhere)"
fi
# A job's log is created 0600 (it was 0644).
pw hpo --db other.db --study s --space space.yaml --command "$TRIAL_COMMAND" --trials 1 --detach >"$WORK/out" 2>&1
logs=(other.db.jobs/*.log)
if [[ ! -f "${logs[0]}" ]]; then
    cat "$WORK/out"
    echo "the detached job made no log under other.db.jobs/"
    exit 1
fi
mode="$(stat -c %a "${logs[0]}")"
if [[ "$mode" != 600 ]]; then
    echo "${logs[0]} was created $mode, not 600"
    exit 1
fi
echo "excerpt only ($excerpt); the planted job-1.log link was $link_result; job logs are 0600"
