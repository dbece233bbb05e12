"""The chat-model extractor against the scripted OpenAI-compatible server: batches per section, facts
placed on the span they name and verified there, derive edges from the table linker, failures recorded."""

from __future__ import annotations

import json
import re

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.llm import LLMExtractor, batches
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.evidence import DependencyKind
from graphforge.stages.build_evidence import build
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, text

SPANS = [
    WorkspaceSpan(span_id="aa:para=1", file_sha256="aa", locator="para=1", kind="paragraph", ordinal=0,
                  text="Group revenue for Q2 2024 was EUR 9,115 thousand.", path="memo.docx"),
    WorkspaceSpan(span_id="aa:para=2", file_sha256="aa", locator="para=2", kind="paragraph", ordinal=1,
                  text="To: Board of Directors", path="memo.docx"),
    WorkspaceSpan(span_id="bb:row=2", file_sha256="bb", locator="row=2", kind="row", ordinal=0,
                  text="Q2 2024\tTotal\t9100", path="export.csv"),
]


def _cell(sheet: str, row: int, text_: str, ordinal: int,
          formulas: dict[str, str] | None = None) -> WorkspaceSpan:
    loc = f"sheet={sheet}!A{row}:C{row}"
    return WorkspaceSpan(span_id=f"cc:{loc}", file_sha256="cc", locator=loc, kind="row", ordinal=ordinal,
                         text=text_, formulas_json=json.dumps(formulas or {}), path="ledger.xlsx")


LEDGER = [
    _cell("Q2", 1, "Acme - ledger Q2 2024 (EUR thousand)", 0),
    _cell("Q2", 2, "Segment\tRevenue\tCosts", 1),
    _cell("Q2", 3, "North\t100\t65", 2),
    _cell("Q2", 4, "South\t50\t30", 3),
    _cell("Q2", 5, "Total\t150\t95", 4, {"B5": "=SUM(B3:B4)", "C5": "=SUM(C3:C4)"}),
    _cell("Q3", 1, "Acme - ledger Q3 2024 (EUR thousand)", 5),
    _cell("Q3", 2, "North\t120\t70", 6),
]


def _reader(request: RecordedRequest) -> Reply:
    """A faithful reader: every number of every excerpt, under the excerpt's id."""
    prompt = request.messages[1]["content"]
    facts = []
    for sid, body in re.findall(r"\[(S\d+)\] \([^)]*\)\n(.*?)(?=\n\n\[S|\Z)", prompt, re.DOTALL):
        for number in re.findall(r"(?<![\w.])\d[\d,]*(?![\w])", body):
            facts.append({"span": sid, "value": number, "metric": "amount", "period": "2024-Q2"})
    return json_answer({"facts": facts})


def test_llm_facts_are_structured_verified_and_linked(scripted_llm: ScriptedLLMServer,
                                                      scripted_chat_model: OpenAICompatibleChatModel) -> None:
    scripted_llm.push(json_answer({"facts": [  # spans in path order: export.csv (S1), then memo.docx (S2)
        {"span": "S1", "value": "9100", "metric": "revenue", "period": "2024-Q2", "unit": "EUR",
         "scale": 1000},
        {"span": "S2", "value": "EUR 9,115 thousand", "metric": "Revenue", "period": "2024-Q2",
         "unit": "EUR"},
        {"span": "S2", "value": "EUR 9,999 thousand", "metric": "revenue", "period": "2024-Q2"},
    ]}))
    extractor = LLMExtractor(scripted_chat_model)
    extraction, edges = build(SPANS, extractor)
    assert len(scripted_llm.chat_requests) == 1  # two small files share a call; no digits: not sent
    assert "Board of Directors" not in json.dumps([r.body for r in scripted_llm.chat_requests])
    assert [(f.value, f.value_num, f.metric) for f in extraction.facts] == [
        ("9100", 9_100_000.0, "revenue"), ("EUR 9,115 thousand", 9_115_000.0, "revenue")]
    assert all(f.extractor == f"llm:{scripted_chat_model.model}" for f in extraction.facts)
    assert [(r.value, r.reason) for r in extraction.rejected] == [
        ("EUR 9,999 thousand", "value text not found in span")]
    assert [e.kind.value for e in edges] == []  # a prose reading that disagrees is not a reconcile edge
    assert extractor.calls == 1 and extractor.cost_usd > 0


def test_one_call_for_a_small_workbook_with_facts_on_the_span_they_name_and_derive_edges(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    scripted_llm.responder = _reader
    extraction, edges = build(LEDGER, LLMExtractor(scripted_chat_model))
    assert len(scripted_llm.chat_requests) == 1  # both sheets fit the budget
    by_value = {f.value: f for f in extraction.facts}
    assert by_value["150"].span_id == "cc:sheet=Q2!A5:C5" and by_value["65"].span_id == "cc:sheet=Q2!A3:C3"
    derive = {(by_id.value, dst.value) for e in edges if e.kind is DependencyKind.DERIVE
              for by_id in extraction.facts if by_id.fact_id == e.src_fact_id
              for dst in extraction.facts if dst.fact_id == e.dst_fact_id}
    # The same totals the rule-based path links: 150 = 100 + 50 and 95 = 65 + 30.
    assert {("150", "100"), ("150", "50"), ("95", "65"), ("95", "30")} <= derive
    rule_extraction, rule_edges = build(LEDGER)
    assert len([e for e in rule_edges if e.kind is DependencyKind.DERIVE]) == len(
        [e for e in edges if e.kind is DependencyKind.DERIVE])


def test_batches_respect_the_token_budget_and_the_span_count() -> None:
    rows = [_cell("Big", i + 1, f"Item {i}\t{i * 1000}\t{'x' * 200}", i) for i in range(30)]
    packed = batches(rows, max_tokens=600, max_spans=40)
    assert len(packed) > 1 and all(sum(len(s.text) for s in b.spans) // 4 <= 600 + 60 for b in packed)
    assert [s.span_id for b in packed for s in b.spans] == [s.span_id for s in rows]  # order kept, none lost
    assert len(batches(rows, max_tokens=10**6, max_spans=7)) == 5
    assert len(batches(rows, max_tokens=10**6, max_spans=1)) == 30  # the one-call-per-span baseline
    [whole] = batches(LEDGER, 10**6, 40)
    assert whole.sections == [("ledger.xlsx", "sheet Q2"), ("ledger.xlsx", "sheet Q3")]


def _export_batch_never_validates(scripted_llm: ScriptedLLMServer) -> None:
    """Answers for SPANS one batch at a time: the export row's call and repair fail, the memo's succeeds."""
    scripted_llm.push(
        text("I cannot help with spreadsheets."), text("Still no JSON, sorry."),
        json_answer({"facts": [{"span": "S1", "value": "EUR 9,115 thousand", "metric": "revenue"}]}),
    )


def test_a_batch_whose_answer_never_validates_is_recorded_and_the_rest_goes_on(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    _export_batch_never_validates(scripted_llm)
    extractor = LLMExtractor(scripted_chat_model, max_batch_spans=1, fallback=False)
    extraction = extractor.extract(SPANS)
    assert [f.value for f in extraction.facts] == ["EUR 9,115 thousand"]
    [failed] = extraction.rejected
    assert failed.span_id == "bb:row=2" and failed.reason.startswith("chat model answer did not validate")
    assert extractor.calls == 3  # the failed first try and repair are in the ledger too
    assert extractor.fallback_batches == extractor.fallback_facts == 0


def test_a_batch_the_model_reads_nothing_from_gets_the_rule_based_facts_labelled_as_such(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel
) -> None:
    _export_batch_never_validates(scripted_llm)
    extractor = LLMExtractor(scripted_chat_model, max_batch_spans=1)  # fallback on by default
    extraction = extractor.extract(SPANS)
    by_span = {f.span_id: (f.value, f.extractor) for f in extraction.facts}
    # The model's reading of the memo stays; the export row it never answered for is read by the rules.
    assert by_span == {"aa:para=1": ("EUR 9,115 thousand", extractor.name),
                       "bb:row=2": ("9100", "rule-based")}
    assert extractor.fallback_batches == extractor.fallback_facts == 1
    assert [r.span_id for r in extraction.rejected] == ["bb:row=2"]  # the failure is still recorded


def test_facts_read_from_structure_are_the_same_on_the_chat_model_path(
        scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel) -> None:
    # The model reads the figure; the requirement and its deadline come from the structure reader, as on
    # the rule-based path, so a policy workspace compiles the same families with either extractor.
    spans = [
        WorkspaceSpan(span_id="pp:section=1", file_sha256="pp", locator="section=1", kind="section",
                      ordinal=0, path="policy.md",
                      text="## 3.2 Reporting\nThe contractor shall submit the final report to the "
                           "Contracting Officer no later than March 31, 2025.\n"
                           "Total program cost in FY 2024 was $4,200."),
    ]
    scripted_llm.push(json_answer({"facts": [
        {"span": "S1", "value": "$4,200", "metric": "program cost", "period": "FY2024", "unit": "USD"}]}))
    extraction, _ = build(spans, LLMExtractor(scripted_chat_model))
    kinds = {(f.kind.value, f.extractor) for f in extraction.facts}
    assert ("quantity", f"llm:{scripted_chat_model.model}") in kinds
    assert {("requirement", "rule-based"), ("date", "rule-based")} <= kinds, kinds
    assert not any(f.kind.value == "quantity" and f.extractor == "rule-based" for f in extraction.facts)
