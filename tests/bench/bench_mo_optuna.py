"""Optuna's side of bench_mo: multi-objective samplers (default settings, seeded) on the test functions of
mo_functions.h, each study stored in SQLite (sqlite:/// in a temporary folder). Runs under any Optuna from 3.1
on: Debian's /usr/bin/python3 (3.1) and the newest one (.venv-optuna/bin/python, packaging/install-optuna.sh).

    bench_mo_optuna.py --seeds 10 --trials 300 [--functions zdt1,...] [--samplers tpe,nsga2]
                       [--overhead-trials 1000] [--overhead-functions zdt1] [--folder DIR]

Prints one JSON document:
  {"version": "5.1.0",
   "runs": {function: {sampler: [[[objective values] per COMPLETE trial, in number order] per seed]}},
   "overhead": {function: {sampler: [seconds per trial: ask + suggest + tell, the evaluation left out]}}}
Hypervolumes are computed by the caller, with Pitwall's code for both tools.
"""
import argparse
import json
import math
import os
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")
import optuna  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.ERROR)


def zdt(name, n):
    def values(x):
        g = 1 + 9 * sum(x[1:]) / (n - 1)
        ratio = x[0] / g
        return [x[0], g * (1 - (math.sqrt(ratio) if name == "zdt1" else ratio * ratio))]
    return n, values


def dtlz2(x):
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a, b = x[0] * math.pi / 2, x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b), (1 + g) * math.sin(a)]


# name: (number of parameters x0..x(n-1), each in [0, 1]; objective values, all minimised)
FUNCTIONS = {"zdt1": zdt("zdt1", 3), "zdt2": zdt("zdt2", 3), "dtlz2": (4, dtlz2)}


def make_sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)  # several objectives: MOTPE (3.1 too; its MOTPESampler is a subclass)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise SystemExit("unknown sampler " + name)


def run_study(folder, function, sampler, seed, trials):
    """Ask/tell loop; returns (the objective values per trial, the seconds per trial of Optuna's own work)."""
    n, objective = FUNCTIONS[function]
    path = os.path.join(folder, "%s-%s-%d-%d.db" % (function, sampler, seed, trials))
    study = optuna.create_study(storage="sqlite:///" + path, study_name=function,
                                directions=["minimize"] * len(objective([0.5] * n)),
                                sampler=make_sampler(sampler, seed))
    values, seconds = [], []
    for _ in range(trials):
        start = time.perf_counter()
        trial = study.ask()
        x = [trial.suggest_float("x%d" % i, 0, 1) for i in range(n)]
        asked = time.perf_counter()
        v = objective(x)
        evaluated = time.perf_counter()
        study.tell(trial, v)
        seconds.append(asked - start + time.perf_counter() - evaluated)
        values.append(v)
    os.remove(path)
    return values, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    parser.add_argument("--samplers", default="tpe,nsga2")
    parser.add_argument("--overhead-trials", type=int, default=1000)
    parser.add_argument("--overhead-functions", default="zdt1")
    parser.add_argument("--folder", default=None, help="where the study files go (default: the temp folder)")
    args = parser.parse_args()
    samplers = [s for s in args.samplers.split(",") if s]
    out = {"version": optuna.__version__, "runs": {}, "overhead": {}}
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        for function in [f for f in args.functions.split(",") if f]:
            out["runs"][function] = {
                s: [run_study(folder, function, s, seed, args.trials)[0] for seed in range(args.seeds)]
                for s in samplers}
        if args.overhead_trials > 0:
            for function in [f for f in args.overhead_functions.split(",") if f]:
                out["overhead"][function] = {s: run_study(folder, function, s, 0, args.overhead_trials)[1]
                                             for s in samplers}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
