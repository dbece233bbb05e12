"""The chat-model extractor against the scripted OpenAI-compatible server: facts verified or rejected."""

from __future__ import annotations

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.llm import LLMExtractor
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.stages.build_evidence import build
from tests.support.llm_server import ScriptedLLMServer, json_answer

SPANS = [
    WorkspaceSpan(span_id="aa:para=1", file_sha256="aa", locator="para=1", kind="paragraph", ordinal=0,
                  text="Group revenue for Q2 2024 was EUR 9,115 thousand.", path="memo.docx"),
    WorkspaceSpan(span_id="aa:para=2", file_sha256="aa", locator="para=2", kind="paragraph", ordinal=1,
                  text="To: Board of Directors", path="memo.docx"),
    WorkspaceSpan(span_id="bb:row=2", file_sha256="bb", locator="row=2", kind="row", ordinal=0,
                  text="Q2 2024\tTotal\t9100", path="export.csv"),
]


def test_llm_facts_are_structured_verified_and_linked(scripted_llm: ScriptedLLMServer,  # noqa: F811
                                                      scripted_chat_model: OpenAICompatibleChatModel) -> None:  # noqa: F811
    scripted_llm.push(  # files are read in path order: export.csv, then memo.docx
        json_answer(
            {
                "facts": [
                    {"value": "9100", "metric": "revenue", "period": "2024-Q2", "unit": "EUR", "scale": 1000}
                ]
            }
        ),
        json_answer(
            {
                "facts": [
                    {
                        "value": "EUR 9,115 thousand",
                        "metric": "Revenue",
                        "entity": None,
                        "period": "2024-Q2",
                        "unit": "EUR",
                    },
                    {
                        "value": "EUR 9,999 thousand",
                        "metric": "revenue",
                        "period": "2024-Q2",
                    },  # not in the span
                ]
            }
        ),
    )
    extractor = LLMExtractor(scripted_chat_model)
    extraction, edges = build(SPANS, extractor)
    assert len(scripted_llm.chat_requests) == 2  # the span without digits is not sent
    assert [(f.value, f.value_num, f.metric) for f in extraction.facts] == [
        ("9100", 9_100_000.0, "revenue"), ("EUR 9,115 thousand", 9_115_000.0, "revenue")]
    assert all(f.extractor == f"llm:{scripted_chat_model.model}" for f in extraction.facts)
    assert [r.value for r in extraction.rejected] == ["EUR 9,999 thousand"]
    assert [e.kind.value for e in edges] == []  # a prose reading that disagrees is not a reconcile edge
