"""A machine-readable glossary of the terms the documents define, for a data team or trainees (JSON)."""

from __future__ import annotations

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import SpecBuilder, layout_words, request, short, slug, spread

MAX_TERMS = 6


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    terms = [facts[r["fact_id"]] for r in inp.rows if r["fact_id"] in facts]
    terms = [
        t for t in terms if t.entity and 2 <= len(t.entity) <= 60 and len((t.normalized or "").split()) >= 3
    ]
    used = {r["fact_id"] for r in inp.rows if r.get("uses")}
    chosen = spread([t for t in terms if t.fact_id in used], MAX_TERMS, per_file=3)
    for t in spread(terms, MAX_TERMS * 2, per_file=3):
        if len(chosen) >= MAX_TERMS:
            break
        if t.fact_id not in {c.fact_id for c in chosen} and t.entity not in {c.entity for c in chosen}:
            chosen.append(t)
    if len(chosen) < 3:
        return None
    b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    out = b.deliverable(
        f"{slug(inp.graph.name)}_glossary.json", "json", "glossary of defined terms", sections=("terms",),
        keys=("term", "definition", "source"),
    )
    for t in chosen:
        b.item(t, out, f"{out.name} defines {t.entity!r} as its source does", weight=1.5)
    b.cites(chosen, out)
    statement = request(
        occupation=inp.seed.occupation,
        context=f"new analysts keep asking what the terms in the {inp.graph.name} material mean.",
        ask="could you pull the definitions the documents give into one glossary we can load into our tools?",
        items=[f"{short(t.entity or '', 60)!r}" for t in chosen],
        deliverables=[
            (
                out,
                f"{layout_words(out)} with each definition as the source document gives it and the file it "
                "comes from",
            )
        ],
        constraints=["Take definitions from the documents; do not write your own."],
    )
    return b.spec(statement, "")


FAMILY = Family(
    name="glossary",
    rank=90,
    title="a glossary of the terms the documents define",
    patterns=(
        "instruction and training material development",
        "technical specification and design",
        "record keeping and data entry",
    ),
    inputs=("spreadsheet", "document", "structured data"),
    formats=("json",),
    keywords=("defin", "glossary", "dictionary", "train", "term"),
    build=build,
)
