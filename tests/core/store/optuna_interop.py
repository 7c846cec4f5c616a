"""Optuna's side of tst_optuna_interop: run with Debian's /usr/bin/python3 (python3-optuna 3.1).

    optuna_interop.py extend <db> <study>   load a study Pitwall wrote, dump it, add one trial by ask/tell
    optuna_interop.py write <db>            write the study "optuna-made" (TPE, seed 0) and dump it
    optuna_interop.py read <db> <study>     load a study and dump it
    optuna_interop.py upgrade <db>          `optuna storage upgrade --storage sqlite:///<db>`, as a user would run it

Prints one JSON object on the last line of stdout.
"""
import json
import os
import sqlite3
import sys

import optuna

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from optuna_storage import storage_url  # noqa: E402
from optuna.distributions import distribution_to_json

optuna.logging.set_verbosity(optuna.logging.WARNING)


def dump(study):
    out = {"directions": [d.name for d in study.directions], "user_attrs": study.user_attrs, "trials": []}
    for t in study.get_trials(deepcopy=False):
        out["trials"].append({
            "number": t.number, "state": t.state.name, "params": t.params, "values": t.values,
            "intermediate_values": {str(k): v for k, v in t.intermediate_values.items()},
            "distributions": {k: distribution_to_json(v) for k, v in t.distributions.items()},
            "user_attrs": t.user_attrs,
            "datetime_start": str(t.datetime_start) if t.datetime_start else None,
            "datetime_complete": str(t.datetime_complete) if t.datetime_complete else None})
    try:
        out["best_value"] = study.best_value
        out["best_number"] = study.best_trial.number
    except ValueError:
        out["best_value"] = None
    return out


def file_versions(path):
    db = sqlite3.connect(path)
    versions = {"version_info": db.execute("SELECT schema_version, library_version FROM version_info").fetchall(),
                "alembic": db.execute("SELECT version_num FROM alembic_version").fetchall()}
    db.close()
    # The installed Optuna and the schema revision it expects (Optuna 3.1: v3.0.0.d, what Pitwall writes).
    rdb = optuna.storages.RDBStorage("sqlite:///" + path, skip_compatibility_check=True)
    versions["optuna"] = optuna.__version__
    versions["head"] = rdb.get_head_version()
    versions["current"] = rdb.get_current_version()
    return versions


def extend(path, name):
    study = optuna.load_study(study_name=name, storage=storage_url(path))
    out = {"before": dump(study)}
    trial = study.ask()
    trial.suggest_float("x", -3, 3)
    trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    trial.suggest_int("layers", 1, 4)
    trial.suggest_categorical("optimizer", ["sgd", "adamw"])
    trial.report(0.9, 0)
    trial.set_user_attr("map50", 0.42)
    study.tell(trial, 1.5)
    out["added"] = {"number": trial.number, "params": trial.params}
    out["files"] = file_versions(path)
    return out


def write(path):
    study = optuna.create_study(study_name="optuna-made", storage=storage_url(path),
                                sampler=optuna.samplers.TPESampler(seed=0), direction="minimize")
    study.set_user_attr("purpose", "interop")
    for i in range(6):
        t = study.ask()
        x = t.suggest_float("x", -3, 3)
        lr = t.suggest_float("lr", 1e-5, 1e-1, log=True)
        layers = t.suggest_int("layers", 1, 4)
        opt = t.suggest_categorical("optimizer", ["sgd", "adamw"])
        for step in range(3):
            t.report(x * x + step + (0.1 if opt == "sgd" else 0.0), step)
        t.set_user_attr("map50", 0.5 + i / 100)
        t.set_user_attr("tags", ["tpe", i])
        if i == 2:
            study.tell(t, state=optuna.trial.TrialState.PRUNED)
        elif i == 4:
            study.tell(t, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(t, x * x + layers * lr)
    return {"study": dump(study), "files": file_versions(path)}


def read(path, name):
    study = optuna.load_study(study_name=name, storage=storage_url(path))
    return {"study": dump(study), "files": file_versions(path)}


def upgrade(path):
    from optuna.cli import main
    saved = sys.argv
    sys.argv = ["optuna", "storage", "upgrade", "--storage", "sqlite:///" + path]
    try:
        status = main()
    finally:
        sys.argv = saved
    return {"status": status or 0, "files": file_versions(path)}


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    result = {"extend": extend, "write": write, "read": read, "upgrade": upgrade}[command](*arguments)
    print(json.dumps(result))
