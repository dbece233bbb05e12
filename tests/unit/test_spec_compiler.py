"""Template compilation from a hand-made evidence graph: anchored, recomputable criteria; nothing leaks."""

from __future__ import annotations

import pytest

from graphforge.models.spec import CriterionKind, Polarity
from graphforge.specs.checks import leaks, number_forms, recompute, spec_problems
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph, compile_template
from graphforge.stores.specs import agent_view


def fact(fid: str, value: str, num: float, metric: str, entity: str | None, period: str, path: str, role: str,
         locator: str = "sheet=Q2!A3:C3") -> GraphFact:
    return GraphFact(
        fact_id=fid,
        statement=f"{metric} {value}",
        value=value,
        value_num=num * 1000,
        unit="EUR",
        scale=1000.0,
        metric=metric,
        entity=entity,
        period=period,
        span_id=f"{path}:{locator}",
        locator=locator,
        ordinal=0,
        span_text=f"x\t{value}\ty",
        path=path,
        role=role,
    )


FACTS = [
    fact("fact-n", "100", 100, "revenue", "North", "2024-Q2", "ledger.xlsx", "core"),
    fact("fact-s", "50", 50, "revenue", "South", "2024-Q2", "ledger.xlsx", "core"),
    fact("fact-t", "150", 150, "revenue", None, "2024-Q2", "ledger.xlsx", "core"),
    fact("fact-n1", "90", 90, "revenue", "North", "2024-Q1", "ledger.xlsx", "core"),
    fact("fact-rn", "100", 100, "revenue", "North", "2024-Q2", "report.pdf", "core", "page=2"),
    fact("fact-rc", "97", 97, "costs", None, "2024-Q2", "report.pdf", "core", "page=3"),
    fact("fact-lc", "95", 95, "costs", None, "2024-Q2", "ledger.xlsx", "core"),
    fact("fact-dn", "80", 80, "revenue", "North", "2024-Q2", "draft.pdf", "confuser", "page=2"),
]
EDGES = [GraphEdge(src_fact_id="fact-t", dst_fact_id=p, kind="derive") for p in ("fact-n", "fact-s")] + [
    GraphEdge(src_fact_id="fact-rn", dst_fact_id="fact-n", kind="compare"),
    GraphEdge(src_fact_id="fact-rc", dst_fact_id="fact-lc", kind="reconcile"),
    GraphEdge(src_fact_id="fact-dn", dst_fact_id="fact-n", kind="reconcile"),
]
GRAPH = WorkspaceGraph(
    workspace_id="ws1",
    name="Acme Q2 review",
    files=["ledger.xlsx", "report.pdf", "draft.pdf"],
    facts=FACTS,
    edges=EDGES,
)


def test_templates_cover_every_edge_kind_with_anchored_recomputable_criteria() -> None:
    spec = compile_template(GRAPH)
    assert spec is not None and spec.compiler == "template"
    values = {f.fact_id: (f.value, f.scale, f.span_text) for f in FACTS}
    assert spec_problems(spec, values) == []
    by_loc = {c.target_location: c for c in spec.criteria if c.kind is CriterionKind.VALUE
              and c.polarity is Polarity.POSITIVE}
    assert by_loc["Totals!B2"].expected_value == pytest.approx(150)  # derive: sum of parts
    assert by_loc["Reconciliation!E2"].expected_value == pytest.approx(2)  # reconcile: report minus ledger
    assert by_loc["Summary!B2"].expected_value == pytest.approx(100)  # compare: confirmed figure
    assert by_loc["Summary!C2"].expected_value == pytest.approx(10 / 90)  # change against Q1
    # One negative per reported figure the draft's differing North figure would change, at the same cell,
    # the superseded fact first and the trusted fact it replaces last.
    negative = {c.target_location: c for c in spec.negative}
    assert set(negative) == {"Totals!B2", "Summary!B2", "Summary!C2"}
    assert all(c.anchors[0] == "fact-dn" and c.anchors[-1] == "fact-n" for c in negative.values())
    assert negative["Totals!B2"].expected_value == pytest.approx(130)  # the sum with the draft's North figure
    assert negative["Summary!B2"].expected_value == pytest.approx(80)
    assert negative["Summary!C2"].expected_value == pytest.approx(-10 / 90)  # the change derived from it
    total = sum(c.weight for c in spec.positive)
    for c in negative.values():  # lambda: the mirrored weight, at least 15% of the positive weight
        assert c.weight == pytest.approx(max(by_loc[c.target_location].weight, 0.15 * total), abs=1e-4)
        numbers = [{f.fact_id: f for f in FACTS}[a].value_num or 0.0 for a in c.anchors]
        assert c.computation and recompute(c.computation, numbers) == pytest.approx(c.expected_value)
    kinds = {c.kind for c in spec.criteria}
    assert {
        CriterionKind.VALUE,
        CriterionKind.CITATION,
        CriterionKind.STRUCTURE,
        CriterionKind.QUALITATIVE,
    } <= kinds
    assert all(c.anchors for c in spec.positive)
    book = spec.deliverables[0]
    assert (
        book.required_sheets == ["Summary", "Totals", "Reconciliation"]
        and "Totals!B2" in book.required_formulas
    )
    assert compile_template(GRAPH) == spec  # deterministic ids and content


def test_agent_view_hides_roles_ids_anchors_and_expected_values() -> None:
    spec = compile_template(GRAPH)
    assert spec is not None
    view = agent_view(spec, GRAPH.files)
    assert leaks(view, spec, [f.fact_id for f in FACTS]) == []
    assert all(d.name in view.statement for d in spec.deliverables)
    leaky = spec.model_copy(
        update={"statement": spec.statement + " Hint: 150 (fact-t), ignore the confuser."}
    )
    found = leaks(agent_view(leaky, GRAPH.files), leaky)
    assert (
        any("role" in f for f in found) and any("fact" in f for f in found) and any("150" in f for f in found)
    )


def test_recompute_grammar() -> None:
    assert recompute("sum:2/1000", [100_000, 50_000, 150_000]) == 150
    assert recompute("difference", [5, 3]) == 2 and recompute("change", [110, 100]) == pytest.approx(0.1)
    assert recompute("copy/1000", [9_115_000]) == 9115
    with pytest.raises(ValueError):
        recompute("median", [1])
    assert {"9115", "9,115"} <= number_forms(9115.0)


def test_no_negative_when_a_trusted_file_states_the_confuser_figure_or_it_changes_nothing_reported() -> None:
    # The report also says 80 for North: the draft's figure is not superseded, so using it is no mistake.
    agreeing = [*FACTS, fact("fact-r80", "80", 80, "revenue", "North", "2024-Q2", "memo.docx", "supporting")]
    spec = compile_template(GRAPH.model_copy(update={"facts": agreeing}))
    assert spec is not None and spec.negative == []
    # A superseded figure for a key no deliverable reports (costs South) gives no negative criterion either.
    unreported = [f for f in FACTS if f.fact_id != "fact-dn"] + [
        fact("fact-dc", "70", 70, "costs", "South", "2024-Q2", "draft.pdf", "confuser", "page=2"),
        fact("fact-lcs", "60", 60, "costs", "South", "2024-Q2", "ledger.xlsx", "core")]
    spec = compile_template(GRAPH.model_copy(update={"facts": unreported}))
    assert spec is not None and spec.negative == []


def test_nothing_checkable_compiles_to_nothing() -> None:
    assert compile_template(GRAPH.model_copy(update={"edges": []})) is None
