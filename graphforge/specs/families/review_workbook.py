"""A review workbook in a fixed layout (named sheets, cells and formulas, as a downstream template expects)
plus a memo: the figures files state, confirmed, disagreeing or recomputed from their parts (XLSX + MD).

The statement dictates the layout cell by cell, so its criteria are checked at exact locations; it is the
default for a workspace compiled without a seed (the demo), and for seeds whose work fills a fixed
financial template. figure_reconciliation asks for the same work as a colleague would, checked by meaning."""

from __future__ import annotations

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.templates import compile_template


def build(inp: FamilyInput) -> TaskSpec | None:
    # The template reads figures only: quantity facts and the edges between them.
    # Only the figures the pattern matched (and the edges between them): the template's ranking is
    # quadratic in what it is given, and a 20k-figure workspace made it run for half an hour.
    matched = {r["src"] for r in inp.rows} | {r["dst"] for r in inp.rows}
    # Figures come from the current version of a file, never one a later version supersedes (a figure two
    # versions state differently stays: its reconcile row names the current one).
    old = {r["src"] for r in inp.rows if r.get("src_superseded")} | {
        r["dst"] for r in inp.rows if r.get("dst_superseded")}
    # Only where the superseded file states the figure differently (reconcile): that is the trap the memo
    # and the negatives name. Two versions agreeing is no second source: the current file alone confirms.
    across = {i for r in inp.rows if r["kind"] == "reconcile" for i in (r["src"], r["dst"])}
    facts = [f for f in inp.graph.facts if f.kind == "quantity" and f.fact_id in matched
             and (f.fact_id not in old or f.fact_id in across)]
    ids = {f.fact_id for f in facts}
    edges = [
        e
        for e in inp.graph.edges
        if e.src_fact_id in ids
        and e.dst_fact_id in ids
        and e.kind in ("compare", "reconcile", "derive", "interpret")
    ]
    spec = compile_template(inp.graph.model_copy(update={"facts": facts, "edges": edges}), inp.version)
    if spec is None:
        return None
    return spec.model_copy(update={"family": FAMILY.name, "seed_id": inp.seed.seed_id or spec.seed_id})


FAMILY = Family(
    name="review_workbook",
    rank=10,  # without a seed, the families that check most come first: figures, versions, requirements
    title="a review workbook in a fixed layout of sheets, cells and formulas",
    patterns=("financial modeling and forecasting", "budgeting and cost estimation"),
    inputs=("spreadsheet", "csv", "pdf"),
    formats=("xlsx", "md"),
    keywords=("workbook", "template", "formula", "total"),
    build=build,
)
