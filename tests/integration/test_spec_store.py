"""Task specs round-trip through Neo4j with full fidelity; anchors resolve down to span and file."""

from __future__ import annotations

import pytest

from graphforge.graphdb import chores
from graphforge.graphdb.graph import Graph
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)
from graphforge.stores import specs as specs_store

pytestmark = pytest.mark.neo4j

SETUP = """
MERGE (w:Workspace {workspace_id: 'ws1'}) SET w.name = 'ws1'
MERGE (f:File {sha256: 'aa11'}) SET f.valid = true, f.format = 'csv'
MERGE (w)-[:CONTAINS {path: 'ledger.csv', role: 'core'}]->(f)
MERGE (s:Span {span_id: 'aa11:row=2'})
  SET s.locator = 'row=2', s.text = 'Revenue\t1,200', s.kind = 'row', s.ordinal = 1
MERGE (f)-[:HAS_SPAN]->(s)
MERGE (x:Fact {fact_id: 'fact-1'})
  SET x.value = '1,200', x.value_num = 1200.0, x.statement = 'Revenue is 1,200'
MERGE (x)-[:FROM_SPAN]->(s)
"""


def _spec(spec_id: str = "ws1-recon@v1", anchors: tuple[str, ...] = ("fact-1",)) -> TaskSpec:
    statement = "Write recon.xlsx with a Summary sheet."
    d = DeliverableSpec(deliverable_id=f"{spec_id}/recon.xlsx", name="recon.xlsx", format="xlsx",
                        required_sheets=["Summary"], required_formulas=["Summary!B2"])
    memo = DeliverableSpec(deliverable_id=f"{spec_id}/memo.md", name="memo.md", format="md",
                           required_sections=["Summary", "Sources"])
    c1 = CriterionSpec(
        criterion_id=f"{spec_id}/c1",
        polarity=Polarity.POSITIVE,
        kind=CriterionKind.VALUE,
        weight=2.0,
        requirement="Summary!B2 holds revenue",
        target_deliverable="recon.xlsx",
        target_location="Summary!B2",
        expected="1200",
        expected_value=1200.0,
        computation="copy",
        verification="read the cell",
        anchors=list(anchors),
    )
    c2 = CriterionSpec(criterion_id=f"{spec_id}/c2", polarity=Polarity.NEGATIVE, kind=CriterionKind.VALUE,
                       weight=1.0, requirement="no draft figure", target_deliverable="memo.md",
                       verification="search", anchors=[])
    return TaskSpec(spec_id=spec_id, base_id=spec_id.split("@")[0], version=1, workspace_id="ws1",
                    statement=statement, statement_hash=statement_hash(statement), deliverables=[d, memo],
                    criteria=[c1, c2], compiler="template")


def test_spec_round_trips_with_full_fidelity_and_idempotent_save(graph: Graph) -> None:
    graph.driver.execute_query(SETUP, database_=graph.database)
    spec = _spec()
    specs_store.save_spec(graph, spec)
    specs_store.save_spec(graph, spec)
    assert specs_store.load_spec(graph, spec.spec_id) == spec
    counts = chores.counts(graph)
    assert (
        counts.nodes["TaskSpec"] == 1 and counts.nodes["Criterion"] == 2 and counts.nodes["Deliverable"] == 2
    )
    assert counts.relationships["ANCHORED_TO"] == 1 and counts.relationships["TARGETS"] == 2
    assert counts.relationships["COMPILED_FROM"] == 1


def test_resave_with_fewer_parts_leaves_nothing_stale(graph: Graph) -> None:
    graph.driver.execute_query(SETUP, database_=graph.database)
    spec = _spec()
    specs_store.save_spec(graph, spec)
    smaller = spec.model_copy(update={"criteria": [spec.criteria[0].model_copy(update={"anchors": []})],
                                      "deliverables": spec.deliverables[:1]})
    specs_store.save_spec(graph, smaller)
    assert specs_store.load_spec(graph, spec.spec_id) == smaller
    counts = chores.counts(graph)
    assert counts.nodes["Criterion"] == 1 and counts.relationships.get("ANCHORED_TO", 0) == 0


def test_anchors_resolve_to_span_and_file_and_agent_view_lists_files(graph: Graph) -> None:
    graph.driver.execute_query(SETUP, database_=graph.database)
    specs_store.save_spec(graph, _spec())
    anchors = specs_store.criterion_anchors(graph, "ws1-recon@v1")
    assert [(a.criterion_id, a.fact_id, a.path, a.role, a.locator) for a in anchors] == [
        ("ws1-recon@v1/c1", "fact-1", "ledger.csv", "core", "row=2")]
    assert anchors[0].value in anchors[0].span_text
    view = specs_store.agent_view_from_graph(graph, "ws1-recon@v1")
    assert view.files == ["ledger.csv"] and view.deliverables == ["recon.xlsx", "memo.md"]


def test_loading_a_missing_spec_raises(graph: Graph) -> None:
    with pytest.raises(specs_store.SpecNotFoundError):
        specs_store.load_spec(graph, "nope@v1")
