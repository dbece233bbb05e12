"""A checklist of a re-issued policy, whose requirements no other current file states, maps each row to the
earlier version that stated it too: the criteria that need both versions read."""

from __future__ import annotations

from graphforge.specs.families import FamilyInput, SeedContext
from graphforge.specs.families._common import two_file_criteria
from graphforge.specs.families.compliance_checklist import FAMILY
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph

NEW, OLD = "policy/pay_policy_2022.md", "policy/pay_policy_2021.md"
RULES = [
    "The Employment Committee must approve every salary package above the senior pay threshold.",
    "Chief Officers shall declare any interest in an appointment made under this statement.",
    "The Council must publish the ratio of its highest to its median salary each year.",
    "Severance payments above the statutory sum shall be approved by full Council.",
    "Honoraria must not exceed ten percent of the salary of the post for any period of cover.",
]


def _fact(fact_id: str, path: str, kind: str, value: str, ordinal: int) -> GraphFact:
    return GraphFact(fact_id=fact_id, statement=value, value=value, value_num=None, unit=None, metric=None,
                     entity="title" if kind == "metadata" else None, period=None, span_id=f"{path}:{ordinal}",
                     locator=f"section={ordinal + 1}", ordinal=ordinal, span_text=value, path=path,
                     role="core", kind=kind, normalized=value.lower().rstrip("."))


def _graph(restated: int) -> tuple[WorkspaceGraph, list[GraphFact]]:
    new = [_fact(f"n{i}", NEW, "requirement", r, i + 1) for i, r in enumerate(RULES)]
    old = [_fact(f"o{i}", OLD, "requirement", r, i + 1) for i, r in enumerate(RULES[:restated])]
    heads = [_fact("hn", NEW, "metadata", "Pay Policy Statement 2022", 0),
             _fact("ho", OLD, "metadata", "Pay Policy Statement 2021", 0)]
    edges = [GraphEdge(src_fact_id="hn", dst_fact_id="ho", kind="supersedes")]
    edges += [GraphEdge(src_fact_id=f"n{i}", dst_fact_id=f"o{i}", kind="compare") for i in range(restated)]
    facts = new + old + heads
    return WorkspaceGraph(workspace_id="ws-pay", name="Pay policy", files=[OLD, NEW], facts=facts,
                          edges=edges), new


def test_a_reissued_policy_is_mapped_against_its_earlier_version() -> None:
    graph, new = _graph(restated=3)
    rows = [{"sha256": "x", "requirements": [f.fact_id for f in new]}]
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=rows))
    assert spec is not None
    assert "Earlier version" in spec.deliverables[0].required_columns
    mapped = [c for c in spec.positive if c.check == "cites" and c.expected == "pay_policy_2021.md"]
    assert sorted(c.anchors[1] for c in mapped) == ["o0", "o1", "o2"]  # only the rows it stated
    file_of = {f.fact_id: f.path for f in graph.facts}
    assert {c.criterion_id for c in mapped} <= set(two_file_criteria(spec, file_of))
    assert "pay_policy_2021.md" in spec.statement


def test_no_crosswalk_without_an_earlier_statement_of_the_rows() -> None:
    graph, new = _graph(restated=0)
    rows = [{"sha256": "x", "requirements": [f.fact_id for f in new]}]
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=rows))
    assert spec is not None
    assert "Earlier version" not in spec.deliverables[0].required_columns
