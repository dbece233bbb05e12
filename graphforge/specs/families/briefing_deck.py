"""A briefing deck of the key figures, each with its source, for leadership (PPTX)."""

from __future__ import annotations

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    label_of,
    layout_words,
    plausible,
    request,
    slug,
    spread,
    trusted,
)

MAX_FIGURES = 5


_FUNCTION_WORDS = frozenset("a an the of by for to in on at and or there were was is are that which who "
                            "conducted reported according".split())


def _names_something(entity: str) -> bool:
    """An entity a slide can name: mostly capitalised words ("Federal Offshore Alaska", "Treasury"), not the
    words a sentence happened to have before its figure ("conducted by the us census there were")."""
    words = entity.split()
    if words and words[0].lower() == "the":
        words = words[1:]  # "the Gulf of Mexico"
    content = [w for w in words if w.lower() not in _FUNCTION_WORDS]
    if not content or words[0].lower() in _FUNCTION_WORDS or words[-1].lower() in _FUNCTION_WORDS:
        return False
    return sum(w[0].isupper() or w[0].isdigit() for w in content) >= 0.6 * len(content)


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    figures = [
        facts[r["fact_id"]] for r in inp.rows if r["fact_id"] in facts and trusted(facts[r["fact_id"]])
    ]
    # A figure a reader can recognise: it names its measure and who or when it is about.
    figures = [f for f in figures if plausible(f) and (f.entity or f.period) and len(label_of(f)) <= 90
               and (not f.entity or _names_something(f.entity))]
    supported = {r["fact_id"] for r in inp.rows if r.get("support")}
    chosen = spread([f for f in figures if f.fact_id in supported], MAX_FIGURES, per_file=2)
    for f in spread(figures, MAX_FIGURES * 2, per_file=2):
        if len(chosen) >= MAX_FIGURES:
            break
        if f.fact_id not in {c.fact_id for c in chosen} and label_of(f) not in {label_of(c) for c in chosen}:
            chosen.append(f)
    if len(chosen) < 3:
        return None
    b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    deck = b.deliverable(
        f"{slug(inp.graph.name)}_briefing.pptx",
        "pptx",
        "briefing deck of key figures",
        sections=("Key figures", "Sources"),
    )
    for f in chosen:
        b.item(f, deck, f"{deck.name} gives {label_of(f)}", weight=1.5)
    b.cites(chosen, deck)
    statement = request(
        occupation=inp.seed.occupation,
        context=f"leadership has asked for a short briefing on {inp.graph.name} before next week's meeting.",
        ask="could you put together a few slides with the key figures, each traced to its source file?",
        items=[label_of(f) for f in chosen],
        deliverables=[
            (
                deck,
                f"{layout_words(deck)}: on Key figures one line per figure, as the source prints it, with "
                "the file it comes from; on Sources each file",
            )
        ],
        constraints=["Use the figures as the documents state them; do not round them into new numbers."],
    )
    return b.spec(statement, "")


FAMILY = Family(
    name="briefing_deck",
    rank=60,
    title="a briefing deck of key figures",
    patterns=(
        "presentation and visual communication",
        "data analysis and reporting",
        "research and source synthesis",
        "financial modeling and forecasting",
    ),
    inputs=("slides", "spreadsheet", "pdf", "csv"),
    formats=("pptx",),
    keywords=("present", "brief", "slide", "leadership", "figure"),
    build=build,
)
