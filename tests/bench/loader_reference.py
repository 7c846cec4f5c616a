#!/usr/bin/python3
"""PyTorch Dataset + DataLoader doing the work of `pitwall bench loader` on the same files, for a side-by-side
data-loading-only comparison (no training): ms/batch and CPU % after warm-up.

    /usr/bin/python3 tests/bench/loader_reference.py --images DIR [--batch 8] [--width 1024] [--height 372]
        [--batches 1000] [--warmup 300] [--workers N] [--decoder torchvision|pil] [--no-augment] [--json]

Run it with Debian's python3 (python3-torch / python3-torchvision, 1.13 era), not a pyenv python.

Side by side: --compare build/bin/pitwall [--reps N] [--dataloader-workers 0,1,2,4] runs, in turn and N times,
`pitwall bench loader` (pitwall mode, and again with --decode whole), this DataLoader (once per workers setting),
and `pitwall bench loader --mode reference` with the same settings, each in its own process, and prints medians
and ratios: ms/batch, CPU %, CPU time per batch (the comparison at equal CPU) against Pitwall's, and ms/batch
against the decode-bound floor at the scale Pitwall decoded at. Test images: 1600x900
renders of the synthetic world, `build/bin/pitwall data synth --width 1600 --height 900 --frames 64 --out DIR`
(they are DIR/rgb/*.jpg).

Per sample, in DataLoader worker processes (num_workers defaults to this process's cores, prefetch_factor 2,
persistent workers, collate in the worker into shared memory as DataLoader does):
  decode      torchvision.io.decode_jpeg (default) or PIL, full scale
  geometry    random zoom in [0.86, 1.25] of the window that covers the output (DALI's resize_lim), placed
              uniformly, as an integer box; F.resized_crop (bilinear; zero padding outside the image)
  flip        horizontal, p = 0.5
  colour      ColorJitter-style: brightness 1 +- 0.4, saturation 1 +- 0.7, hue +- 0.015 turns (AutoSpeed's gains)
  normalise   mean (123.675, 116.28, 103.53), std (58.395, 57.12, 57.375) in 0..255 units
The sampler walks one shuffled order after another without restarting the loader, so there is no pipeline
drain at epoch boundaries (which would only make PyTorch slower).
CPU % = (user + system time of this process and its worker processes) / wall; 100 = one core (psutil when
available, else /proc/<pid>/stat of the workers).
"""
import argparse
import json
import os
import random
import sys
import time

import torch
import torchvision
import torchvision.transforms.functional as F

MEAN = [123.675 / 255, 116.28 / 255, 103.53 / 255]
STD = [58.395 / 255, 57.12 / 255, 57.375 / 255]


def jpeg_files(folder):
    files = []
    for root, _, names in os.walk(folder):
        files += [os.path.join(root, n) for n in names if n.lower().endswith((".jpg", ".jpeg"))]
    return sorted(files)


class ImageDataset(torch.utils.data.Dataset):
    def __init__(self, files, args):
        self.files = files
        self.args = args

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        a = self.args
        if a.decoder == "pil":
            from PIL import Image
            with Image.open(self.files[index]) as image:
                img = image.convert("RGB")
            width, height = img.size
        else:
            img = torchvision.io.decode_jpeg(torchvision.io.read_file(self.files[index]))
            height, width = img.shape[-2:]
            img = F.convert_image_dtype(img, torch.float)
        cover = max(a.width / width, a.height / height)
        win_w, win_h = a.width / cover, a.height / cover
        if not a.no_augment:
            zoom = random.uniform(0.86, 1.25)
            win_w, win_h = win_w / zoom, win_h / zoom
            left, top = (width - win_w) * random.random(), (height - win_h) * random.random()
        else:
            left, top = (width - win_w) / 2, (height - win_h) / 2
        img = F.resized_crop(img, round(top), round(left), max(1, round(win_h)), max(1, round(win_w)),
                             [a.height, a.width], antialias=a.decoder == "pil")
        if not a.no_augment:
            if random.random() < 0.5:
                img = F.hflip(img)
            img = F.adjust_brightness(img, 1 + random.uniform(-1, 1) * 0.4)
            img = F.adjust_saturation(img, 1 + random.uniform(-1, 1) * 0.7)
            img = F.adjust_hue(img, random.uniform(-1, 1) * 0.015)
        if a.decoder == "pil":
            img = F.to_tensor(img)
        return F.normalize(img, MEAN, STD)


class EpochSpanningSampler(torch.utils.data.Sampler):
    """One shuffled order after another, `total` indices in all."""

    def __init__(self, size, total, seed=0):
        self.size, self.total, self.seed = size, total, seed

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed)
        produced = 0
        while produced < self.total:
            for i in torch.randperm(self.size, generator=g).tolist():
                if produced == self.total:
                    return
                produced += 1
                yield i

    def __len__(self):
        return self.total


def worker_init(worker_id):
    random.seed(torch.initial_seed() % 2**32)


def cpu_seconds(workers):
    """User + system CPU seconds of this process and of the given worker pids (alive)."""
    try:
        import psutil
        total = sum(psutil.Process().cpu_times()[:2])
        for pid in workers:
            try:
                total += sum(psutil.Process(pid).cpu_times()[:2])
            except psutil.NoSuchProcess:
                pass
        return total
    except ImportError:
        tick = os.sysconf("SC_CLK_TCK")
        total = sum(os.times()[:2])
        for pid in workers:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except OSError:
                pass
        return total


def run_json(command):
    import subprocess
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return json.loads(out)


def compare(args):
    import statistics
    common = ["--images", args.images, "--batch", str(args.batch), "--width", str(args.width), "--height",
              str(args.height), "--batches", str(args.batches), "--warmup", str(args.warmup)]
    if args.no_augment:
        common.append("--no-augment")
    dataloader_workers = [int(w) for w in args.dataloader_workers.split(",")] if args.dataloader_workers else \
        [args.workers]
    rows = {"pitwall": [], "pitwall, whole-image decode": []}
    rows.update({f"PyTorch DataLoader, {w} workers": [] for w in dataloader_workers})
    rows["pitwall-reference"] = []
    print(f"# data loading only: batch {args.batch} at {args.width}x{args.height}, {args.batches} batches after "
          f"{args.warmup} warm-up, {args.workers} threads (Pitwall), {args.reps} repetition(s) interleaved; "
          f"load average {os.getloadavg()[0]:.2f} at start", flush=True)
    for rep in range(args.reps):
        for name in rows:
            if name.startswith("PyTorch"):
                w = int(name.split(", ")[1].split()[0])
                cmd = [sys.executable, os.path.abspath(__file__), *common, "--workers", str(w),
                       "--decoder", args.decoder, "--json"]
            else:
                cmd = [args.compare, "bench", "loader", *common, "--threads", str(args.workers), "--json"]
                if name == "pitwall-reference":
                    cmd += ["--mode", "reference"]
                if "whole-image" in name:
                    cmd += ["--decode", "whole"]
            r = run_json(cmd)
            rows[name].append(r)
            print(f"  rep {rep + 1} {name:32s} {r['ms_per_batch']:8.2f} ms/batch  CPU {r['cpu_percent']:4.0f} %  "
                  f"load {r['load_before']:.2f}", flush=True)
    med = {n: (statistics.median(r["ms_per_batch"] for r in v), statistics.median(r["cpu_percent"] for r in v))
           for n, v in rows.items()}
    ref = rows["pitwall"]
    floor = statistics.median(r["floor_ms_per_batch"] for r in ref)
    scaled_floor = statistics.median(r["scaled_floor_ms_per_batch"] for r in ref)
    decode = statistics.median(r["decode_ms_per_image"] for r in ref)
    # CPU time per batch (ms of CPU, all cores): the comparison at equal CPU.
    cpu_ms = {n: ms * cpu / 100 for n, (ms, cpu) in med.items()}
    print("\n| loader | ms/batch | CPU % | CPU ms/batch | ms/batch vs Pitwall | CPU ms vs Pitwall "
          "| vs decode floor at the scale decoded |")
    print("|---|---|---|---|---|---|---|")
    for name, (ms, cpu) in med.items():
        print(f"| {name} | {ms:.1f} | {cpu:.0f} | {cpu_ms[name]:.1f} | {ms / med['pitwall'][0]:.2f}x "
              f"| {cpu_ms[name] / cpu_ms['pitwall']:.2f}x | {ms / scaled_floor:.2f}x |")
    scales = ", ".join(sorted({r["decoded_scale"] for r in ref}))
    print(f"\ndecode-bound floor: {decode:.2f} ms/image (libjpeg-turbo, whole image at full scale, one thread) x "
          f"{args.batch} / {min(args.workers, len(os.sched_getaffinity(0)))} = {floor:.2f} ms/batch; at the scale "
          f"decoded ({scales}) {scaled_floor:.2f} ms/batch; Pitwall's ratio at equal CPU (its CPU time per batch "
          f"over the decode CPU time of its images) {statistics.median(r['cpu_floor_ratio'] for r in ref):.2f}")
    best = min((n for n in med if n.startswith("PyTorch")), key=lambda n: med[n][0])
    best_cpu = min((n for n in med if n.startswith("PyTorch")), key=lambda n: cpu_ms[n])
    print(f"best DataLoader setting by ms/batch: {best}, {med[best][0] / med['pitwall'][0]:.2f}x Pitwall's ms/batch "
          f"at {med[best][1] / max(med['pitwall'][1], 1e-9):.2f}x the CPU; by CPU time per batch: {best_cpu}, "
          f"{cpu_ms[best_cpu] / cpu_ms['pitwall']:.2f}x Pitwall's; load average {os.getloadavg()[0]:.2f} at the end")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--images", required=True)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--height", type=int, default=372)
    parser.add_argument("--batches", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--decoder", choices=["torchvision", "pil"], default="torchvision")
    parser.add_argument("--no-augment", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare", metavar="PITWALL", help="run pitwall bench loader side by side (see above)")
    parser.add_argument("--reps", type=int, default=1, help="repetitions of the side-by-side runs")
    parser.add_argument("--dataloader-workers", metavar="LIST",
                        help="with --compare: the DataLoader's num_workers settings to run, e.g. 0,1,2,4 "
                             "(default: --workers)")
    args = parser.parse_args()
    if args.compare:
        return compare(args)
    files = jpeg_files(args.images)
    if not files:
        sys.exit(f"{args.images}: no JPEG files")
    load_before = os.getloadavg()[0]
    total = (args.warmup + args.batches) * args.batch
    # torch 1.13 refuses prefetch_factor (even None) without workers: pass it only with workers.
    extra = {"prefetch_factor": 2} if args.workers > 0 else {}
    loader = torch.utils.data.DataLoader(
        ImageDataset(files, args), batch_size=args.batch, sampler=EpochSpanningSampler(len(files), total),
        num_workers=args.workers, drop_last=True, persistent_workers=args.workers > 0, worker_init_fn=worker_init,
        **extra)
    it = iter(loader)
    for _ in range(args.warmup):
        batch = next(it)
    workers = [w.pid for w in getattr(it, "_workers", [])]
    cpu0, t0 = cpu_seconds(workers), time.perf_counter()
    for _ in range(args.batches):
        batch = next(it)
    wall = time.perf_counter() - t0
    cpu = cpu_seconds(workers) - cpu0
    assert batch.shape == (args.batch, 3, args.height, args.width) and batch.dtype == torch.float32
    result = {"impl": "pytorch-dataloader", "decoder": args.decoder, "torch": torch.__version__,
              "torchvision": torchvision.__version__, "images": len(files), "batch": args.batch,
              "width": args.width, "height": args.height, "augment": not args.no_augment, "workers": args.workers,
              "batches": args.batches, "warmup": args.warmup, "ms_per_batch": wall * 1000 / args.batches,
              "cpu_percent": 100 * cpu / wall, "load_before": load_before, "load_after": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"PyTorch DataLoader ({args.decoder} decode), {len(files)} images, batch {args.batch} at "
              f"{args.width}x{args.height}, {args.workers} workers: {result['ms_per_batch']:.2f} ms/batch, "
              f"CPU {result['cpu_percent']:.0f} % over {args.batches} batches after {args.warmup} warm-up "
              f"(load {load_before:.2f} -> {result['load_after']:.2f})")


if __name__ == "__main__":
    main()
