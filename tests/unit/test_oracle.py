"""The graph oracle writes real deliverables, labels itself, and injects exactly the errors asked for."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl

from graphforge.judge.documents import read_markdown
from graphforge.judge.perturb import PerturbationKind
from graphforge.judge.sensitivity import cases_for, summarise
from graphforge.models.judge import JudgeArm
from graphforge.oracle import ORACLE_MODEL, InjectKind, run_oracle
from graphforge.stages.revise_specs import (
    RevisionPatch,
    apply_patch,
    rule_based_patch,
    spec_checks,
    statement_leaks,
)
from tests.unit._judge_sample import MD, XLSX, sample_spec, sample_view


def test_oracle_writes_sheets_formulas_sections_and_citations(tmp_path: Path) -> None:
    view = sample_view()
    run = run_oracle(view, view.paths, tmp_path)
    t = run.trajectory
    assert (t.scaffold, t.model) == ("oracle", ORACLE_MODEL) and "oracle" in t.source
    files = {d.name: Path(d.path) for d in t.deliverables}
    wb = openpyxl.load_workbook(files[XLSX])
    assert wb["Summary"]["B4"].value.startswith("=")
    assert "finance/q3_ledger.xlsx" in wb["Summary"]["C4"].value
    memo = read_markdown(files[MD])
    assert memo.section("Findings") is not None and memo.section("Sources") is not None
    # Tool calls are well-formed and never show hidden information.
    calls = [c for m in t.messages if m.tool_calls for c in m.tool_calls]
    # No workspace folder here, so nothing to read: the workbook is built by openpyxl code run in the
    # sandbox, the memo written with its full text (tests/integration/test_export_sample.py replays reads).
    assert {c.function.name for c in calls} == {"list_files", "run_python", "write_file"}
    written = next(json.loads(c.function.arguments) for c in calls if c.function.name == "write_file")
    assert written["content"] == files[MD].read_text(encoding="utf-8")
    code = next(json.loads(c.function.arguments)["code"] for c in calls if c.function.name == "run_python"
                and "openpyxl" in c.function.arguments)
    assert "wb.save(" in code and XLSX in code
    assert not re.search(r"<\d+ bytes", t.model_dump_json())
    assert all(isinstance(json.loads(c.function.arguments), dict) for c in calls)
    dump = t.model_dump_json()
    assert "f-inv" not in dump and "confuser" not in dump


def test_oracle_run_is_deterministic_per_spec_and_injection(tmp_path: Path) -> None:
    view = sample_view()
    a = run_oracle(view, view.paths, tmp_path / "a").trajectory
    b = run_oracle(view, view.paths, tmp_path / "b").trajectory
    c = run_oracle(view, view.paths, tmp_path / "c", inject=[InjectKind.WRONG_NUMBER]).trajectory
    assert a.trajectory_id == b.trajectory_id != c.trajectory_id
    assert [d.sha256 for d in a.deliverables] == [d.sha256 for d in b.deliverables]


def test_every_perturbation_moves_its_target_and_not_the_others(tmp_path: Path) -> None:
    view = sample_view()
    t = run_oracle(view, view.paths, tmp_path).trajectory
    files = {d.name: Path(d.path) for d in t.deliverables}
    cases, unscored = cases_for(view, files, JudgeArm.ANCHORED, tmp_path / "sens",
                                trajectory_id=t.trajectory_id)
    assert unscored == []
    rows = summarise(cases)
    # The paper's four and those this spec offers (it has no stale criterion: no superseded source).
    assert {r.kind for r in rows} == set(PerturbationKind) - {PerturbationKind.SUPERSEDED_SOURCE,
                                                               PerturbationKind.WRONG_LAYOUT}
    for row in rows:
        assert row.target_delta_mean <= -0.5, row
        assert row.non_target_abs_mean <= 0.02, row


def test_spec_checks_find_leaks_and_unrecoverable_values_and_revision_fixes_them() -> None:
    spec = sample_spec()
    leaky = spec.model_copy(
        update={
            "statement": spec.statement + " Use the core file f-inv; the answer is 469.50.",
            "criteria": [spec.criteria[0].model_copy(update={"expected_value": 500.0}), *spec.criteria[1:]],
        }
    )
    view = sample_view(leaky)
    problems = spec_checks(view)
    assert any("expected value 500" in p for p in problems)
    assert {"fact id f-inv", "role word 'core'", "expected value 469.50"} <= set(statement_leaks(view))
    patch = rule_based_patch(view)
    revised, changed = apply_patch(leaky, patch, "rule-based")
    assert revised.spec_id == "demo-recon@v2" and revised.revised_from == leaky.spec_id
    assert "statement" in changed and "c1.expected_value" in changed
    assert revised.criteria[0].expected_value == 469.5 and "f-inv" not in revised.statement
    # A patch that changes nothing in the statement keeps its hash (the rollout can be reused).
    same, changed2 = apply_patch(spec, RevisionPatch(), "rule-based")
    assert changed2 == [] and same.statement_hash == spec.statement_hash


def test_oracle_answers_equal_what_this_test_computes_from_the_source_spans(tmp_path: Path) -> None:
    # Expectations written here from the spans themselves ("$12,450.00" in the ledger, "11,980.50" in the
    # bank statement), not by the judge's parser or evaluator: the difference is 469.50.
    invoiced, paid = 12_450.00, 11_980.50
    view = sample_view()
    files = {d.name: Path(d.path) for d in run_oracle(view, view.paths, tmp_path).trajectory.deliverables}
    book = openpyxl.load_workbook(files[XLSX])

    def cell(ref: str) -> object:
        sheet, _, addr = ref.partition("!")
        return book[sheet][addr].value

    def sheet_of(ref: str) -> str:
        return ref.partition("!")[0]

    def evaluate(ref: str) -> float:
        """Only what the oracle writes: a number, a reference, or references joined by + and -."""
        value = cell(ref)
        if isinstance(value, (int, float)):
            return float(value)
        assert isinstance(value, str) and value.startswith("="), (ref, value)
        total, sign = 0.0, 1.0
        for token in value[1:].replace("-", " - ").replace("+", " + ").split():
            if token in "+-":
                sign = -1.0 if token == "-" else 1.0
            else:
                total += sign * evaluate(token if "!" in token else f"{sheet_of(ref)}!{token}")
        return total

    assert evaluate("Summary!B4") == invoiced - paid == 469.50
    assert evaluate("Summary!B5") == invoiced
    memo = files[MD].read_text(encoding="utf-8")
    assert "Bank payments to ACME Corp: 11,980.50" in memo
    assert "13,000" not in memo  # the superseded draft total is never written
