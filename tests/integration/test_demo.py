"""The README's main command: the whole demo runs on the bundled sample, and a re-run changes no counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from graphforge.demo.run import run_demo
from graphforge.graphdb import chores
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def test_demo_runs_end_to_end_and_rerun_changes_no_counts(graph: Graph, settings: GraphforgeSettings,
                                                          tmp_path: Path) -> None:
    quiet = Console(file=open("/dev/null", "w"), stderr=False)  # noqa: SIM115
    first = run_demo(settings, tmp_path / "demo", console=quiet)
    counts_after_first = chores.counts(graph)
    second = run_demo(settings, tmp_path / "demo", console=quiet)
    counts_after_second = chores.counts(graph)
    quiet.file.close()

    assert counts_after_second == counts_after_first
    assert first.spec_ids and first.spec_ids == second.spec_ids
    # Every stage left something behind: seeds, a spec, admitted trajectories, an audit, exports, reports.
    assert first.seeds_selected > 0 and first.workspace_seed is not None
    assert first.funnel["cleaned"] >= 1 and first.funnel["materialised"] == 4
    assert first.audit_found_overlaps is False
    # The sensitivity study perturbs what the demo's spec asks for, whatever its deliverable format.
    table = first.sensitivity.splitlines()
    for kind in ("delete_sheet", "corrupt_row", "change_number"):
        row = next(line for line in table if line.startswith(f"| anchored | {kind} |"))
        assert int(row.split("|")[3]) >= 1, row
    # Every citation of the target's items broken or misdirected, a note to the grader: the target loses all.
    for kind in ("break_citation", "wrong_citation", "grader_note", "grader_note_paraphrased"):
        row = next(line for line in table if line.startswith(f"| anchored | {kind} |"))
        assert float(row.split("|")[4]) <= -0.8, row
    for key in ("sft", "sft_parquet", "rft_anchored", "rubrics"):
        assert Path(first.exports[key]).is_file(), key
    for key in ("coverage", "corpus", "elo", "audit"):
        page = Path(first.reports[key])
        assert page.is_file() and "<html" in page.read_text(encoding="utf-8")[:200].lower(), key
    # The export is deterministic: the second run wrote the same bytes.
    assert Path(second.exports["sft"]).read_bytes() == Path(first.exports["sft"]).read_bytes()
    rows = [json.loads(line) for line in Path(first.exports["sft"]).read_text().splitlines()]
    assert len(rows) == int(first.exports["sft_rows"]) and all(r["messages"] for r in rows)
    # Broken files are recorded as invalid, never lost (the over-size one is refused by the scan unread).
    from graphforge.demo.sample.broken_files import EXPECTED_REASONS

    assert counts_after_first.nodes["File"] >= 9 + len(EXPECTED_REASONS) - 1
    assert "anchor-model (openhands): 1667.0 [1667.0, 1667.0]" in first.elo_top
