"""Serves a Pitwall-written results file with optuna-dashboard's own command and checks its JSON API.

Run by tests/core/store/optuna_dashboard.sh with the newest Optuna's interpreter (packaging/install-optuna.sh):
    python dashboard_interop.py PITWALL_CLI FOLDER  (not optuna_dashboard.py: that name would shadow the package)
It makes FOLDER/pitwall.db with Pitwall's CLI alone (`pitwall study create/ask/tell/best`): a one-objective TPE
study with intermediate values, a pruned and a failed trial, and a two-objective NSGA-II study with a constraint.
What the CLI printed (every trial's number, state, values, params, intermediate values; the best trial or the
Pareto front) is what the dashboard must show. The dashboard runs as a user starts it
(`optuna-dashboard sqlite:///DB --host 127.0.0.1 --port P`, here through its entry point on a free local port) and
the check reads /api/studies and /api/studies/<id> over HTTP. Prints one line per study; exits 1 on a mismatch.
"""
import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
        assert response.status == 200, (path, response.status)
        return json.loads(response.read())


def fail(message):
    print("optuna_dashboard: FAIL: " + message, flush=True)
    sys.exit(1)


def same_number(a, b):
    return a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-12))


SPACE = """lr: {type: loguniform, min: 1.0e-4, max: 1.0e-1}
layers: {type: int, min: 1, max: 4}
upsampling: {type: categorical, values: [nearest, bilinear]}
"""


def make_studies(cli, folder):
    """Writes the studies with Pitwall's CLI; returns what the dashboard must show, by study name."""
    db = os.path.join(folder, "pitwall.db")
    space = os.path.join(folder, "space.yaml")
    with open(space, "w") as f:
        f.write(SPACE)

    def pitwall(*args):
        done = subprocess.run([cli, *args, "--db", db], capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"pitwall {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def ask(study):
        return json.loads(pitwall("study", "ask", "--study", study, "--space", space).strip().splitlines()[-1])

    expected = {}
    # One objective: loss of a made-up model, reported per epoch; trial 10 pruned after two epochs, trial 11 fails.
    pitwall("study", "create", "--study", "lanes", "--seed", "3")
    trials = []
    for n in range(12):
        asked = ask("lanes")
        p = asked["params"]
        loss = (math.log10(p["lr"]) + 2.5) ** 2 + 0.1 * p["layers"] + (0.05 if p["upsampling"] == "nearest" else 0.0)
        intermediate = {str(step): loss + 1.0 / (step + 1) for step in range(3 if n < 10 else 2)}
        args = ["study", "tell", "--study", "lanes", "--trial", str(asked["number"])]
        for step, value in intermediate.items():
            args += ["--intermediate", f"{step}={value!r}"]
        if n < 10:
            state, values = "Complete", [loss]
            args += ["--value", repr(loss)]
        elif n == 10:
            # As Optuna's tell(state=PRUNED): the trial keeps its last intermediate value as its value.
            state, values = "Pruned", [intermediate[max(intermediate, key=int)]]
            args += ["--state", "pruned"]
        else:
            state, values, intermediate = "Fail", None, {}
            args = ["study", "tell", "--study", "lanes", "--trial", str(asked["number"]), "--state", "fail"]
        pitwall(*args)
        trials.append({"number": asked["number"], "state": state, "values": values, "params": p,
                       "intermediate": intermediate})
    best = json.loads(pitwall("study", "best", "--study", "lanes", "--json"))
    expected["lanes"] = {"directions": ["minimize"], "trials": trials, "best": [best["number"]]}

    # Two objectives (error down, FPS up) with a constraint; the front is what `pitwall study best` prints.
    pitwall("study", "create", "--study", "speed-quality", "--direction", "minimize", "--direction", "maximize",
            "--sampler", "nsga2", "--seed", "5")
    trials = []
    for n in range(8):
        asked = ask("speed-quality")
        p = asked["params"]
        error = abs(math.log10(p["lr"]) + 2.0) + 0.2 / p["layers"]
        fps = 400.0 / p["layers"] + (50.0 if p["upsampling"] == "nearest" else 0.0)
        pitwall("study", "tell", "--study", "speed-quality", "--trial", str(asked["number"]),
                "--value", repr(error), "--value", repr(fps), "--constraint", repr(-1.0 if n != 3 else 1.0))
        trials.append({"number": asked["number"], "state": "Complete", "values": [error, fps], "params": p,
                       "intermediate": {}})
    front = json.loads(pitwall("study", "best", "--study", "speed-quality", "--json"))["best_trials"]
    expected["speed-quality"] = {"directions": ["minimize", "maximize"], "trials": trials,
                                 "best": [t["number"] for t in front]}
    print(f"optuna_dashboard: Pitwall wrote {db}: studies lanes (12 trials) and speed-quality (8 trials, "
          f"front {[t['number'] for t in front]})", flush=True)
    return db, expected


def main():
    cli, folder = sys.argv[1], sys.argv[2]
    db, expected = make_studies(cli, folder)
    import optuna_dashboard

    port = free_port()
    log = open(db + ".dashboard.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from optuna_dashboard._cli import main; sys.exit(main())",
         "sqlite:///" + os.path.abspath(db), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        # Waits for the server to answer (a readiness poll, bounded; nothing is timed).
        deadline = time.monotonic() + 60
        while True:
            try:
                get(port, "/api/meta")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    fail("optuna-dashboard did not start:\n" + open(db + ".dashboard.log").read())
                time.sleep(0.1)
        print(f"optuna_dashboard: optuna-dashboard {optuna_dashboard.__version__} serves {os.path.basename(db)} "
              f"on 127.0.0.1:{port}", flush=True)
        summaries = {s["study_name"]: s for s in get(port, "/api/studies")["study_summaries"]}
        if sorted(summaries) != sorted(expected):
            fail(f"studies {sorted(summaries)}, expected {sorted(expected)}")
        for name, want in expected.items():
            summary = summaries[name]
            directions = [d.lower() for d in summary["directions"]]
            if directions != want["directions"]:
                fail(f"{name}: directions {directions}, expected {want['directions']}")
            detail = get(port, f"/api/studies/{summary['study_id']}")
            trials = {t["number"]: t for t in detail["trials"]}
            if sorted(trials) != sorted(t["number"] for t in want["trials"]):
                fail(f"{name}: trial numbers {sorted(trials)}, expected {[t['number'] for t in want['trials']]}")
            for w in want["trials"]:
                t = trials[w["number"]]
                if t["state"] != w["state"]:
                    fail(f"{name} trial {w['number']}: state {t['state']}, expected {w['state']}")
                values = t.get("values")
                if w["values"] is None:
                    if values not in (None, []):
                        fail(f"{name} trial {w['number']}: values {values}, expected none")
                elif values is None or len(values) != len(w["values"]) or \
                        not all(same_number(a, b) for a, b in zip(values, w["values"])):
                    fail(f"{name} trial {w['number']}: values {values}, expected {w['values']}")
                params = {p["name"]: p for p in t["params"]}
                if sorted(params) != sorted(w["params"]):
                    fail(f"{name} trial {w['number']}: params {sorted(params)}, expected {sorted(w['params'])}")
                for key, value in w["params"].items():
                    shown = params[key]["param_external_value"]
                    if isinstance(value, str):
                        ok = shown == value
                    else:
                        ok = same_number(float(shown), float(value))
                    if not ok:
                        fail(f"{name} trial {w['number']}: {key} shown as {shown}, expected {value}")
                steps = {iv["step"]: iv["value"] for iv in t["intermediate_values"]}
                want_steps = {int(k): v for k, v in w["intermediate"].items()}
                if sorted(steps) != sorted(want_steps) or \
                        not all(same_number(steps[s], want_steps[s]) for s in want_steps):
                    fail(f"{name} trial {w['number']}: intermediate values {steps}, expected {want_steps}")
            best = sorted(t["number"] for t in detail["best_trials"])
            if best != sorted(want["best"]):
                fail(f"{name}: best trials {best}, expected {sorted(want['best'])} (pitwall study best)")
            states = {}
            for t in detail["trials"]:
                states[t["state"]] = states.get(t["state"], 0) + 1
            print(f"optuna_dashboard: {name}: {len(trials)} trials "
                  f"({', '.join(f'{n} {s}' for s, n in sorted(states.items()))}), directions {directions}, "
                  f"best {best}: as Pitwall wrote them", flush=True)
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
