"""Runs inside a separate venv that has `unstructured`: times its default partition() on the given files.

Usage: <venv>/bin/python bench/_unstructured_side.py FILES_JSON REPEATS  -> one JSON object on stdout.
Kept free of graphforge imports: the peer venv does not have graphforge installed.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    files = json.loads(sys.argv[1])
    repeats = int(sys.argv[2])
    out: dict[str, dict[str, object]] = {}
    try:
        from unstructured.partition.auto import partition
    except Exception as exc:  # the peer itself may not import offline
        print(json.dumps({"_import_error": f"{type(exc).__name__}: {exc}"}))
        return
    for item in files:
        fmt, path = item["format"], item["path"]
        try:
            partition(filename=path)  # warm-up: lazy imports and model loading are not per-file costs
            started = time.perf_counter()
            elements = 0
            for _ in range(repeats):
                elements = len(partition(filename=path))
            seconds = time.perf_counter() - started
            out[fmt] = {"seconds": seconds, "runs": repeats, "elements": elements}
        except BaseException as exc:  # offline model or data downloads fail here; that is a finding
            out[fmt] = {
                "error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
