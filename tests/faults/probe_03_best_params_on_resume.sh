# Issue 27, 3: a resumed search writes best_params.yaml where the search was started to, not under the folder the
# resume runs in.
source "$(dirname "$0")/common.sh"
need_hpo
write_trial
mkdir a b
(cd a && pw hpo --db ../r.db --study s --command "$TRIAL_COMMAND" --space ../space.yaml --trials 1 \
    --sampler random --pruner none >/dev/null 2>&1) || { echo "new search failed"; exit 1; }
[[ -f a/runs/s/best_params.yaml ]] || { echo "no a/runs/s/best_params.yaml after the first search"; exit 1; }
rm a/runs/s/best_params.yaml
(cd b && pw hpo --resume s --db ../r.db --trials 2 >/dev/null 2>&1) || { echo "resume failed"; exit 1; }
if [[ -e b/runs ]]; then
    echo "the resume wrote under its working folder: $(find b/runs -type f)"
    exit 1
fi
[[ -f a/runs/s/best_params.yaml ]] || { echo "the resume wrote no a/runs/s/best_params.yaml"; exit 1; }
echo "resumed from b/: best parameters written to a/runs/s/best_params.yaml again"
