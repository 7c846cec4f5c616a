# Issue 27, 1: the results database replaced (mv) or deleted while a search runs. The search stops with exit 1
# naming the file, says nothing of best parameters, and writes no row into the file now at the path.
source "$(dirname "$0")/common.sh"
need_hpo
printf 'x: {type: uniform, min: 0.0, max: 1.0}\n' >space.yaml
# The trial says it started, then waits for the gate: the database changes while it runs.
printf '#!/bin/sh\ntouch "%s/started"\nwhile [ ! -e "%s/gate" ]; do sleep 0.05; done\necho "{\\"objective\\": $1}"\n' \
    "$WORK" "$WORK" >trial.sh
run_case() { # replace|delete
    rm -f r.db started gate best.yaml
    pw hpo --db r.db --study s --command "/bin/sh $WORK/trial.sh {x}" --space space.yaml --trials 3 \
        --sampler random --pruner none --partition SPX --best-params best.yaml >"$WORK/out" 2>&1 </dev/null &
    local search=$!
    while [[ ! -e started ]]; do
        if ! kill -0 $search 2>/dev/null; then
            cat "$WORK/out"
            echo "the search ended before its first trial started"
            exit 1
        fi
        sleep 0.05
    done
    if [[ $1 == replace ]]; then
        pw study create --db other.db --study other >/dev/null 2>&1 || { echo "cannot create other.db"; exit 1; }
        sqlite3 other.db .dump >other.before 2>/dev/null
        mv other.db r.db
    else
        rm r.db
    fi
    touch gate
    wait $search
    local rc=$?
    if [[ $rc -ne 1 ]]; then
        cat "$WORK/out"
        echo "$1: the search exited $rc, expected 1"
        exit 1
    fi
    local what="replaced by another file"
    [[ $1 == delete ]] && what="deleted"
    expect_output "r.db: the results database was $what" "$1: the message names the file and what happened"
    refute_output "best parameters" "$1: no best parameters are claimed"
    if [[ -e best.yaml ]]; then
        echo "$1: best.yaml was written"
        exit 1
    fi
    if [[ $1 == replace ]]; then
        sqlite3 r.db .dump >other.after 2>/dev/null
        if ! cmp -s other.before other.after; then
            diff other.before other.after | head -20
            echo "replace: rows were written into the file moved over the database"
            exit 1
        fi
    elif [[ -e r.db ]]; then
        echo "delete: a new results file was created in place of the deleted one"
        exit 1
    fi
    grep -m1 -o "r.db: the results database was $what" "$WORK/out"
}
if ! command -v sqlite3 >/dev/null; then
    echo "the sqlite3 shell is needed to compare the replacing file"
    exit 77
fi
replace_line="$(run_case replace)" || { echo "$replace_line"; exit 1; }
delete_line="$(run_case delete)" || { echo "$delete_line"; exit 1; }
echo "exit 1: '$replace_line', '$delete_line'; the other file unchanged"
