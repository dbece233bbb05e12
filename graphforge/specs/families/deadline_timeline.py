"""A timeline of the dates and deadlines the documents set, moved deadlines at their current date (CSV)."""

from __future__ import annotations

from graphforge.evidence.doc_links import version_rank
from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    label_of,
    layout_words,
    named_event,
    request,
    slug,
    spread,
    trusted,
)

MAX_DATES = 6
def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    dates = [facts[r["fact_id"]] for r in inp.rows if r["fact_id"] in facts and trusted(facts[r["fact_id"]])]
    conflicts = {r["fact_id"]: [facts[c] for c in r["conflicts"] if c in facts] for r in inp.rows}
    # A moved deadline: the date in the later version is current, the other one stale.
    stale_of = {}
    for d in dates:
        for other in conflicts.get(d.fact_id, []):
            if version_rank(d.path) > version_rank(other.path) and d.normalized != other.normalized:
                stale_of[d.fact_id] = other
    # A date the documents set (due, deadline, effective, ...), not one they merely mention.
    stale_ids = {o.fact_id for o in stale_of.values()}  # a moved date is asked for at its current value only
    cued = [d for d in dates if not d.statement.lower().startswith("date date")
            and d.fact_id not in stale_ids and named_event(d)]
    chosen = [d for d in cued if d.fact_id in stale_of][:2]
    for d in spread(cued, MAX_DATES):
        if len(chosen) >= MAX_DATES:
            break
        if d.fact_id not in {c.fact_id for c in chosen} and d.normalized not in {
            c.normalized for c in chosen
        } and label_of(d) not in {label_of(c) for c in chosen}:  # two rows one name: which one is asked?
            chosen.append(d)
    if len(chosen) < 3:
        return None
    b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    sheet = b.deliverable(f"{slug(inp.graph.name)}_timeline.csv", "csv", "timeline of dates and deadlines",
                          columns=("Date", "Event", "Source"))
    for d in chosen:
        b.item(d, sheet, f"{sheet.name} lists {label_of(d)} with its date", weight=1.5)
    b.cites(chosen, sheet)
    for d in chosen:
        if d.fact_id in stale_of:
            b.stale(stale_of[d.fact_id], d, sheet)
    statement = request(
        occupation=inp.seed.occupation,
        context=f"I need one place that shows every date that matters in the {inp.graph.name} documents.",
        ask=(
            "could you build a timeline of the deadlines and key dates the documents set, in date order, so "
            "the team can plan against it?"
        ),
        items=[label_of(d) for d in chosen],
        deliverables=[
            (
                sheet,
                f"{layout_words(sheet)} (Source: the file each date comes from); one row per date, dates as "
                "YYYY-MM-DD",
            )
        ],
        constraints=[
            "Where documents give different dates for the same thing, use the one from the latest "
            "version and say so in the Event column."
        ],
    )
    return b.spec(statement, "")


FAMILY = Family(
    name="deadline_timeline",
    rank=50,
    title="a timeline of deadlines and key dates",
    patterns=(
        "planning and scheduling",
        "communication and correspondence",
        "monitoring and quality tracking",
    ),
    inputs=("document", "pdf", "web page", "plain text"),
    formats=("csv",),
    keywords=("deadline", "schedul", "date", "timeline", "milestone", "due"),
    build=build,
)
