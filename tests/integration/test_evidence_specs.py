"""The bundled sample end to end: ingest, evidence graph, specs; anchors, leaks, re-runs, Browser queries."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.figures.numbers import parse_value
from graphforge.graphdb import chores, cypher
from graphforge.models.spec import CriterionKind, Polarity
from graphforge.specs.checks import leaks, recompute
from graphforge.stages import build_evidence, compile_specs, load_workspace
from graphforge.stores import specs as specs_store

pytestmark = pytest.mark.neo4j
REPO = Path(__file__).resolve().parents[2]


def _browser(name: str) -> cypher.CypherQuery:
    # Browser queries are for people and stay out of the loaded catalog; run them from their files as written.
    text = (REPO / "cypher" / "browser" / f"{name}.cypher").read_text(encoding="utf-8")
    return cypher.CypherQuery(f"browser/{name}", text, cypher.parameters_of(text))  # type: ignore[arg-type]


def _pipeline(ctx: StageContext, tmp_path: Path) -> tuple[build_evidence.BuildEvidenceResult,
                                                           compile_specs.CompileSpecsResult]:
    sample = generate_sample_workspace(tmp_path / "sample")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=sample.root, manifest=sample.manifest, jobs=1, use_llm_roles=False))
    evidence = build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    specs = compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template"))
    return evidence, specs


def test_sample_compiles_to_anchored_leak_free_specs_and_reruns_change_nothing(ctx: StageContext,
                                                                              tmp_path: Path) -> None:
    evidence, compiled = _pipeline(ctx, tmp_path)
    ws = evidence.workspaces[0]
    assert ws.facts > 50 and all(ws.edges[k] > 0 for k in ("compare", "reconcile", "derive", "interpret"))
    assert compiled.specs and not compiled.skipped
    for summary in compiled.specs:
        spec = specs_store.load_spec(ctx.graph, summary.spec_id)
        anchors = specs_store.criterion_anchors(ctx.graph, spec.spec_id)
        by_criterion: dict[str, list[specs_store.AnchorEvidence]] = {}
        for a in anchors:
            by_criterion.setdefault(a.criterion_id, []).append(a)
            assert a.value in a.span_text, f"{a.fact_id} value {a.value!r} not in its span"
        for c in spec.positive:
            assert c.anchors and [a.fact_id for a in by_criterion[c.criterion_id]] == c.anchors
        for c in spec.criteria:
            if c.kind is CriterionKind.VALUE and c.polarity is Polarity.POSITIVE:
                found = {a.fact_id: a for a in by_criterion[c.criterion_id]}
                numbers = [
                    parse_value(found[i].value) * (found[i].value_num or 0) / parse_value(found[i].value)
                    for i in c.anchors
                ]
                assert recompute(c.computation or "", numbers) == pytest.approx(c.expected_value, rel=1e-9)
        negative_roles = {
            a.role for c in spec.negative for a in by_criterion[c.criterion_id] if a.position == 0
        }
        assert spec.negative and negative_roles == {"confuser"}
        view = specs_store.agent_view_from_graph(ctx.graph, spec.spec_id)
        every_fact = [a.fact_id for a in anchors]
        assert leaks(view, spec, every_fact) == []
        assert set(view.deliverables) == {d.name for d in spec.deliverables}
        for d in spec.deliverables:
            assert d.name in view.statement
    before = chores.counts(ctx.graph)
    again_evidence, again_specs = (
        build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based")),
        compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template")),
    )
    assert chores.counts(ctx.graph) == before
    assert again_evidence.workspaces == evidence.workspaces and again_specs == compiled


def test_browser_queries_return_what_they_claim(ctx: StageContext, tmp_path: Path) -> None:
    _, compiled = _pipeline(ctx, tmp_path)
    spec = specs_store.load_spec(ctx.graph, compiled.specs[0].spec_id)
    # The lineage query returns paths (Browser draws them): read the nodes along each anchored path.
    records = ctx.graph.driver.execute_query(_browser("lineage").text, spec_id=spec.spec_id,
                                             database_=ctx.graph.database).records
    anchored = {(c.criterion_id, a) for c in spec.criteria for a in c.anchors}
    seen = set()
    for record in records:
        assert record["compiled"].end_node["workspace_id"] == spec.workspace_id
        path = record["anchored"]
        if path is None:
            continue
        by_label = {next(iter(n.labels)): n for n in path.nodes}
        seen.add((by_label["Criterion"]["criterion_id"], by_label["Fact"]["fact_id"]))
        assert by_label["Span"]["locator"] and by_label["File"]["sha256"]
    assert seen == anchored
    first = spec.positive[0]
    chains = ctx.graph.driver.execute_query(_browser("criterion_anchors").text,
                                            criterion_id=first.criterion_id,
                                            database_=ctx.graph.database).records
    facts = {}
    for record in chains:
        nodes = {next(iter(n.labels)): n for n in record["chain"].nodes}
        facts[nodes["Fact"]["fact_id"]] = (nodes["Fact"]["value"], nodes["Span"]["text"])
        held = record["held"]
        assert held is not None and held.relationships[0]["role"] in {"core", "supporting", "confuser"}
    assert sorted(facts) == sorted(first.anchors)
    assert all(value in text for value, text in facts.values())


def test_a_rebuild_drops_links_its_rules_no_longer_make(ctx: StageContext, tmp_path: Path) -> None:
    """A link an earlier rule made between facts the rebuild keeps (here planted by hand) is gone after it."""
    evidence, _ = _pipeline(ctx, tmp_path)
    text = (
        "MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)"
        "<-[:FROM_SPAN]-(a:Fact) WITH a ORDER BY a.fact_id LIMIT 2 WITH collect(a) AS two "
        "WITH two[0] AS a, two[1] AS b MERGE (a)-[d:DEPENDS_ON {kind: 'reference'}]->(b) "
        "SET d.note = 'planted' RETURN count(d) AS planted"
    )
    plant = cypher.CypherQuery("test/plant", text, cypher.parameters_of(text))  # type: ignore[arg-type]
    count_text = "MATCH ()-[d:DEPENDS_ON {note: 'planted'}]->() RETURN count(d) AS n"
    count = cypher.CypherQuery("test/count", count_text, cypher.parameters_of(count_text))  # type: ignore[arg-type]
    workspace_id = evidence.workspaces[0].workspace_id
    assert ctx.graph.execute(plant, workspace_id=workspace_id)[0]["planted"] == 1
    assert ctx.graph.read_dicts(count)[0]["n"] == 1
    again = build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    assert ctx.graph.read_dicts(count)[0]["n"] == 0
    assert again.workspaces == evidence.workspaces
