"""Stages that ask a chat model for structured answers survive answers that never validate: the task or
spec is left without the model's contribution, the calls are counted, and the reason is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.context import StageContext
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings
from graphforge.stages import build_seeds, load_digital, load_onet
from tests.support.llm_server import ScriptedLLMServer, text

pytestmark = pytest.mark.neo4j

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"


def test_seed_demands_that_never_validate_are_counted_not_fatal(
    graph: Graph, scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, tmp_path: Path
) -> None:
    ctx = StageContext(settings=llm_settings, graph=graph, run_id="test", out_dir=tmp_path / "out")
    load_onet.run(ctx, load_onet.LoadOnetParams(path=FIXTURE))
    load_digital.run(ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LABELS,
                                                         labels=FIXTURE / "digital_labels.csv"))
    scripted_llm.responder = lambda request: text("Sorry, I can only talk about the weather.")
    result = build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.LLM,
                                                               fallback=False))
    asked = result.tasks_seen - result.tasks_without_task_type
    assert asked > 0 and result.llm_answers_invalid == asked and result.seeds_written == 0
    assert result.llm_calls == 2 * asked == len(scripted_llm.chat_requests)  # first try + repair each
    assert result.llm_invalid_examples and "did not validate" in result.llm_invalid_examples[0]
    assert result.llm_fallbacks == 0

    # By default a task the model gave no seed gets the rule-based demands, labelled and explained, so a
    # weak model never leaves the pipeline without seeds (the demo with a 135M model did, at select).
    rules = build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.RULE_BASED))
    rule_seeds = _seeds(graph)
    fallback = build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.LLM))
    assert fallback.llm_calls == 2 * asked == len(scripted_llm.chat_requests)  # replayed from the cache
    assert fallback.seeds_written == rules.seeds_written > 0 and _seeds(graph) == rule_seeds
    assert fallback.llm_fallbacks == len({s["task"] for s in rule_seeds}) > 0
    assert all("answer did not validate" in e for e in fallback.llm_fallback_examples)
    assert {s["source"] for s in rule_seeds} == {"rule-based"}


def _seeds(graph: Graph) -> list[dict[str, object]]:
    query = "MATCH (s:Seed) RETURN s.seed_id AS id, s.task_id AS task, s.demand_source AS source ORDER BY id"
    return [r.data() for r in graph.driver.execute_query(query, database_=graph.database).records]
