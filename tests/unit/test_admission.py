"""Admission decisions and degenerate-tool-use cleaning (pure helpers, no Neo4j): reasons are data."""

from __future__ import annotations

from pathlib import Path

from graphforge.models.trajectory import TrajectoryStatus
from graphforge.oracle import InjectKind, run_oracle
from graphforge.settings import GraphforgeSettings
from graphforge.stages.admit_trajectories import (
    AdmissionReason,
    CleaningRule,
    CleaningRules,
    Degenerate,
    decide,
    degenerate_reasons,
    degenerate_use,
)
from tests.unit._judge_sample import sample_view, write_sample_workspace


def _trajectory(tmp_path: Path, *inject: InjectKind):  # type: ignore[no-untyped-def]
    view = sample_view()
    workspace = write_sample_workspace(tmp_path / "workspace")
    return run_oracle(view, view.paths, tmp_path / "runs", inject=list(inject),
                      workspace_dir=workspace).trajectory


def _rules(**settings: object) -> CleaningRules:
    return CleaningRules.from_settings(GraphforgeSettings(**settings))  # type: ignore[arg-type]


def test_clean_oracle_trajectory_is_not_degenerate(tmp_path: Path) -> None:
    assert degenerate_use(_trajectory(tmp_path), _rules()) == []


def test_repeated_calls_failures_excess_and_truncation_are_detected_as_data(tmp_path: Path) -> None:
    repeated = degenerate_use(_trajectory(tmp_path, InjectKind.REPEATED_CALLS), _rules())
    assert [d.rule for d in repeated] == [CleaningRule.REPEATED_CALL]
    assert repeated[0].detail.startswith("read_file(") and repeated[0].observed > repeated[0].limit == 3
    failing = degenerate_use(_trajectory(tmp_path, InjectKind.TOOL_FAILURES), _rules())
    assert CleaningRule.TOOL_FAILURE_RATE in {d.rule for d in failing}
    strict = _rules(admit_max_tool_calls=2, admit_max_truncations=0, admit_truncation_markers=["[page:"])
    rules = {d.rule: d for d in degenerate_use(_trajectory(tmp_path), strict)}
    assert {CleaningRule.EXCESSIVE_TOOL_CALLS, CleaningRule.REPEATED_TRUNCATION} <= set(rules)
    assert rules[CleaningRule.EXCESSIVE_TOOL_CALLS].limit == 2
    # The words are made from the data, not the other way round.
    words = degenerate_reasons(_trajectory(tmp_path), strict)
    assert any(w.startswith("excessive tool calls") for w in words)
    assert any(w.startswith("repeated truncation") for w in words)


def test_json_results_fail_only_with_a_non_empty_error(tmp_path: Path) -> None:
    t = _trajectory(tmp_path)
    tool_messages = [m for m in t.messages if m.role == "tool"]
    assert len(tool_messages) >= 5
    for k, m in enumerate(tool_messages):
        m.content = f'{{"error": null, "rows": {k}}}'
    assert degenerate_use(t, _rules()) == []
    for m in tool_messages:
        m.content = '{"error": "file not found"}'
    failed = degenerate_use(t, _rules())
    assert [d.rule for d in failed] == [CleaningRule.TOOL_FAILURE_RATE] and failed[0].observed == 1.0


def test_polling_tools_may_repeat(tmp_path: Path) -> None:
    t = _trajectory(tmp_path, InjectKind.REPEATED_CALLS)
    assert degenerate_use(t, _rules(admit_polling_tools=["read_file"])) == []


def test_thresholds_come_from_the_one_settings_object(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GRAPHFORGE_ADMIT_Q_THRESHOLD", "0.95")
    monkeypatch.setenv("GRAPHFORGE_ADMIT_MAX_TOOL_CALLS", "12")
    monkeypatch.setenv("GRAPHFORGE_ADMIT_POLLING_TOOLS", '["wait_for_job"]')
    s = GraphforgeSettings()
    assert (s.admit_q_threshold, s.admit_max_tool_calls) == (0.95, 12)
    assert CleaningRules.from_settings(s).polling_tools == ["wait_for_job"]
    import graphforge.stages.admit_trajectories as admission

    assert not hasattr(admission, "AdmissionSettings")  # no second settings class


def test_decisions_carry_a_reason_code_and_words() -> None:
    assert decide(None, None, None, [], 0.9) is None
    assert decide(0.0, False, "loss, judge not asked: x.xlsx missing", [], 0.9) == (
        TrajectoryStatus.REJECTED, AdmissionReason.LOSS, "loss: loss, judge not asked: x.xlsx missing")
    assert decide(0.9, True, "", [], 0.9)[:2] == (  # type: ignore[index]
        TrajectoryStatus.REJECTED, AdmissionReason.BELOW_THRESHOLD)  # strictly greater than
    assert decide(0.95, True, "", [], 0.9)[:2] == (  # type: ignore[index]
        TrajectoryStatus.ADMITTED, AdmissionReason.ADMITTED)
    repeated = Degenerate(rule=CleaningRule.REPEATED_CALL, observed=4, limit=3, detail="f(x)")
    status, code, words = decide(1.0, True, "", [repeated], 0.9)  # type: ignore[misc]
    assert (status, code) == (TrajectoryStatus.DISCARDED, AdmissionReason.DEGENERATE)
    assert words.endswith("discarded by cleaning: repeated non-polling call: f(x) x4 > 3")


def test_zero_tool_calls_on_a_task_over_files_is_degenerate_use(tmp_path: Path) -> None:
    # The deliverables are there (a perfect Q is possible), but not one file was read to make them.
    t = _trajectory(tmp_path)
    kept = [m for m in t.messages if m.role != "tool" and not (m.role == "assistant" and m.tool_calls)]
    silent = t.model_copy(update={"messages": kept})
    assert silent.messages and silent.deliverables
    found = degenerate_use(silent, _rules(), workspace_files=4)
    assert [d.rule for d in found] == [CleaningRule.NO_TOOL_CALLS]
    assert degenerate_reasons(silent, _rules(), workspace_files=4) == [
        "no tool calls: the task needs the workspace files (4 workspace files)"]
    status, code, reason = decide(1.0, True, None, found, 0.9) or (None, None, "")
    assert status is TrajectoryStatus.DISCARDED and code is AdmissionReason.DEGENERATE
    assert "tool use clean" not in reason and "no tool calls" in reason
    # A task over no files may be done without tools; the oracle's own run reads files and stays clean.
    assert degenerate_use(silent, _rules(), workspace_files=0) == []
    assert degenerate_use(t, _rules(), workspace_files=4) == []
