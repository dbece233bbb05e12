"""One leak checker for the compiler and the reviser: workspace file names and the documents' own words are
not leaks; hidden roles, rubric vocabulary, fact ids and expected values still are."""

from __future__ import annotations

from graphforge.judge.view import Anchor, JudgeView, WorkspaceFile
from graphforge.models.spec import AgentView, TaskSpec
from graphforge.specs.checks import DocumentText, leaks
from graphforge.stages.revise_specs import rule_based_patch, statement_leaks
from tests.unit._judge_sample import A_BANK, A_DRAFT, A_INV, sample_spec

CORE_CSV = "data/core-inflation-2024.csv"
SCHEDULES = "annex/Supporting Schedules 2024.pdf"
FILES = [CORE_CSV, SCHEDULES, "finance/ledger-12450.csv", "guidance/Grant Guidance.pdf"]
DELIVERABLES = ["q3_reconciliation.xlsx", "q3_memo.md"]
TAIL = " Write q3_reconciliation.xlsx and q3_memo.md."

HEADING_SPAN = ("3.2 Eligibility criteria for grantees\n- registered in the state\n- audited accounts\n"
                "- a signed assurance form")
A_HEADING = Anchor(fact_id="f-list", statement="'Eligibility criteria for grantees' lists: audited accounts",
                   value="audited accounts", span_text=HEADING_SPAN, path="guidance/Grant Guidance.pdf")
# Text of the workspace's documents that happens to use role words ("core inflation", "the core").
CORE_SPAN = "Core inflation rose to 3.1% in 2024; the core measure excludes food."
A_CORE = Anchor(fact_id="f-core", statement="Core inflation, 2024", value="3.1%", span_text=CORE_SPAN,
                path=CORE_CSV)
DOCUMENTS = DocumentText([HEADING_SPAN, CORE_SPAN, "Table 4: supporting schedules by programme"])


def _spec(statement: str) -> TaskSpec:
    return sample_spec().model_copy(update={"statement": statement + TAIL})


def _agent(statement: str) -> tuple[AgentView, TaskSpec]:
    spec = _spec(statement)
    view = AgentView(spec_id=spec.spec_id, statement=spec.statement, files=FILES, deliverables=DELIVERABLES)
    return view, spec


def _judge(statement: str) -> JudgeView:
    spec = _spec(statement)
    by_id = {a.fact_id: a for a in (A_INV, A_BANK, A_DRAFT)}
    anchors = {c.criterion_id: [by_id[f] for f in c.anchors] for c in spec.criteria}
    anchors["extra"] = [A_HEADING, A_CORE]  # the reviser weighs words against the anchored spans
    return JudgeView(spec=spec, anchors=anchors, files=[WorkspaceFile(path=p) for p in FILES])


def _compile_side(statement: str, documents: DocumentText | None = DOCUMENTS) -> list[str]:
    view, spec = _agent(statement)
    return leaks(view, spec, documents=documents)


def test_cited_file_names_are_not_role_leaks() -> None:
    statement = ("Compare the figures in core-inflation-2024.csv with Supporting Schedules 2024.pdf, and the "
                 "annex tables in Supporting Schedules 2024, then check ledger-12450.csv.")
    # Without the documents' text too: the file names alone must not read as roles or expected values.
    assert _compile_side(statement, documents=None) == []
    assert statement_leaks(_judge(statement)) == []


def test_real_role_leaks_are_caught_beside_cited_files_and_documents_that_use_the_words() -> None:
    statement = ("Compare core-inflation-2024.csv with Supporting Schedules 2024.pdf. Use the core file, "
                 "ignore the confuser and treat the supporting notes as background.")
    want = {"role word 'core'", "role word 'confuser'", "role word 'supporting'"}
    assert set(_compile_side(statement)) == want
    assert set(statement_leaks(_judge(statement))) == want


def test_a_heading_the_documents_use_is_not_a_leak() -> None:
    # The gap analysis family quotes the heading the required items sit under.
    statement = ("Grant Guidance.pdf sets out what is expected under 'Eligibility criteria for grantees'; "
                 "list where the rest of the material falls short. Core inflation is out of scope.")
    assert _compile_side(statement) == []
    assert statement_leaks(_judge(statement)) == []
    # Without the documents' text the checker cannot tell, and says so.
    assert _compile_side(statement, documents=None) == ["role word 'core'", "word 'criteria'"]


def test_judge_vocabulary_and_unquoted_hidden_words_are_still_caught() -> None:
    statement = ("Each criterion is checked against the rubric; the hidden criteria reward citing "
                 "'the anchored spans'.")
    want = {"word 'criterion'", "word 'criteria'", "word 'rubric'", "word 'anchored'"}
    assert set(_compile_side(statement)) == want
    assert set(statement_leaks(_judge(statement))) == want


def test_expected_values_and_fact_ids_still_leak_next_to_cited_files() -> None:
    statement = "Check ledger-12450.csv; the difference is 469.50 (see f-inv)."
    found = _compile_side(statement)
    assert "fact id f-inv" in found
    assert any(x.endswith("expected value 469.50") for x in found), found
    assert not any("12450" in x or "12,450" in x for x in found), found
    assert {"fact id f-inv", "expected value 469.50"} <= set(statement_leaks(_judge(statement)))


def test_rule_based_repair_removes_a_role_word_but_keeps_the_file_name() -> None:
    patch = rule_based_patch(_judge("Use core-inflation-2024.csv, the core file."))
    assert patch.statement == "Use core-inflation-2024.csv, the file." + TAIL
