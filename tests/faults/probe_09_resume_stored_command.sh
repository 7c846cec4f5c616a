# Issue 27, 9: `hpo --resume` of a results file whose stored command was changed shows the command and asks for
# --yes instead of running it.
source "$(dirname "$0")/common.sh"
need_hpo
write_trial
expect_exit 0 "new search" -- pw hpo --db r.db --study s --command "$TRIAL_COMMAND" --space space.yaml --trials 1 \
    --sampler random --pruner none
python3 - "$WORK" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/r.db")
(value,) = db.execute("SELECT value_json FROM study_system_attributes WHERE key = 'pitwall:hpo'").fetchone()
settings = json.loads(value)
settings["command"] = "/usr/bin/touch " + sys.argv[1] + "/pwned"
db.execute("UPDATE study_system_attributes SET value_json = ? WHERE key = 'pitwall:hpo'", (json.dumps(settings),))
db.commit()
PY
expect_exit 2 "resume of the edited file" -- pw hpo --resume s --db r.db --trials 2
expect_output "command: /usr/bin/touch $WORK/pwned" "the stored command is shown"
expect_output "--yes" "the way to go on is named"
if [[ -e pwned ]]; then
    echo "the stored command ran without confirmation"
    exit 1
fi
pw hpo --resume s --db r.db --trials 2 --yes >/dev/null 2>&1
if [[ ! -e pwned ]]; then
    echo "the confirmed command did not run"
    exit 1
fi
echo "refused until --yes: $(grep -m1 'command:' "$WORK/out" | sed 's/^ *//')"
