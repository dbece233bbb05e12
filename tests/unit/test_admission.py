"""Admission decisions and degenerate-tool-use cleaning (pure helpers, no Neo4j)."""

from __future__ import annotations

from pathlib import Path

from graphforge.models.trajectory import TrajectoryStatus
from graphforge.oracle import InjectKind, run_oracle
from graphforge.stages.admit_trajectories import AdmissionSettings, decide, degenerate_reasons
from tests.unit._judge_sample import sample_view


def _trajectory(tmp_path: Path, *inject: InjectKind):  # type: ignore[no-untyped-def]
    view = sample_view()
    return run_oracle(view, view.paths, tmp_path, inject=list(inject)).trajectory


def test_clean_oracle_trajectory_is_not_degenerate(tmp_path: Path) -> None:
    assert degenerate_reasons(_trajectory(tmp_path), AdmissionSettings()) == []


def test_repeated_calls_failures_excess_and_truncation_are_detected(tmp_path: Path) -> None:
    s = AdmissionSettings()
    repeated = degenerate_reasons(_trajectory(tmp_path, InjectKind.REPEATED_CALLS), s)
    assert any(r.startswith("repeated non-polling call: read_file") for r in repeated)
    failing = degenerate_reasons(_trajectory(tmp_path, InjectKind.TOOL_FAILURES), s)
    assert any(r.startswith("tool-failure rate") for r in failing)
    strict = AdmissionSettings(max_tool_calls=2, max_truncations=0, truncation_markers=["Note"])
    reasons = degenerate_reasons(_trajectory(tmp_path), strict)
    assert any(r.startswith("excessive tool calls") for r in reasons)
    assert any(r.startswith("repeated truncation") for r in reasons)


def test_json_results_fail_only_with_a_non_empty_error(tmp_path: Path) -> None:
    t = _trajectory(tmp_path)
    tool_messages = [m for m in t.messages if m.role == "tool"]
    assert len(tool_messages) >= 5
    for k, m in enumerate(tool_messages):
        m.content = f'{{"error": null, "rows": {k}}}'
    s = AdmissionSettings()
    assert degenerate_reasons(t, s) == []
    for m in tool_messages:
        m.content = '{"error": "file not found"}'
    assert any(r.startswith("tool-failure rate") for r in degenerate_reasons(t, s))


def test_polling_tools_may_repeat(tmp_path: Path) -> None:
    t = _trajectory(tmp_path, InjectKind.REPEATED_CALLS)
    assert degenerate_reasons(t, AdmissionSettings(polling_tools=["read_file"])) == []


def test_thresholds_come_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GRAPHFORGE_ADMIT_Q_THRESHOLD", "0.95")
    monkeypatch.setenv("GRAPHFORGE_ADMIT_MAX_TOOL_CALLS", "12")
    s = AdmissionSettings()
    assert (s.q_threshold, s.max_tool_calls) == (0.95, 12)


def test_decisions_carry_their_reasons() -> None:
    assert decide(None, None, None, [], 0.9) == (None, "not judged")
    status, reason = decide(0.0, False, "loss, judge not asked: x.xlsx missing", [], 0.9)
    assert status is TrajectoryStatus.REJECTED and "loss" in reason
    assert decide(0.9, True, "", [], 0.9)[0] is TrajectoryStatus.REJECTED  # strictly greater than
    assert decide(0.95, True, "", [], 0.9)[0] is TrajectoryStatus.ADMITTED
    status, reason = decide(1.0, True, "", ["repeated non-polling call: f x4 > 3"], 0.9)
    assert status is TrajectoryStatus.DISCARDED and "cleaning" in reason
