"""A figure reconciliation names every file that states a figure: a figure two current files state alike is
checked for its second source too (the criterion that needs both files read)."""

from __future__ import annotations

from graphforge.specs.families import FamilyInput, SeedContext
from graphforge.specs.families._common import two_file_criteria
from graphforge.specs.families.figure_reconciliation import FAMILY
from graphforge.specs.templates import GraphFact, WorkspaceGraph

FILES = ["reports/annual_report.md", "data/staffing.csv"]


def _fact(i: int, path: str, metric: str, value: float) -> GraphFact:
    text = f"{metric} for 2024 is {value:,.0f}"
    return GraphFact(fact_id=f"f{i}", statement=text, value=f"{value:,.0f}", value_num=value, unit=None,
                     metric=metric, entity=None, period="2024", span_id=f"s{i}", locator=f"line={i}",
                     ordinal=i, span_text=text, path=path, role="core", kind="quantity")


def test_a_figure_two_files_state_alike_is_checked_for_both_sources() -> None:
    facts = [_fact(1, FILES[0], "headcount", 412), _fact(2, FILES[1], "headcount", 412),
             _fact(3, FILES[0], "payroll cost", 18_250_000), _fact(4, FILES[1], "payroll cost", 18_250_000)]
    rows = [{"src": "f1", "dst": "f2", "kind": "compare", "current": None},
            {"src": "f3", "dst": "f4", "kind": "compare", "current": None}]
    graph = WorkspaceGraph(workspace_id="ws-staff", name="Staffing", files=FILES, facts=facts, edges=[])
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=rows))
    assert spec is not None
    file_of = {f.fact_id: f.path for f in facts}
    named = [c for c in spec.positive if c.check == "cites" and len({file_of[a] for a in c.anchors}) == 2]
    # One per confirmed figure, naming the other file at the item's own row.
    assert sorted(tuple(c.anchors) for c in named) == [("f1", "f2"), ("f3", "f4")]
    assert all(c.expected == "staffing.csv" for c in named)
    assert {c.criterion_id for c in named} <= set(two_file_criteria(spec, file_of))
