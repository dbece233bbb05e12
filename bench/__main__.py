"""Run every benchmark module under bench/ (``python -m bench``), or the ones named on the command line."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main(argv: list[str]) -> int:
    names = argv or sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.endswith("_bench"))
    for name in names:
        print(f"\n=== bench.{name} ===", flush=True)
        importlib.import_module(f"bench.{name}").main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
