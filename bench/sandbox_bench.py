"""Start-up cost of one run_python call behind the bubblewrap boundary, against two named peers.

Peers, each running the same trivial script (``print(1)``) from a fresh interpreter:

- ``bare``: ``python -I -c`` in a subprocess, no isolation at all (the floor);
- ``unshare -n``: the previous sandbox's isolation (a network namespace from util-linux ``unshare``
  around the same interpreter; its audit hook and rlimits were Python code costing nothing measurable);
- ``bwrap``: graphforge's ``run_python`` as agents call it: copy of the working folder, seccomp program
  handed over in a memfd, user/PID/mount/net/IPC/UTS namespaces, rlimits, streamed output, sync-back.

Each is timed ``--repeats`` times, alternating, and the median is reported with its ratio to ``bare``.
The working folder holds ``--files`` small files, as a task's copy would.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import check
from graphforge.agent.sandbox import run_python, sandbox_problem

SCRIPT = "print(1)\n"


def _bare() -> None:
    subprocess.run([sys.executable, "-I", "-c", SCRIPT], check=True, capture_output=True)


def _unshare() -> None:
    argv = ["unshare", "-n", "--", sys.executable, "-I", "-c", SCRIPT]
    subprocess.run(argv, check=True, capture_output=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="sandbox_bench")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--files", type=int, default=20)
    args = parser.parse_args(argv)
    problem = sandbox_problem()
    if problem is not None:
        raise SystemExit(f"sandbox_bench: {problem}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp, "work")
        work.mkdir()
        for i in range(args.files):
            (work / f"file{i}.csv").write_text("a,b\n1,2\n" * 50, encoding="utf-8")

        def _bwrap() -> None:
            result = run_python(SCRIPT, work, sync_back=False)
            check(result.ok and result.stdout.strip() == "1", f"the sandboxed script failed: {result}")

        peers: dict[str, Callable[[], None]] = {"bare": _bare, "bwrap": _bwrap}
        if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"]).returncode == 0:
            peers["unshare -n"] = _unshare
        times: dict[str, list[float]] = {name: [] for name in peers}
        for _ in range(args.repeats):
            for name, call in peers.items():
                start = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["bare"])
    print(f"{'peer':<12} {'median ms':>10} {'vs bare':>8}   ({args.repeats} runs, {args.files} files copied)")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<12} {med * 1000:>10.1f} {med / floor:>7.2f}x")
    bw = statistics.median(times["bwrap"])
    print(f"boundary overhead per call: {(bw - floor) * 1000:.1f} ms over bare")
    if "unshare -n" in times:
        print(f"bwrap vs previous sandbox (unshare -n): {bw / statistics.median(times['unshare -n']):.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
