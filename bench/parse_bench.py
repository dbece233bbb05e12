"""Parsing speed per format: graphforge.parsers against unstructured's default partition() on the same files.

unstructured is not a GraphForge dependency (it downloads NLP data at run time and fails offline); point
UNSTRUCTURED_PYTHON (default /tmp/unstructured-venv/bin/python) at a venv that has it. Its failures are
reported per format, as findings. Units: "pages" = PDF pages, slides, sheets, or 1 for flowing formats.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graphforge.demo.sample.workspace import PATHS, generate_sample_workspace
from graphforge.parsers import parse_file

FORMATS = {
    "pdf": "report",
    "xlsx": "ledger",
    "docx": "memo",
    "pptx": "slides",
    "csv": "csv",
    "html": "press",
    "markdown": "notes",
    "text": "ambient",
}
PEER_PYTHON = os.environ.get("UNSTRUCTURED_PYTHON", "/tmp/unstructured-venv/bin/python")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench parse_bench", description=__doc__)
    parser.add_argument("--repeats", type=int, default=30, help="parses per file and side")
    return parser


def main(argv: list[str]) -> None:
    args = make_parser().parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        sample = generate_sample_workspace(Path(tmp))
        files = {fmt: sample.root / PATHS[key] for fmt, key in FORMATS.items()}
        ours: dict[str, tuple[float, int, int, str]] = {}
        for fmt, path in files.items():
            parsed = parse_file(path)  # warm-up (imports)
            started = time.perf_counter()
            for _ in range(args.repeats):
                parsed = parse_file(path)
            ours[fmt] = (
                time.perf_counter() - started,
                parsed.page_count or 1,
                len(parsed.spans),
                parsed.parser or "",
            )
        peer = _run_peer([{"format": f, "path": str(p)} for f, p in files.items()], args.repeats)
    print(
        f"parse bench: {args.repeats} parses per file; peer = unstructured.partition.auto.partition (default)"
    )
    print(
        f"{'format':9} {'parser':12} {'pages':>5} {'spans':>5} {'ours pages/s':>13} {'peer pages/s':>13} "
        f"{'peer elems':>10} {'speedup':>8}"
    )
    for fmt, (seconds, pages, spans, name) in ours.items():
        rate = pages * args.repeats / seconds
        result = peer.get(fmt, {})
        if "seconds" in result:
            peer_rate = pages * int(result["runs"]) / float(result["seconds"])
            print(
                f"{fmt:9} {name:12} {pages:5} {spans:5} {rate:13.1f} {peer_rate:13.1f} "
                f"{result['elements']:>10} {rate / peer_rate:7.1f}x"
            )
        else:
            reason = result.get("error") or peer.get("_import_error") or "peer not run"
            print(
                f"{fmt:9} {name:12} {pages:5} {spans:5} {rate:13.1f} "
                f"{'-':>13} {'-':>10} {'-':>8}  peer: {reason}"
            )


def _run_peer(files: list[dict[str, str]], repeats: int) -> dict[str, dict[str, object]]:
    if not Path(PEER_PYTHON).exists():
        return {"_import_error": f"no unstructured venv at {PEER_PYTHON} (set UNSTRUCTURED_PYTHON)"}
    script = Path(__file__).with_name("_unstructured_side.py")
    env = dict(
        os.environ,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        DO_NOT_TRACK="true",
        SCARF_NO_ANALYTICS="true",
    )
    try:
        done = subprocess.run(
            [PEER_PYTHON, str(script), json.dumps(files), str(repeats)],
            capture_output=True,
            text=True,
            timeout=1800,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"_import_error": "peer run exceeded 30 minutes"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {
            "_import_error": f"peer produced no result (exit {done.returncode}): {done.stderr.strip()[-300:]}"
        }
    result: dict[str, dict[str, object]] = json.loads(lines[-1])
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
