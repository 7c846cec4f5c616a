#!/usr/bin/python3
"""TransFuser-lite training step: C++ (bench_transfuser_step) against its PyTorch twin (transfuser_twin.py).

    /usr/bin/python3 tests/bench/run_transfuser_step_bench.py [--build build] [--reps 2] [--warmup 1]
        [--steps 3] [--widths 16,32] [--threads 2,1] [--batch 16] [--option-threads N] [--budget-s 540]
        [--blas DIR] [--omp-wait-policy passive|unset] [--skip-compare] [--skip-options] [--json FILE]

1. Parity: the C++ bench dumps its initial weights, a batch and the losses of two steps (dropout 0); the twin
   loads the weights by name and must get the same parameter names, shapes, counts and losses.
2. C++ against PyTorch: same shapes, same seed, same thread count (at::set_num_threads /
   torch.set_num_threads), one process per measurement, C++ and Python interleaved and their order swapped
   every repetition. Each process warms up, then times whole steps (forward + losses + backward + AdamW
   with amsgrad). The table gives the median over repetitions of each process's median ms/step, the process
   CPU time per step, and C++/PyTorch (below 1: C++ faster).
3. Speed options on the C++ side (LEAD's variants), ms/step and the ratio to the baseline; the batch-96 row
   is compared per sample (ms per 16 samples).

Both sides run with OMP_WAIT_POLICY=PASSIVE unless --omp-wait-policy unset: on a 2-core machine shared with
other work, libgomp's default spin-waiting makes 2-thread steps several times slower than 1-thread steps.
--budget-s keeps the whole run under about that many seconds on a loaded machine by dropping repetitions
after the first. --blas DIR runs both sides with another BLAS (e.g. OpenBLAS unpacked from its .deb).

The bench binary and Pitwall's libraries are copied to a temporary folder first, so a concurrent rebuild of
the shared build folder cannot break or change a run. Uses only public tools (Python 3, PyTorch, the bench).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TWIN = os.path.join(HERE, "transfuser_twin.py")
PYTHON = "/usr/bin/python3"  # Debian's python3-torch

OPTION_ROWS = [
    # label, stage, batch, overrides; the baseline of each stage comes first
    ("baseline", "pretrain", 16, []),
    ("logits", "pretrain", 16, ["policy.transfuser.upsample_perspective_logits=true"]),
    ("logits + nearest", "pretrain", 16, ["policy.transfuser.upsample_perspective_logits=true",
                                          "policy.transfuser.upsample_mode=nearest"]),
    ("batch 96 (per sample)", "pretrain", 96, []),
    ("no depth", "pretrain", 16, ["policy.transfuser.use_depth=false"]),
    ("bf16", "pretrain", 16, ["training.optimization.precision=bf16"]),
    ("baseline post-train", "posttrain", 16, []),
    ("frozen backbone (post-train)", "posttrain", 16, ["policy.transfuser.freeze_backbone=true"]),
]


def snapshot(build):
    """Copies the bench and the libraries it loads from the build folder into a private folder."""
    folder = tempfile.mkdtemp(prefix="transfuser_bench_")
    os.makedirs(os.path.join(folder, "lib"))
    os.makedirs(os.path.join(folder, "plugins"))
    shutil.copy2(os.path.join(build, "bench", "bench_transfuser_step"), folder)
    for name in os.listdir(os.path.join(build, "lib")):
        if name.startswith("libpitwall_") and name.endswith(".so"):
            shutil.copy2(os.path.join(build, "lib", name), os.path.join(folder, "lib"))
    plugins = os.path.join(build, "lib", "pitwall", "plugins")
    for name in os.listdir(plugins):
        if name.endswith(".schema.yaml"):
            shutil.copy2(os.path.join(plugins, name), os.path.join(folder, "plugins"))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(folder, "lib") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["PITWALL_PLUGIN_PATH"] = os.path.join(folder, "plugins")
    return folder, env


def run_json(command, env):
    start = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}{result.stdout}")
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    data = json.loads(lines[-1])
    data["process_s"] = time.perf_counter() - start
    return data


def cpp_command(folder, threads, width, stage, batch, overrides, args, steps=None):
    return [os.path.join(folder, "bench_transfuser_step"), "--threads", str(threads), "--width", str(width),
            "--stage", stage, "--batch", str(batch), "--warmup", str(args.warmup),
            "--steps", str(steps or args.steps), *overrides]


def python_command(threads, width, stage, batch, overrides, args, expect=None):
    command = [PYTHON, TWIN, "--threads", str(threads), "--width", str(width), "--stage", stage,
               "--batch", str(batch), "--warmup", str(args.warmup), "--steps", str(args.steps)]
    if expect:
        command += ["--expect-params", str(expect[0]), "--expect-trainable", str(expect[1])]
    return command + overrides


def parity(folder, env):
    rows = []
    for stage, overrides in [("pretrain", []), ("posttrain", []),
                             ("posttrain", ["policy.transfuser.freeze_backbone=true",
                                            "policy.transfuser.upsample_perspective_logits=true",
                                            "policy.transfuser.upsample_mode=nearest", "--width", "32"])]:
        dump = tempfile.mkdtemp(prefix="transfuser_parity_", dir=folder)
        common = ["--stage", stage, "--batch", "4", *overrides]
        run_json([os.path.join(folder, "bench_transfuser_step"), "--no-dropout", "--dump", dump, *common], env)
        result = subprocess.run([PYTHON, TWIN, "--check", dump, *common], env=env, capture_output=True, text=True)
        data = json.loads(result.stdout.strip().splitlines()[-1]) if result.stdout.strip() else {"ok": False}
        with open(os.path.join(dump, "index.json")) as f:
            index = json.load(f)
        rows.append({"config": f"{stage} {' '.join(overrides) or 'defaults'}", "ok": result.returncode == 0 and data["ok"],
                     "cpp_params": index["parameters"], "python_params": data.get("parameters"),
                     "cpp_trainable": index["trainable_parameters"], "python_trainable": data.get("trainable_parameters"),
                     "rel1": data.get("max_rel_diff_step1"), "rel2": data.get("max_rel_diff_step2"),
                     "problems": data.get("problems", [result.stderr[-500:]])})
        shutil.rmtree(dump, ignore_errors=True)
    return rows


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).rjust(w) if i else str(c).ljust(w)
                                            for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    print(line(headers))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--widths", default="16,32")
    parser.add_argument("--threads", default="2,1")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--skip-compare", action="store_true")
    parser.add_argument("--skip-options", action="store_true")
    parser.add_argument("--option-threads", type=int, help="threads of the options table (default: first of --threads)")
    parser.add_argument("--budget-s", type=float, default=540,
                        help="after the first repetition, skip further ones past 45%% (comparison) and 75%% (options) of this")
    parser.add_argument("--blas", metavar="DIR",
                        help="folder with another libblas.so.3 (e.g. OpenBLAS) put first on LD_LIBRARY_PATH for both sides")
    parser.add_argument("--omp-wait-policy", choices=["passive", "unset"], default="passive",
                        help="OMP_WAIT_POLICY of both sides (default passive: on a shared machine libgomp's default "
                             "spin-waiting makes 2-thread steps several times slower, for C++ and PyTorch alike)")
    parser.add_argument("--json", help="also write every measurement to this file")
    args = parser.parse_args()
    started = time.perf_counter()
    folder, env = snapshot(args.build)
    if args.omp_wait_policy == "passive":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    else:
        env.pop("OMP_WAIT_POLICY", None)
    if args.blas:
        env["LD_LIBRARY_PATH"] = os.path.abspath(args.blas) + ":" + env["LD_LIBRARY_PATH"]
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
    record = {"args": vars(args), "runs": []}
    try:
        print(f"# TransFuser-lite training step, C++ vs PyTorch twin; load average at start "
              f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; OMP_WAIT_POLICY {env.get('OMP_WAIT_POLICY', 'unset')}"
              + (f"; BLAS from {args.blas}" if args.blas else "") + "\n")
        print("## Parity (batch 4, dropout 0): parameter names/shapes/counts and losses of two steps")
        rows = parity(folder, env)
        record["parity"] = rows
        table(["config", "params C++", "params PyTorch", "trainable C++", "trainable PyTorch",
               "max rel diff step 1", "step 2", "ok"],
              [[r["config"], r["cpp_params"], r["python_params"], r["cpp_trainable"], r["python_trainable"],
                f"{r['rel1']:.1e}" if r["rel1"] is not None else "-",
                f"{r['rel2']:.1e}" if r["rel2"] is not None else "-", "yes" if r["ok"] else "NO"] for r in rows])
        for r in rows:
            for problem in r["problems"]:
                print(f"  {r['config']}: {problem}")
        print()

        if not args.skip_compare:
            grid = [(int(w), int(t)) for w in args.widths.split(",") for t in args.threads.split(",")]
            results = {g: {"cpp": [], "python": []} for g in grid}
            for rep in range(args.reps):
                if rep > 0 and time.perf_counter() - started > 0.45 * args.budget_s:
                    print(f"  (time budget: {rep} repetition(s))")
                    break
                for width, threads in grid:
                    order = ["cpp", "python"] if (rep + grid.index((width, threads))) % 2 == 0 else ["python", "cpp"]
                    expect = None
                    for impl in order:
                        if impl == "cpp":
                            data = run_json(cpp_command(folder, threads, width, "pretrain", args.batch, [], args), env)
                            expect = (data["parameters"], data["trainable_parameters"])
                        else:
                            data = run_json(python_command(threads, width, "pretrain", args.batch, [], args, expect), env)
                        data["rep"] = rep
                        results[(width, threads)][impl].append(data)
                        record["runs"].append(data)
                        print(f"  rep {rep + 1} width {width} threads {threads} {impl:6s} {data['median_ms']:9.1f} ms/step "
                              f"(cpu {data['cpu_ms']:.0f} ms, load {data['load_before']:.1f})", flush=True)
            # The Python runs after their C++ run in a repetition got --expect-params; check the others too.
            for g, r in results.items():
                counts = {(d["parameters"], d["trainable_parameters"]) for d in r["cpp"] + r["python"]}
                if len(counts) != 1:
                    sys.exit(f"parameter counts differ for width {g[0]}: {counts}")
            print(f"\n## C++ vs PyTorch, pretrain step, batch {args.batch}, image 256x96, BEV 96x80 "
                  f"(median of {args.reps} processes x {args.steps} timed steps after {args.warmup} warm-up)")
            rows = []
            for (width, threads), r in results.items():
                med = lambda impl, key: statistics.median(d[key] for d in r[impl])
                c, p = med("cpp", "median_ms"), med("python", "median_ms")
                cc, pc = med("cpp", "cpu_ms"), med("python", "cpu_ms")
                rows.append([width, threads, r["cpp"][0]["parameters"], f"{c:.1f}", f"{p:.1f}", f"{c / p:.3f}",
                             f"{cc:.0f}", f"{pc:.0f}", f"{cc / pc:.3f}",
                             f"{med('cpp', 'forward_ms'):.0f}/{med('cpp', 'backward_ms'):.0f}/{med('cpp', 'optimizer_ms'):.0f}",
                             f"{med('python', 'forward_ms'):.0f}/{med('python', 'backward_ms'):.0f}/{med('python', 'optimizer_ms'):.0f}",
                             f"{args.batch * 1e3 / c:.2f}", f"{args.batch * 1e3 / p:.2f}"])
            table(["width", "threads", "params", "C++ ms/step", "PyTorch ms/step", "C++/PyTorch", "C++ cpu ms",
                   "PyTorch cpu ms", "cpu C++/PyTorch", "C++ fwd/bwd/opt", "PyTorch fwd/bwd/opt", "C++ samples/s",
                   "PyTorch samples/s"], rows)
            print()

        if not args.skip_options:
            threads = args.option_threads or int(args.threads.split(",")[0])
            width = int(args.widths.split(",")[0])
            results = {row[0]: [] for row in OPTION_ROWS}
            for rep in range(args.reps):
                rows_in_order = OPTION_ROWS if rep % 2 == 0 else OPTION_ROWS[::-1]
                if rep > 0 and time.perf_counter() - started > 0.75 * args.budget_s:
                    print(f"  (time budget: {rep} repetition(s) of the options)")
                    break
                for label, stage, batch, overrides in rows_in_order:
                    # A large batch takes batch/16 times as long per step: fewer timed steps.
                    steps = max(1, args.steps * 16 // batch) if batch > 16 else None
                    data = run_json(cpp_command(folder, threads, width, stage, batch, overrides, args, steps), env)
                    data["label"] = label
                    results[label].append(data)
                    record["runs"].append(data)
                    print(f"  rep {rep + 1} {label:30s} {data['median_ms']:9.1f} ms/step (load {data['load_before']:.1f})",
                          flush=True)
            print(f"\n## Speed options, C++ only, width {width}, {threads} threads (median of the processes' medians, "
                  f"{args.steps} steps each); ratio = per-sample time / the same stage's baseline, by wall and by CPU time")
            base = {}
            rows = []
            for label, stage, batch, overrides in OPTION_ROWS:
                if not results[label]:
                    continue
                ms = statistics.median(d["median_ms"] for d in results[label])
                cpu = statistics.median(d["cpu_ms"] for d in results[label])
                per16, cpu16 = ms * 16 / batch, cpu * 16 / batch
                base.setdefault(stage, (per16, cpu16))
                rows.append([label, stage, batch, results[label][0]["trainable_parameters"], f"{ms:.1f}", f"{per16:.1f}",
                             f"{per16 / base[stage][0]:.3f}", f"{cpu16:.0f}", f"{cpu16 / base[stage][1]:.3f}",
                             f"{batch * 1e3 / ms:.2f}"])
            table(["option", "stage", "batch", "trainable", "ms/step", "ms per 16 samples", "ratio (wall)",
                   "cpu ms per 16", "ratio (cpu)", "samples/s"], rows)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)
    print(f"\nfinished in {time.perf_counter() - started:.0f} s; load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
