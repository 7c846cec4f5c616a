"""A trial command for the scheduler tests: behaves as --mode says, speaking Pitwall's JSON-lines protocol.

ok        two intermediate values, a text line, then {"objective": (x - 0.3)^2 + y / 100}; with --hold-trial N,
          trial N waits for the file --gate before its objective (a trial that is running when the search dies)
exit137   one intermediate value, a message on stderr, exit status 137 (what an out-of-memory kill looks like)
kill9     one intermediate value, then SIGKILL to itself
badjson   a truncated JSON line and no objective, exit status 0
wait      one intermediate value, then waits until the file --gate exists, then the objective
stubborn  as wait, but ignores SIGINT and SIGTERM (noting each SIGTERM in GATE.term.<trial>); pid in GATE.pid.<trial>
affinity  the CPU set and OMP_NUM_THREADS it runs with, as the objective line's extra fields
prunable  trial 0 reports low values and completes; later trials report high values and then wait (up to
          60 s) for the pruner to stop them with SIGTERM, which they record in --gate's folder
stop      one intermediate value, its pid in GATE.pid.<trial>, then SIGSTOP to itself (a hung trial)
stopworker one intermediate value, its pid in GATE.pid.<trial>, then SIGSTOP to its parent (the worker), then waits
          as wait does
orphan    starts `sleep 1000` in a new session (it leaves the command's process group), its pid in
          GATE.orphan.<trial>, then the objective: the sleep is left behind
mo        two objectives: {"objectives": [(x - 0.3)^2, (x - 0.7)^2]} with the same as "f1" and "f2" and "fps" = 100 x
mocurve   objectives f1 = (x - 0.3)^2 and g2 = (x - 0.4)^2 (a narrow front: most trials are dominated), after an
          intermediate vector per step 0..3: {"step": s, "values": [f1 + 1/(s+1), g2 + 1/(s+1)]}
flood     40 MiB on stderr, a 40 MiB stdout line, then the objective with the growth of its worker's peak memory
          (VmHWM of the parent process) over the flood, in kB, as "hwm_growth_kb"
"""
import argparse
import json
import os
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--mode", required=True)
parser.add_argument("--x", type=float, default=0.5)
parser.add_argument("--y", type=int, default=0)
parser.add_argument("--gate", default="")
parser.add_argument("--hold-trial", type=int, default=-1)
args = parser.parse_args()


def say(obj):
    print(json.dumps(obj), flush=True)


value = (args.x - 0.3) ** 2 + args.y / 100
if args.mode == "prunable":
    trial = int(os.environ["PITWALL_TRIAL"])
    if trial > 0:
        def stopped(signum, frame):
            open(os.path.join(os.path.dirname(args.gate), "sigterm_%d" % trial), "w").close()
            sys.exit(143)
        signal.signal(signal.SIGTERM, stopped)
    say({"step": 0, "value": 1.0 if trial == 0 else 10.0})
    if trial > 0:
        time.sleep(60)
    say({"objective": 1.0 if trial == 0 else 10.0})
    sys.exit(0)
def worker_hwm_kb():
    with open("/proc/%d/status" % os.getppid()) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def write_pid(suffix, pid):
    with open("%s.%s.%s" % (args.gate, suffix, os.environ["PITWALL_TRIAL"]), "w") as f:
        f.write(str(pid))


if args.mode in ("stop", "stopworker"):
    say({"step": 0, "value": value + 1.0})
    write_pid("pid", os.getpid())
    os.kill(os.getpid() if args.mode == "stop" else os.getppid(), signal.SIGSTOP)
    deadline = time.time() + 120
    while not os.path.exists(args.gate) and time.time() < deadline:
        time.sleep(0.05)
    say({"objective": value})
    sys.exit(0)
if args.mode == "orphan":
    import subprocess
    child = subprocess.Popen(["/bin/sleep", "1000"], start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    write_pid("orphan", child.pid)
    say({"objective": value})
    sys.exit(0)
if args.mode == "flood":
    chunk = 1 << 20
    before = worker_hwm_kb()
    for _ in range(40):
        sys.stderr.write("e" * chunk)
    sys.stderr.flush()
    for _ in range(40):
        sys.stdout.write("x" * chunk)
    sys.stdout.write("\n")
    sys.stdout.flush()
    say({"objective": value, "hwm_growth_kb": worker_hwm_kb() - before})
    sys.exit(0)
if args.mode == "stubborn":
    # Ignores Ctrl-C and SIGTERM (a trial busy writing a checkpoint), noting each SIGTERM beside --gate;
    # its pid is there too, for the test to watch.
    trial = int(os.environ["PITWALL_TRIAL"])
    def noted(signum, frame):
        open("%s.term.%d" % (args.gate, trial), "w").close()
    signal.signal(signal.SIGTERM, noted)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open("%s.pid.%d" % (args.gate, trial), "w") as f:
        f.write(str(os.getpid()))
say({"step": 0, "value": value + 1.0, "loss": value + 1.0})
if args.mode == "ok":
    print("plain text goes to the log", flush=True)
    say({"step": 1, "value": value + 0.5})
    if int(os.environ.get("PITWALL_TRIAL", "-1")) == args.hold_trial:
        deadline = time.time() + 120
        while not os.path.exists(args.gate) and time.time() < deadline:
            time.sleep(0.05)
    say({"objective": value, "x": args.x})
elif args.mode == "mo":
    f1, f2 = (args.x - 0.3) ** 2, (args.x - 0.7) ** 2
    say({"objectives": [f1, f2], "f1": f1, "f2": f2, "fps": 100 * args.x})
elif args.mode == "mocurve":
    f1, f2 = (args.x - 0.3) ** 2, (args.x - 0.4) ** 2
    for s in range(4):
        say({"step": s, "values": [f1 + 1 / (s + 1), f2 + 1 / (s + 1)]})
    say({"objectives": [f1, f2]})
elif args.mode == "exit137":
    print("simulated out of memory: cannot allocate 4 GiB", file=sys.stderr, flush=True)
    sys.exit(137)
elif args.mode == "kill9":
    print("about to kill myself", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
elif args.mode == "badjson":
    print('{"objective": 0.3', flush=True)
elif args.mode in ("wait", "stubborn"):
    deadline = time.time() + (600 if args.mode == "stubborn" else 120)
    while not os.path.exists(args.gate) and time.time() < deadline:
        time.sleep(0.05)
    say({"objective": value})
elif args.mode == "affinity":
    say({"objective": value, "cpus": sorted(os.sched_getaffinity(0)),
         "omp": os.environ.get("OMP_NUM_THREADS", ""), "trial_env": os.environ.get("PITWALL_TRIAL", "")})
else:
    sys.exit("unknown mode " + args.mode)
