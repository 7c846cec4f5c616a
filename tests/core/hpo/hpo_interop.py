"""Optuna 3.1's side of tst_hpo_optuna_interop (run with Debian's /usr/bin/python3).

Each mode prints one JSON document on its last line of stdout:
  run DB STUDY N SPACE_JSON [--create] [--direction D] [--grid]
        create (or load) the study and let Optuna run N trials of the test objective over SPACE_JSON
        ({name: {"kind": "float"|"int"|"categorical", ...}}); prints the study's trials.
  dump DB STUDY       prints the study's trials as Optuna sees them.
  multi DB STUDY N SPACE_JSON [--create] [--directions D1,D2] [--population P] [--constrained]
        the same with two objectives (objective_values) and Optuna's NSGAIISampler (seed 7); --constrained adds the
        constraint box - 7 <= 0; prints the trials with their values and constraints, best_trials (Optuna 3.1's:
        constraints ignored; the newest Optuna's: feasible trials only), feasible_best_trials (the front of the
        feasible trials, the newest Optuna's meaning) and front_ignoring_constraints (the front of all of them).
  prune SCENARIOS_JSON replays pruning scenarios with Optuna's pruners and prints their decisions.
"""
import json
import math
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import optuna  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from optuna_storage import storage_url  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.ERROR)


def objective_value(params):
    # A smooth bowl over whatever parameters the trial has; categorical choices add their index.
    total = 0.0
    for name, value in sorted(params.items()):
        if isinstance(value, str):
            total += float(len(value) % 3)
        elif isinstance(value, bool):
            total += 1.0 if value else 0.0
        else:
            total += (math.log10(value) + 3.0) ** 2 if 0 < value < 0.1 else (float(value) - 1.0) ** 2
    return total


def suggest(trial, space):
    params = {}
    for name, spec in space.items():
        if spec["kind"] == "float":
            params[name] = trial.suggest_float(name, spec["low"], spec["high"], log=spec.get("log", False),
                                               step=spec.get("step"))
        elif spec["kind"] == "int":
            params[name] = trial.suggest_int(name, spec["low"], spec["high"], step=spec.get("step", 1))
        else:
            params[name] = trial.suggest_categorical(name, spec["choices"])
    return params


def trials_json(study):
    out = []
    for t in study.get_trials(deepcopy=False):
        out.append({
            "number": t.number,
            "state": t.state.name,
            "params": t.params,
            "distributions": {k: optuna.distributions.distribution_to_json(d) for k, d in t.distributions.items()},
            "value": t.value if t.state == optuna.trial.TrialState.COMPLETE else None,
            "intermediate_values": {str(k): v for k, v in t.intermediate_values.items()},
            "system_attrs": t.system_attrs,
        })
    return {"study": study.study_name, "direction": study.direction.name, "sampler": type(study.sampler).__name__,
            "trials": out}


def run(args):
    db, name, n, space = args[0], args[1], int(args[2]), json.loads(args[3])
    direction = args[args.index("--direction") + 1] if "--direction" in args else "minimize"
    sampler = None
    if "--grid" in args:
        grid = {k: (v["choices"] if v["kind"] == "categorical" else v["values"]) for k, v in space.items()}
        sampler = optuna.samplers.GridSampler(grid, seed=1)  # the Pitwall study's seed: it shuffles the newest grid
    if "--create" in args:
        study = optuna.create_study(storage=storage_url(db), study_name=name, direction=direction,
                                    sampler=sampler or optuna.samplers.TPESampler(seed=7))
    else:
        study = optuna.load_study(storage=storage_url(db), study_name=name, sampler=sampler)
    study.optimize(lambda trial: objective_value(suggest(trial, space)), n_trials=n)
    print(json.dumps({**trials_json(study), "optuna_version": optuna.__version__}))


def dump(args):
    study = optuna.load_study(storage=storage_url(args[0]), study_name=args[1])
    print(json.dumps(trials_json(study)))


def objective_values(params):
    # Two objectives that pull apart: the bowl above, and the distance from 4 over the numeric parameters.
    second = sum((float(v) - 4.0) ** 2 for v in params.values() if not isinstance(v, str))
    return objective_value(params), second


def multi(args):
    db, name, n, space = args[0], args[1], int(args[2]), json.loads(args[3])
    directions = args[args.index("--directions") + 1].split(",") if "--directions" in args else ["minimize"] * 2
    population = int(args[args.index("--population") + 1]) if "--population" in args else 50
    constraints_func = (lambda t: [t.params["box"] - 7.0]) if "--constrained" in args else None
    sampler = optuna.samplers.NSGAIISampler(seed=7, population_size=population, constraints_func=constraints_func)
    if "--create" in args:
        study = optuna.create_study(storage=storage_url(db), study_name=name, directions=directions, sampler=sampler)
    else:
        study = optuna.load_study(storage=storage_url(db), study_name=name, sampler=sampler)
    study.optimize(lambda trial: objective_values(suggest(trial, space)), n_trials=n)
    trials = study.get_trials(deepcopy=False)
    feasible = [t for t in trials if all(c <= 0 for c in t.system_attrs.get("constraints", []))]
    from optuna.study._multi_objective import _get_pareto_front_trials_by_trials
    print(json.dumps({
        "directions": [d.name for d in study.directions],
        "trials": [{"number": t.number, "state": t.state.name, "params": t.params, "values": t.values,
                    "constraints": t.system_attrs.get("constraints"),
                    "intermediate_values": {str(k): v for k, v in t.intermediate_values.items()},
                    "generation": t.system_attrs.get("nsga2:generation",  # Optuna 3.1's key, the newest's
                                                      t.system_attrs.get("NSGAIISampler:generation"))}
                   for t in trials],
        "best_trials": [t.number for t in study.best_trials],
        "feasible_best_trials": [t.number for t in _get_pareto_front_trials_by_trials(feasible, study.directions)],
        "front_ignoring_constraints": [t.number for t in _get_pareto_front_trials_by_trials(trials, study.directions)],
    }))


def make_pruner(spec):
    name = spec["name"]
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=spec.get("n_startup_trials", 5),
                                           n_warmup_steps=spec.get("n_warmup_steps", 0),
                                           interval_steps=spec.get("interval_steps", 1))
    if name == "sha":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=spec.get("min_resource", "auto"),
                                                      reduction_factor=spec.get("reduction_factor", 4))
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=spec.get("min_resource", 1),
                                              max_resource=spec.get("max_resource", "auto"),
                                              reduction_factor=spec.get("reduction_factor", 3))
    raise SystemExit("unknown pruner " + name)


def prune(args):
    # Scenarios (a JSON list): {"study": name, "direction": d, "pruner": {...}, "trials": [[v0, v1, ...], ...]}.
    # Trials run one after another; each reports its values step by step and asks should_prune after each
    # report; a pruned trial stops there, the others complete with their last value. The storage is an
    # in-memory SQLite database through Optuna's RDB storage (and its cache), as with a study file.
    out = []
    for scenario in json.load(open(args[0])):
        study = optuna.create_study(storage="sqlite://", study_name=scenario["study"],
                                    direction=scenario["direction"], pruner=make_pruner(scenario["pruner"]))
        decisions = []
        for curve in scenario["trials"]:
            trial = study.ask()
            verdicts = []
            for step, value in enumerate(curve):
                trial.report(value, step)
                verdicts.append(bool(trial.should_prune()))
                if verdicts[-1]:
                    break
            if verdicts[-1]:
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            else:
                study.tell(trial, curve[-1])
            decisions.append(verdicts)
        out.append(decisions)
    print(json.dumps({"decisions": out, "optuna_version": optuna.__version__}))


if __name__ == "__main__":
    {"run": run, "dump": dump, "multi": multi, "prune": prune}[sys.argv[1]](sys.argv[2:])
