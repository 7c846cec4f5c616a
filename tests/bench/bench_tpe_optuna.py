"""Optuna's side of bench_tpe: TPE (the installed Optuna's default settings, seeded) on the same test functions,
each study stored in SQLite (sqlite:/// in a temporary folder). bench_tpe runs it with Debian's /usr/bin/python3
(Optuna 3.1) and with the newest Optuna's interpreter (.venv-optuna, packaging/install-optuna.sh).

    bench_tpe_optuna.py --seeds 10 --trials 100 [--functions branin,...] [--folder DIR] [--in-memory]

Prints one JSON document: {function: {"best": [[best after trial 1..N] per seed], "seconds": [per seed]}}.
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


def branin(t):
    x, y = t.suggest_float("x", -5, 10), t.suggest_float("y", 0, 15)
    b, c, s = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x * x + c * x - 6) ** 2 + 10 * (1 - s) * math.cos(x) + 10


def hartmann3(t):
    v = [t.suggest_float("x%d" % i, 0, 1) for i in range(3)]
    alpha = [1.0, 1.2, 3.0, 3.2]
    a = [[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]]
    p = [[0.3689, 0.1170, 0.2673], [0.4699, 0.4387, 0.7470], [0.1091, 0.8732, 0.5547], [0.0381, 0.5743, 0.8828]]
    return -sum(alpha[i] * math.exp(-sum(a[i][j] * (v[j] - p[i][j]) ** 2 for j in range(3))) for i in range(4))


def rosenbrock2(t):
    x, y = t.suggest_float("x", -5, 10), t.suggest_float("y", -5, 10)
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def ackley2(t):
    x, y = t.suggest_float("x", -32.768, 32.768), t.suggest_float("y", -32.768, 32.768)
    return (-20 * math.exp(-0.2 * math.sqrt(0.5 * (x * x + y * y)))
            - math.exp(0.5 * (math.cos(2 * math.pi * x) + math.cos(2 * math.pi * y))) + math.e + 20)


def mixed(t):
    x = t.suggest_float("x", -5, 5)
    n = t.suggest_int("n", 0, 20)
    c = t.suggest_categorical("c", ["a", "b", "c", "d"])
    return (x - 1.5) ** 2 + 0.5 * abs(n - 7) + {"a": 2.0, "b": 0.0, "c": 1.0, "d": 3.0}[c]


def hartmann6(t):
    v = [t.suggest_float("x%d" % i, 0, 1) for i in range(6)]
    alpha = [1.0, 1.2, 3.0, 3.2]
    a = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
    p = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
         [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
    return -sum(alpha[i] * math.exp(-sum(a[i][j] * (v[j] - p[i][j]) ** 2 for j in range(6))) for i in range(4))


def styblinski4(t):
    v = [t.suggest_float("x%d" % i, -5, 5) for i in range(4)]
    return sum(0.5 * (x ** 4 - 16 * x * x + 5 * x) for x in v)


# The held-out set (tpe_functions.h says why).
def camel6(t):
    x, y = t.suggest_float("x", -3, 3), t.suggest_float("y", -2, 2)
    return (4 - 2.1 * x * x + x ** 4 / 3) * x * x + x * y + (-4 + 4 * y * y) * y * y


def goldstein(t):
    x, y = t.suggest_float("x", -2, 2), t.suggest_float("y", -2, 2)
    a = 1 + (x + y + 1) ** 2 * (19 - 14 * x + 3 * x * x - 14 * y + 6 * x * y + 3 * y * y)
    b = 30 + (2 * x - 3 * y) ** 2 * (18 - 32 * x + 12 * x * x + 48 * y - 36 * x * y + 27 * y * y)
    return a * b


def levy4(t):
    w = [1 + (t.suggest_float("x%d" % i, -10, 10) - 1) / 4 for i in range(4)]
    total = math.sin(math.pi * w[0]) ** 2
    for i in range(3):
        total += (w[i] - 1) ** 2 * (1 + 10 * math.sin(math.pi * w[i] + 1) ** 2)
    return total + (w[3] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[3]) ** 2)


def rastrigin3(t):
    v = [t.suggest_float("x%d" % i, -5.12, 5.12) for i in range(3)]
    return 10 * len(v) + sum(x * x - 10 * math.cos(2 * math.pi * x) for x in v)


def michalewicz2(t):
    v = [t.suggest_float("x", 0, math.pi), t.suggest_float("y", 0, math.pi)]
    return -sum(math.sin(x) * math.sin((i + 1) * x * x / math.pi) ** 20 for i, x in enumerate(v))


def ellipsoid5(t):
    v = [t.suggest_float("x%d" % i, -65.536, 65.536) for i in range(5)]
    total, prefix = 0.0, 0.0
    for x in v:
        prefix += x * x
        total += prefix
    return total


def hparams(t):
    lr = math.log10(t.suggest_float("lr", 1e-5, 1e-1, log=True)) + 2.5
    wd = math.log10(t.suggest_float("weight_decay", 1e-6, 1e-2, log=True)) + 4
    layers = t.suggest_int("layers", 1, 8)
    width = t.suggest_int("width", 32, 512, step=32)
    activation = t.suggest_categorical("activation", ["relu", "gelu", "tanh"])
    dropout = t.suggest_float("dropout", 0, 0.5)
    return (lr * lr + 0.3 * wd * wd + 0.2 * abs(layers - 4) + abs(width - 256) / 128
            + {"relu": 0.1, "gelu": 0.0, "tanh": 0.5}[activation] + 2 * (dropout - 0.1) ** 2)


FUNCTIONS = {"branin": branin, "hartmann3": hartmann3, "rosenbrock2": rosenbrock2, "ackley2": ackley2, "mixed": mixed,
             "hartmann6": hartmann6, "styblinski4": styblinski4, "camel6": camel6, "goldstein": goldstein, "levy4": levy4,
             "rastrigin3": rastrigin3, "michalewicz2": michalewicz2, "ellipsoid5": ellipsoid5, "hparams": hparams}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    parser.add_argument("--folder", default=None, help="where the study files go (default: the temp folder)")
    parser.add_argument("--in-memory", action="store_true",
                        help="keep studies in memory instead of SQLite: the same trials (seeded), about 20x faster; "
                             "the seconds then leave out storage")
    args = parser.parse_args()
    out = {}
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        for name in args.functions.split(","):
            result = {"best": [], "seconds": []}
            for seed in range(args.seeds):
                path = os.path.join(folder, "%s-%d.db" % (name, seed))
                study = optuna.create_study(storage=None if args.in_memory else "sqlite:///" + path, study_name=name,
                                            sampler=optuna.samplers.TPESampler(seed=seed))
                start = time.perf_counter()
                study.optimize(FUNCTIONS[name], n_trials=args.trials)
                result["seconds"].append(time.perf_counter() - start)
                best, curve = math.inf, []
                for trial in study.get_trials(deepcopy=False):
                    best = min(best, trial.value)
                    curve.append(best)
                result["best"].append(curve)
            out[name] = result
    print(json.dumps(out))


if __name__ == "__main__":
    main()
