"""A records entry for a folder of yearly editions (no versions of one document) files each edition beside
the one before it: the criterion that needs the two files' entries read together."""

from __future__ import annotations

from graphforge.specs.families import FamilyInput, SeedContext
from graphforge.specs.families._common import previous_editions, two_file_criteria
from graphforge.specs.families.data_entry_form import FAMILY
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph

FILES = ["report/2023-executive-summary.md", "report/2024-executive-summary.md",
         "report/2024-appx-b-methods.md", "meetings/notes.md"]
TITLES = ["Assessment 2023: Executive Summary", "Assessment 2024: Executive Summary",
          "Appendix B: Methods of the 2024 Assessment", "Working group notes"]


def _facts() -> list[GraphFact]:
    out = []
    for i, (path, title) in enumerate(zip(FILES, TITLES, strict=True)):
        text = f"# {title}\n\nPublished 1{i} March 202{i}."
        out.append(GraphFact(fact_id=f"t{i}", statement=title, value=title, value_num=None, unit=None,
                             metric=None, entity="title", period=None, span_id=f"s{i}", locator="section=1",
                             ordinal=0, span_text=text, path=path, role="core", kind="metadata"))
        day = f"1{i} March 202{i}"
        out.append(GraphFact(fact_id=f"d{i}", statement=f"Published {day}", value=day,
                             value_num=None, unit=None, metric=None, entity="published", period=f"202{i}",
                             span_id=f"s{i}", locator="section=1", ordinal=0, span_text=text, path=path,
                             role="core", kind="date"))
    return out


def _rows() -> list[dict[str, object]]:
    return [{"title": f"t{i}", "dates": [f"d{i}"]} for i in range(len(FILES))]


def test_a_yearly_edition_is_filed_beside_the_one_before() -> None:
    facts = _facts()
    graph = WorkspaceGraph(workspace_id="ws-508", name="Assessment", files=FILES, facts=facts, edges=[])
    assert {p: f.path for p, f in previous_editions(graph).items()} == {
        "report/2024-executive-summary.md": "report/2023-executive-summary.md"}
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=_rows()))
    assert spec is not None
    assert "previous_edition" in spec.deliverables[0].required_keys
    file_of = {f.fact_id: f.path for f in facts}
    edition = [c for c in spec.positive if c.check == "cites" and c.anchors == ["t1", "t0"]]
    assert len(edition) == 1 and edition[0].expected == "2023-executive-summary.md"
    assert edition[0].criterion_id in two_file_criteria(spec, file_of)
    assert "previous_edition" in spec.statement


def test_versions_of_one_document_are_no_series() -> None:
    facts = _facts()
    # the 2024 summary revises the 2023 one: a version (replaces), not the next edition
    edges = [GraphEdge(src_fact_id="t1", dst_fact_id="t0", kind="supersedes")]
    graph = WorkspaceGraph(workspace_id="ws-508", name="Assessment", files=FILES, facts=facts, edges=edges)
    assert previous_editions(graph) == {}
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=_rows()))
    assert spec is not None
    assert "previous_edition" not in spec.deliverables[0].required_keys
    assert "replaces" in spec.deliverables[0].required_keys
