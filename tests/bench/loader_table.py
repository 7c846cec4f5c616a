#!/usr/bin/python3
"""The loader note's table: PyTorch DataLoader at 0/1/2/4 workers against `pitwall bench loader` (default and
any-eighth DCT scales) on the same JPEGs, interleaved for --reps rounds; min and median ms/batch and CPU %.

    /usr/bin/python3 tests/bench/loader_table.py --pitwall build/bin/pitwall --images DIR [--reps 3]
        [--batches 100] [--warmup 20]

Equal CPU: "ms x CPU" is ms/batch x CPU % / 100, the CPU milliseconds one batch costs; the speed-up at equal
CPU is the best DataLoader setting's ms x CPU over Pitwall's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pitwall", required=True)
    p.add_argument("--images", required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--batches", type=int, default=100)
    p.add_argument("--warmup", type=int, default=20)
    a = p.parse_args()
    common = ["--images", a.images, "--batch", "8", "--width", "1024", "--height", "372",
              "--batches", str(a.batches), "--warmup", str(a.warmup)]
    setups = {f"DataLoader, {w} workers": [sys.executable, os.path.join(HERE, "loader_reference.py"), *common,
                                          "--workers", str(w), "--json"] for w in (0, 1, 2, 4)}
    for scale in ("fast", "any"):
        setups[f"Pitwall, --dct-scale {scale}"] = [a.pitwall, "bench", "loader", *common, "--dct-scale", scale,
                                                   "--json"]
    rows = {name: [] for name in setups}
    for rep in range(a.reps):
        for name, cmd in setups.items():
            r = run_json(cmd)
            rows[name].append(r)
            print(f"rep {rep + 1} {name:28s} {r['ms_per_batch']:8.1f} ms/batch CPU {r['cpu_percent']:4.0f} %",
                  flush=True)
    print("\n| loader | ms/batch min | ms/batch median | CPU % median | ms x CPU median | decoded at | "
          "floor at that scale (ms/batch) | vs floor | vs floor at equal CPU |")
    print("|---|---|---|---|---|---|---|---|---|")
    cost = {}
    for name, rs in rows.items():
        ms = [r["ms_per_batch"] for r in rs]
        cpu = statistics.median(r["cpu_percent"] for r in rs)
        cost[name] = statistics.median(r["ms_per_batch"] * r["cpu_percent"] / 100 for r in rs)
        extra = ["", "", "", ""]
        if "decoded_scale" in rs[0]:
            extra = [rs[-1]["decoded_scale"], f"{statistics.median(r['scaled_floor_ms_per_batch'] for r in rs):.1f}",
                     f"{statistics.median(r['scaled_floor_ratio'] for r in rs):.2f}x",
                     f"{statistics.median(r['cpu_floor_ratio'] for r in rs):.2f}x"]
        print(f"| {name} | {min(ms):.1f} | {statistics.median(ms):.1f} | {cpu:.0f} | {cost[name]:.1f} | "
              + " | ".join(extra) + " |")
    best = min((n for n in rows if n.startswith("DataLoader")), key=lambda n: statistics.median(
        r["ms_per_batch"] for r in rows[n]))
    for name in rows:
        if name.startswith("Pitwall"):
            fast = statistics.median(r["ms_per_batch"] for r in rows[best]) / statistics.median(
                r["ms_per_batch"] for r in rows[name])
            print(f"\n{name}: {fast:.2f}x the best DataLoader setting ({best}) in ms/batch, "
                  f"{cost[best] / cost[name]:.2f}x at equal CPU (ms x CPU)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
