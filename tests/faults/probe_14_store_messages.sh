# Issue 27, 14: a store error says what Pitwall was doing and with which file, and quotes no SQL (it said
# "preparing `INSERT INTO pitwall_jobs (kind, ...`: attempt to write a readonly database"). The results file is on a
# read-only bind mount (root ignores file modes) in a mount namespace of its own.
source "$(dirname "$0")/common.sh"
need_hpo
write_trial
mkdir ro
expect_exit 0 "study create" -- pw study create --db ro/r.db --study s
search=("$PITWALL_CLI" hpo --db ro/r.db --study t --space space.yaml --command "$TRIAL_COMMAND" --trials 1
    --partition SPX)
if [[ $(id -u) -ne 0 ]]; then
    chmod 0555 ro
    chmod 0444 ro/r.db
    "${search[@]}" >out 2>&1 </dev/null
    rc=$?
    staged="a read-only file and folder"
elif unshare -m true 2>/dev/null; then
    unshare -m sh -c 'mount --bind "$0/ro" "$0/ro" && mount -o remount,ro,bind "$0/ro" "$0/ro" && shift && exec "$@"' \
        "$WORK" _ "${search[@]}" >out 2>&1 </dev/null
    rc=$?
    staged="a read-only bind mount"
else
    echo "cannot make the results file read-only here (root without mount namespaces)"
    exit 77
fi
chmod 0755 ro 2>/dev/null
if [[ $rc -eq 0 ]]; then
    cat out
    echo "a search on $staged exited 0"
    exit 1
fi
refute_output 'INSERT|UPDATE|SELECT|preparing|`' "the message quotes no SQL"
expect_output 'ro/r.db' "the message names the file"
expect_output 'read-only|cannot be written' "the message says the file cannot be written"
echo "exit $rc on $staged: $(grep -m1 'r.db' out)"
