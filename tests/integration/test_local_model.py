"""The chat-model stages against the REAL local model (SmolLM2-135M-Instruct served by llama-cpp-python).

These tests assert robustness, not quality: the weak model's answers are often wrong, and every stage
must still finish, record each malformed or unverifiable answer with its reason, count every call in the
ledger, keep nothing that its verifiers do not pass, and replay a re-run from the cache with 0 new
calls. A model server that cannot be started fails these tests; it never skips them.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from graphforge.agent.tools import TOOL_NAMES, TOOL_SCHEMAS
from graphforge.context import StageContext
from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.llm import LLMExtractor
from graphforge.evidence.workspace_roles import make_llm_assigner
from graphforge.figures.numbers import parse_value
from graphforge.graphdb.graph import Graph
from graphforge.llm import LEDGER, StructuredOutputError, ask_structured, chat_model, records_of
from graphforge.llm.structured import capabilities
from graphforge.llm.text_tools import call_grammar
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
)
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.models.workspace import FileRole
from graphforge.settings import GraphforgeSettings
from graphforge.stages import build_evidence, load_workspace, run_rollouts
from graphforge.stages.build_evidence import GET_WORKSPACE_SPANS
from graphforge.stores.specs import save_spec
from graphforge.stores.trajectories import get_trajectories
from loaders.workspace import rule_role

# A 135M model on two shared CPU cores answers at a few tokens a second: generous per-test limits.
pytestmark = [pytest.mark.neo4j, pytest.mark.local_llm, pytest.mark.timeout(2400)]


class Capital(BaseModel):
    country: str
    capital: str
    population_millions: float = Field(ge=0)


def test_the_local_model_answers_text_tools_and_structured_output(
    local_llm_settings: GraphforgeSettings,
) -> None:
    llm = chat_model(local_llm_settings)
    assert llm is not None and llm.endpoint.startswith("http://127.0.0.1:")
    mark = LEDGER.mark()
    reply = llm.invoke("What is the capital of France? Answer in one sentence.")
    assert isinstance(reply.content, str) and reply.content.strip()
    [record] = records_of(reply)
    assert record.input_tokens > 0 and record.output_tokens > 0 and record.model == llm.model

    # Tools: a well-formed call of an offered tool, or a call kept as invalid with its error, or text.
    bound = llm.bind_tools(TOOL_SCHEMAS, tool_choice="auto")
    turn = bound.invoke("List the files in the working directory.")
    assert isinstance(turn, AIMessage)
    assert all(c["name"] in TOOL_NAMES or c["name"] for c in turn.tool_calls)
    assert all(c.get("error") for c in turn.invalid_tool_calls)

    # Structured output: llama-cpp-python refuses json_schema (HTTP 500, not retried) and takes
    # json_object with the schema as a grammar; the method is remembered for the endpoint.
    try:
        answer, records = ask_structured(llm, Capital, "Give the country, capital and population of France.")
        assert isinstance(answer, Capital) and 1 <= len(records) <= 2
    except StructuredOutputError as exc:
        assert len(exc.records) == 2  # the first answer and the repair, both in the ledger
    assert capabilities(llm).get(llm) == "json_object"
    totals = LEDGER.since(mark)
    assert totals.calls >= 3 and totals.input_tokens > 0


def test_a_write_held_by_a_bounded_grammar_closes_within_the_reply_budget(
    local_llm_settings: GraphforgeSettings,
) -> None:
    """The final write's grammar with the reply's token budget: asked for far more than the budget holds,
    the real server still returns one whole call (its string closed in time), not a call cut short."""
    llm = chat_model(local_llm_settings)
    assert llm is not None
    # A budget that holds the call's fixed text (about 60 of this model's tokens) but not what the model
    # writes unbounded here (85 tokens in all, cut at 75): the bound leaves the string nothing past the
    # fixed text's characters, and the call still closes.
    budget = 75
    grammar = call_grammar("write_file", {"path": "report.md"}, "content", max_tokens=budget)
    reply = llm.invoke("Write a very long Markdown report about regional revenue: twenty sections, each with "
                       "ten bullet points.", grammar=grammar, max_tokens=budget, temperature=0)
    assert isinstance(reply, AIMessage) and not reply.invalid_tool_calls
    assert reply.response_metadata["finish_reason"] == "stop"  # whole: not cut by the budget
    [call] = reply.tool_calls
    assert call["name"] == "write_file" and call["args"]["path"] == "report.md"
    assert len(call["args"]["content"]) <= budget


def test_a_json_deliverable_s_forced_write_is_a_readable_json_document(
    local_llm_settings: GraphforgeSettings,
) -> None:
    """The final write of a ``.json`` deliverable held to a JSON document: the real server's reply is one
    whole call whose string Python reads as a JSON object or array. Held only to a string, this model
    writes here ``1234567890`` (measured): no records file."""
    llm = chat_model(local_llm_settings)
    assert llm is not None
    budget = 400
    grammar = call_grammar("write_file", {"path": "records.json"}, "content", max_tokens=budget,
                           json_document=True)
    reply = llm.invoke("Write records.json: for each of the files budget_2023.xlsx, budget_2024.pdf and "
                       "notes.md, its file name, its title and the file it replaces.",
                       grammar=grammar, max_tokens=budget, temperature=0)
    assert isinstance(reply, AIMessage) and not reply.invalid_tool_calls
    assert reply.response_metadata["finish_reason"] == "stop"
    [call] = reply.tool_calls
    assert call["name"] == "write_file" and call["args"]["path"] == "records.json"
    assert isinstance(json.loads(call["args"]["content"]), dict | list)


def test_roles_and_evidence_from_the_local_model_are_verified_and_replayed(
    local_llm_settings: GraphforgeSettings, graph: Graph, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ledger.csv").write_text("Segment,Revenue Q2 2024 (EUR)\nNorth,4580\nSouth,2120\nTotal,6700\n",
                                     encoding="utf-8")
    (root / "memo_draft.md").write_text("# Draft memo (superseded)\nRevenue was 6,500 in Q2 2024.\n",
                                        encoding="utf-8")
    (root / "canteen.txt").write_text("Canteen menu: soup on Monday.\n", encoding="utf-8")
    llm = chat_model(local_llm_settings)
    assert llm is not None

    # Roles from the files' opening text: every file gets a role, labelled by who gave it.
    paths = ["canteen.txt", "ledger.csv", "memo_draft.md"]
    records: list[object] = []
    roles = make_llm_assigner(llm, root, fallback=rule_role, on_records=records.extend)(paths)
    assert set(roles) == set(paths) and records
    assert all(isinstance(role, FileRole) and source in ("rules", f"llm:{llm.model}")
               for role, source in roles.values())

    # Evidence: batched calls; every kept fact is recoverable from its span; every rejection has a reason.
    ctx = StageContext(settings=local_llm_settings, graph=graph, run_id="local-llm", out_dir=tmp_path / "out")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=root, jobs=1, use_llm_roles=False))
    mark = LEDGER.mark()
    result = build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="llm"))
    first = LEDGER.since(mark)
    assert result.extractor == f"llm:{llm.model}"
    spans = build_evidence.unique_spans([s for w in result.workspaces for s in graph.read(
        GET_WORKSPACE_SPANS, WorkspaceSpan, workspace_id=w.workspace_id)])
    digit_spans = sum(any(c.isdigit() for c in s.text) for s in spans)
    assert 0 < first.calls <= 2 < digit_spans  # batched: one call (and a repair) for every span with a figure
    extractor = LLMExtractor(llm)
    extraction = extractor.extract(spans)
    text_of = {s.span_id: s.text for s in spans}
    for fact in extraction.facts:
        assert fact.value in text_of[fact.span_id]
        if fact.value_num is not None:
            assert parse_value(fact.value) is not None
    assert all(r.reason for r in extraction.rejected)
    assert result.facts_written == len(extraction.facts) and result.rejected == len(extraction.rejected)

    # A re-run replays every answer from the cache: 0 new model calls.
    mark = LEDGER.mark()
    again = build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="llm"))
    replay = LEDGER.since(mark)
    assert replay.calls == first.calls and replay.cached_calls == replay.calls
    assert again.facts_written == result.facts_written


LEDGER_CSV = "account,amount\nrent,1200\npayroll,5300\n"


def _spec() -> TaskSpec:
    spec_id = "local-ledger@v1"
    return TaskSpec(
        spec_id=spec_id, base_id="local-ledger", version=1, workspace_id="ws-local",
        statement="Write total.md stating the total of the amounts in ledger.csv.", statement_hash="1" * 16,
        deliverables=[DeliverableSpec(deliverable_id=f"{spec_id}/total.md", name="total.md", format="md",
                                      description="The total.")],
        criteria=[CriterionSpec(
            criterion_id=f"{spec_id}/c1", polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=1.0,
            requirement="Total of the ledger", target_deliverable="total.md", target_location="total.md",
            expected_value=6500.0, computation="sum", verification="Recompute the sum.")],
        compiler="template")


def test_a_teacher_rollout_with_tools_on_the_local_model_finishes_and_replays(
    local_llm_settings: GraphforgeSettings, graph: Graph, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "ledger.csv").write_text(LEDGER_CSV, encoding="utf-8")
    save_spec(graph, _spec())
    ctx = StageContext(settings=local_llm_settings, graph=graph, run_id="local-llm", out_dir=tmp_path / "out")
    params = run_rollouts.RunRolloutsParams(spec_id="local-ledger@v1", n=1, max_steps=3,
                                            workspace_dir=workspace)
    mark = LEDGER.mark()
    result = run_rollouts.run(ctx, params)
    first = LEDGER.since(mark)
    [summary] = result.rollouts
    assert (summary.stop_reason in ("finished", "max_steps", "no_deliverables")
            or summary.stop_reason.startswith("llm_error"))
    assert 1 <= summary.steps <= 3 and result.llm_calls == first.calls >= 1
    assert summary.tool_failures <= summary.tool_calls
    [stored] = get_trajectories(graph, [summary.trajectory_id])
    assert stored.status in (TrajectoryStatus.MATERIALISED, TrajectoryStatus.FAILED)
    assert stored.prompt_tokens == first.input_tokens and stored.steps == summary.steps
    # Every assistant turn is a valid chat message; every tool result answers a call of this turn.
    calls = {c.id for m in stored.messages if m.role == "assistant" and m.tool_calls for c in m.tool_calls}
    assert {m.tool_call_id for m in stored.messages if m.role == "tool"} <= calls
    assert json.loads(stored.model_dump_json())["messages"][0]["role"] == "system"

    mark = LEDGER.mark()
    again = run_rollouts.run(ctx, params.model_copy(update={"force": True}))
    replay = LEDGER.since(mark)
    assert replay.calls == first.calls and replay.cached_calls == replay.calls
    assert again.rollouts[0].steps == summary.steps


def test_the_managed_server_keeps_its_key_private(local_llm_settings: GraphforgeSettings) -> None:
    from graphforge.llm.server import ManagedLocalModel

    managed = ManagedLocalModel(local_llm_settings)
    status = managed.status()
    assert status.running and status.pid is not None and status.base_url.startswith("http://127.0.0.1:")
    key = managed.api_key()
    assert (managed.credentials.stat().st_mode & 0o777) == 0o600
    cmdline = Path(f"/proc/{status.pid}/cmdline").read_bytes().decode(errors="replace")
    assert "llama_cpp.server" in cmdline and key not in cmdline  # the key travels in the environment
    assert key not in repr(managed.info()) and key not in str(status)
    # The server refuses a request without the key.
    assert httpx.get(f"{status.base_url}/models", timeout=10).status_code in (401, 403)
