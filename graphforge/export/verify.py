"""Replay exported rows: every tool call re-run through the agent's tools in a fresh copy of its workspace.

A row passes when (1) no message carries a placeholder instead of content (``<N bytes ...>``), (2) every
tool call, re-run in order through :class:`graphforge.agent.tools.ToolBox` in a fresh working copy of the
spec's workspace, returns exactly the recorded result, (3) the deliverables the replay writes read the same
as the ones stored on the trajectory (their parsed text, as ``read_file`` shows it), and (4) judged again by
the anchored deterministic judge, the replayed deliverables get the same Q as the stored ones.

``graphforge export verify FILE`` reports the failures; ``export sft`` / ``export rft`` refuse rows that fail.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphforge.graphdb.graph import Graph
from graphforge.llm.protocol import call_results
from graphforge.stores.specs import spec_workspace

PLACEHOLDER = re.compile(r"<\d+ bytes")
_PAGE = re.compile(r"^\[page: .*, characters (\d+)-(\d+) of (\d+)\]")
DEFAULT_PAGE = 20_000
Q_TOLERANCE = 1e-6


@dataclass
class RowCheck:
    trajectory_id: str
    spec_id: str | None
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    calls: int = 0
    q_stored: float | None = None
    q_replayed: float | None = None

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)


def placeholders(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Where a message carries a placeholder (``<29627 bytes: pptx deliverable>``) instead of content."""
    found = []
    for i, m in enumerate(messages):
        texts = [m.get("content") or ""] + [c["function"]["arguments"] for c in m.get("tool_calls") or ()]
        for t in texts:
            hit = PLACEHOLDER.search(t)
            if hit:
                found.append(f"message {i} ({m['role']}): placeholder {t[hit.start():hit.start() + 40]!r}")
    return found


def page_size(messages: Sequence[dict[str, Any]]) -> int:
    """The read_file page size the row was recorded with: the length of any page that is not the last."""
    for m in messages:
        if m.get("role") == "tool" and m.get("content"):
            head = _PAGE.match(m["content"])
            if head and "\n[next page: call read_file with offset=" in m["content"]:
                return int(head.group(2)) - int(head.group(1))
    return DEFAULT_PAGE


def _first_difference(a: str, b: str) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def _parsed(path: Path) -> str:
    from graphforge.agent.tools import ToolFailure, read_as_text

    try:
        return read_as_text(path)
    except ToolFailure as exc:
        return f"unreadable: {exc}"


def check_row(graph: Graph, row: dict[str, Any], *, judge: bool = True) -> RowCheck:
    """Replay one exported row (``messages``, ``trajectory_id``, ``spec_id``) and say what differs."""
    from graphforge.agent.loop import prepare_workdir
    from graphforge.agent.tools import ToolBox
    from graphforge.stores import trajectories as store

    messages: list[dict[str, Any]] = row["messages"]
    check = RowCheck(str(row.get("trajectory_id")), row.get("spec_id"))
    for p in placeholders(messages):
        check.fail(p)
    if not check.spec_id:
        check.fail("the row names no spec, so its workspace is unknown")
        return check
    try:
        agent, root = spec_workspace(graph, check.spec_id)
    except Exception as exc:  # noqa: BLE001 - a spec the graph no longer holds is a failed row, not a crash
        check.fail(f"spec {check.spec_id} cannot be loaded: {exc}")
        return check
    with tempfile.TemporaryDirectory(prefix="graphforge-verify-") as tmp:
        run_dir = Path(tmp)
        if root is not None and root.is_dir():
            work = prepare_workdir(root, agent, run_dir)
        else:
            work = run_dir / "work"
            work.mkdir()
            if any(c["function"]["name"] in ("read_file", "list_files")
                   for m in messages for c in m.get("tool_calls") or ()):
                check.fail(f"workspace folder of {check.spec_id} is not on this machine")
                return check
        tools = ToolBox(work, max_read_chars=page_size(messages), deliverables=tuple(agent.deliverables))
        for m, results in zip(messages, call_results(messages), strict=True):
            for call in m.get("tool_calls") or ():
                check.calls += 1
                name, args = call["function"]["name"], call["function"]["arguments"]
                got, _ = tools.call(name, args)
                want = results.get(str(call["id"]))
                if want is None:
                    check.fail(f"{call['id']} {name}: no recorded result")
                elif got != want:
                    at = _first_difference(got, want)
                    check.fail(f"{call['id']} {name}: output differs at character {at} "
                               f"(recorded {want[at:at + 40]!r}, replayed {got[at:at + 40]!r})")
        stored = store.get_deliverables(graph, [check.trajectory_id])
        deliverables = stored[0].deliverables if stored else []
        replayed: dict[str, Path] = {}
        original: dict[str, Path] = {}
        for d in deliverables:
            mine = work / d.name
            if not mine.is_file():
                check.fail(f"deliverable {d.name}: the replay does not write it")
                continue
            replayed[d.name] = mine
            if not Path(d.path).is_file():
                check.fail(f"deliverable {d.name}: the stored file {d.path} is missing")
                continue
            original[d.name] = Path(d.path)
            if _parsed(mine) != _parsed(Path(d.path)):
                check.fail(f"deliverable {d.name}: the replayed file differs from the judged one")
        if judge and original and check.ok:
            from graphforge.judge import judge_attempt, load_view
            from graphforge.models.judge import JudgeArm

            view = load_view(graph, check.spec_id)
            before, _ = judge_attempt(view, original, JudgeArm.ANCHORED, trajectory_id=check.trajectory_id)
            after, _ = judge_attempt(view, replayed, JudgeArm.ANCHORED, trajectory_id=check.trajectory_id)
            check.q_stored, check.q_replayed = before.q, after.q
            if abs(before.q - after.q) > Q_TOLERANCE:
                check.fail(f"verdict differs when judged again: Q {after.q:.4f} now, {before.q:.4f} before")
    return check


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of an exported JSONL (or Parquet) file."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        for r in rows:
            r["messages"] = [{k: v for k, v in m.items() if v is not None} for m in r["messages"]]
        return rows
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def sample_rows(rows: list[dict[str, Any]], n: int | None, seed: int = 0) -> list[dict[str, Any]]:
    if n is None or n >= len(rows):
        return rows
    return random.Random(seed).sample(rows, n)


@dataclass
class VerifyReport:
    file: str
    rows: int
    checked: int
    passed: int
    failures: list[RowCheck]

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "rows": self.rows, "checked": self.checked, "passed": self.passed,
                "failed": len(self.failures),
                "failures": [{"trajectory_id": c.trajectory_id, "spec_id": c.spec_id, "problems": c.problems}
                             for c in self.failures]}


def verify_file(graph: Graph, path: Path, *, sample: int | None = None, seed: int = 0,
                judge: bool = True) -> VerifyReport:
    rows = read_rows(path)
    chosen = sample_rows(rows, sample, seed)
    checks = [check_row(graph, r, judge=judge) for r in chosen]
    return VerifyReport(str(path), len(rows), len(checks), sum(c.ok for c in checks),
                        [c for c in checks if not c.ok])
