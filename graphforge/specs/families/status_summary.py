"""A status summary of tracked items, open ones first, for the programme manager (Markdown)."""

from __future__ import annotations

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import SpecBuilder, layout_words, request, short, slug, spread

MAX_ITEMS = 6


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    statuses = [facts[r["fact_id"]] for r in inp.rows if r["fact_id"] in facts]
    statuses = [s for s in statuses if s.entity and len(s.entity) <= 80 and s.normalized]
    # One status per item: three columns of one row ("Low", "Moderate", "Very Low" for one agency) would
    # give three criteria no reader could tell apart.
    one_each = list(
        {
            s.entity: s for s in sorted(statuses, key=lambda s: (s.path, s.ordinal, s.fact_id), reverse=True)
        }.values()
    )
    chosen = spread(one_each, MAX_ITEMS, per_file=3)
    if len(chosen) < 3:
        return None
    b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    report = b.deliverable(
        f"{slug(inp.graph.name)}_status.md",
        "md",
        "status summary",
        sections=("Status by item", "Open items", "Sources"),
    )
    for s in chosen:
        b.item(
            s, report, f"{report.name} gives the recorded status of {short(s.entity or '', 60)!r}", weight=1.5
        )
    b.cites(chosen, report)
    statement = request(
        occupation=inp.seed.occupation,
        context=f"the programme manager wants to know where things stand in the {inp.graph.name} trackers.",
        ask="could you write a short status summary: each item, its recorded status, open items first?",
        items=[short(s.entity or "", 70) for s in chosen],
        deliverables=[(report, layout_words(report))],
        constraints=["Use the status exactly as the tracker records it; name beside each item the file it "
                     "comes from."],
    )
    return b.spec(statement, "")


FAMILY = Family(
    name="status_summary",
    rank=80,
    title="a status summary of tracked items",
    patterns=(
        "monitoring and quality tracking",
        "inventory and resource management",
        "communication and correspondence",
    ),
    inputs=("spreadsheet", "csv"),
    formats=("md",),
    keywords=("status", "track", "monitor", "progress", "open"),
    build=build,
)
