#!/usr/bin/env python3
"""Runs the user guide (docs/guide/) the way a reader would, and renders its screenshots.

    python3 tests/guide/run_guide.py --source CHECKOUT --bin BUILD/bin --work DIR --images DIR

The pages run in the order docs/guide/README.md links them, all in one working folder (DIR, emptied first) that holds
a `configs` link to the checkout's example configs, with the build's `pitwall` and `pitwall-gui` first on PATH (then
/usr/bin: Debian's python3 with its Optuna) and no PITWALL_DB (so `pitwall.db` in that folder is the results file, as for a reader in a folder of their own).

In a page:
  ```sh                 a block that runs (bash, -e -u -o pipefail), in page order; its output is kept in
                        WORK/<page>.log and shown when it fails
  ```sh interactive     shown to the reader and not run (it opens the window, or waits for input)
  <!-- screenshot images/NAME.png: ARGS -->
                        renders `pitwall-gui --theme light ARGS --screenshot IMAGES/NAME.png` after the blocks
                        above it, on the database those blocks made; the page must show that image
Every image a page shows must come from such a line, so no screenshot outlives the commands that made it.
CTest's `guide` test runs this into the build folder; `cmake --build build --target guide` writes the images into
docs/guide/images for committing. Prints one line per block and screenshot, with its time; exits 1 on the first
failure, naming the page and line.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

BLOCK = re.compile(r"^```(\S*)(.*)$")
SHOT = re.compile(r"^<!-- screenshot (images/[A-Za-z0-9_.-]+\.png): (.*) -->$")
IMAGE = re.compile(r"!\[[^\]]*\]\((images/[^)]+)\)")


def fail(message):
    print("guide: FAIL: " + message, flush=True)
    sys.exit(1)


def pages(guide):
    index = open(os.path.join(guide, "README.md")).read()
    names = []
    for name in re.findall(r"\]\(([a-z0-9-]+\.md)\)", index):
        if name not in names:
            names.append(name)
    if not names:
        fail("docs/guide/README.md links no page")
    return names


def steps(path):
    """The page's runnable blocks and screenshots in order: ("run", line, code) and ("shot", line, image, args)."""
    lines = open(path).read().split("\n")
    out, shown, i = [], set(), 0
    while i < len(lines):
        line = lines[i]
        shown.update(IMAGE.findall(line))
        m = BLOCK.match(line)
        if m and m.group(1):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                fail(f"{path}:{start}: a code block that never ends")
            if m.group(1) == "sh" and m.group(2).strip() != "interactive":
                out.append(("run", start, "\n".join(body)))
        else:
            s = SHOT.match(line.strip())
            if s:
                out.append(("shot", i + 1, s.group(1), s.group(2)))
            elif line.strip().startswith("<!-- screenshot"):
                fail(f"{path}:{i + 1}: expected '<!-- screenshot images/NAME.png: ARGS -->'")
        i += 1
    made = {step[2] for step in out if step[0] == "shot"}
    for image in sorted(shown - made):
        fail(f"{path}: shows {image}, which no '<!-- screenshot {image}: ... -->' line renders")
    for image in sorted(made - shown):
        fail(f"{path}: renders {image} but never shows it")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the checkout")
    parser.add_argument("--bin", required=True, help="the folder with pitwall and pitwall-gui")
    parser.add_argument("--work", required=True, help="the working folder (emptied first)")
    parser.add_argument("--images", required=True, help="where the screenshots go")
    parser.add_argument("--pages", default="", help="comma-separated page names: only these (and no checks of others)")
    parser.add_argument("--keep-work", action="store_true",
                        help="keep the working folder as the pages before left it (with --pages, while writing one)")
    args = parser.parse_args()
    guide = os.path.join(args.source, "docs", "guide")
    for tool in ("pitwall", "pitwall-gui"):
        if not os.access(os.path.join(args.bin, tool), os.X_OK):
            fail(f"no {tool} in {args.bin}: build it first")
    if not args.keep_work:
        shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.images, exist_ok=True)
    if not os.path.islink(os.path.join(args.work, "configs")):
        os.symlink(os.path.join(os.path.abspath(args.source), "configs"), os.path.join(args.work, "configs"))
    env = dict(os.environ)
    env.pop("PITWALL_DB", None)
    # The build's programs first, then Debian's (python3 with python3-optuna, as on a reader's Debian 12), then the rest.
    env["PATH"] = os.pathsep.join([os.path.abspath(args.bin), "/usr/bin", "/bin", env.get("PATH", "")])
    env["XDG_STATE_HOME"] = os.path.join(args.work, ".state")
    env["XDG_CONFIG_HOME"] = os.path.join(args.work, ".config")  # the window's settings (recent files, theme)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONWARNINGS"] = "ignore"
    chosen = [p for p in args.pages.split(",") if p]
    total = time.monotonic()
    for page in pages(guide):
        if chosen and page not in chosen:
            continue
        path = os.path.join(guide, page)
        if not os.path.exists(path):
            fail(f"docs/guide/README.md links {page}, which does not exist")
        log_path = os.path.join(args.work, page.replace(".md", ".log"))
        with open(log_path, "w") as log:
            for step in steps(path):
                started = time.monotonic()
                where = f"docs/guide/{page}:{step[1]}"
                if step[0] == "run":
                    log.write(f"### {where}\n{step[2]}\n")
                    log.flush()
                    done = subprocess.run(["bash", "-euo", "pipefail", "-c", step[2]], cwd=args.work, env=env,
                                          stdout=log, stderr=subprocess.STDOUT)
                    first = step[2].strip().split("\n")[0]
                    if done.returncode != 0:
                        log.flush()
                        tail = open(log_path).read().split("\n")[-30:]
                        fail(f"{where}: the block starting '{first}' exited {done.returncode}:\n" + "\n".join(tail))
                    print(f"guide: {where}: ran '{first}' in {time.monotonic() - started:.1f} s", flush=True)
                else:
                    image = os.path.join(args.images, os.path.basename(step[2]))
                    command = ["pitwall-gui", "--theme", "light", *step[3].split(), "--screenshot", image]
                    if os.path.exists(image):
                        os.remove(image)
                    done = subprocess.run(command, cwd=args.work, env=env, capture_output=True, text=True)
                    if done.returncode != 0 or not os.path.exists(image) or os.path.getsize(image) < 10000:
                        fail(f"{where}: {' '.join(command)} exited {done.returncode}, "
                             f"no screenshot written: {done.stderr.strip()[-2000:]}")
                    print(f"guide: {where}: rendered {step[2]} ({os.path.getsize(image) // 1024} KiB) in "
                          f"{time.monotonic() - started:.1f} s", flush=True)
    print(f"guide: pass in {time.monotonic() - total:.0f} s (screenshots in {args.images})", flush=True)


if __name__ == "__main__":
    main()
