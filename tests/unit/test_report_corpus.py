"""Corpus statistics from queried rows (the pure part of the corpus report)."""

from __future__ import annotations

import numpy as np
import pytest

from graphforge.stages.report_corpus import (
    UNLINKED,
    CorpusTrajectory,
    Dimensions,
    Funnel,
    ReportCorpusParams,
    Revisions,
    SectorRef,
    summarise,
    summary,
)


def _row(k: int, pattern: str | None, sector: str | None, formats: list[str], steps: int,
         tokens: int) -> CorpusTrajectory:
    return CorpusTrajectory(trajectory_id=f"t{k}", status="admitted", steps=steps, tokens=tokens,
                            patterns=[pattern] if pattern else [],
                            sectors=[SectorRef(code=sector, title=f"title {sector}")] if sector else [],
                            task_types=[f"dwa-{k % 2}"] if pattern else [], formats=formats)


def test_summarise_counts_shares_cells_and_na_reuse() -> None:
    rows = [_row(0, "analysis", "11", ["pdf", "xlsx"], 10, 100), _row(1, "analysis", "13", ["xlsx"], 20, 300),
            _row(2, "research", "11", ["pdf"], 40, 262_144), _row(3, None, None, [], 30, 200)]
    dims = Dimensions(sectors=3, patterns=4, task_types=9, occupations=5)
    funnel = Funnel(trajectories=6, materialised=5, judged=5, passed_q=4, admitted=4)
    result = summarise(rows, dims, funnel, {"admitted": 4}, [{"arm": "anchored", "q": 0.95},
                                                             {"arm": "anchored", "q": 0.5}],
                       Revisions(initial_specs=3, revised_specs=2, reused=0, rerun=0), ReportCorpusParams())
    assert {s.name: s.trajectories for s in result.by_pattern} == {"analysis": 2, "research": 1, UNLINKED: 1}
    assert result.by_pattern[0].share == pytest.approx(0.5)
    assert {s.name for s in result.by_sector} == {"title 11", "title 13", UNLINKED}  # names, not codes
    assert result.cells_realised == 3 and result.cells_possible == 12
    assert result.task_types == 2 and result.unlinked == 1
    assert result.pdf_share == pytest.approx(0.5) and result.at_token_ceiling == 1
    assert result.steps.median == pytest.approx(np.median([10, 20, 40, 30]))
    assert result.steps.p95 == pytest.approx(np.percentile([10, 20, 40, 30], 95))
    assert result.q[0].above_threshold == pytest.approx(0.5)
    assert result.revision_reuse_rate is None  # nobody recorded reuse: "n/a", not 0


def test_summary_of_nothing_is_empty() -> None:
    empty = summary([])
    assert empty.n == 0 and empty.mean is None and empty.p95 is None
