"""Run every benchmark in bench/ (``python -m bench``) or those named (``python -m bench a_bench b_bench``).

Options after ``--`` go to each named benchmark: ``python -m bench seeds_bench -- --naive-large-n 50``; the
``--`` may be left out (``python -m bench corpus_tasks --corpus ../shared/corpus``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench
from graphforge.errors import GraphforgeError


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        argv, extra = argv[: argv.index("--")], argv[argv.index("--") + 1:]
    elif any(a.startswith("--") for a in argv):  # python -m bench corpus_tasks --corpus DIR
        first = next(i for i, a in enumerate(argv) if a.startswith("--"))
        argv, extra = argv[:first], argv[first:]
    names = argv or sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.endswith("_bench"))
    for name in names:
        print(f"\n=== bench.{name} ===", flush=True)
        importlib.import_module(f"bench.{name}").main(extra)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except GraphforgeError as exc:  # a port in use, a missing service, bad input: one line, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
