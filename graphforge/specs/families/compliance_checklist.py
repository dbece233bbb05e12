"""A compliance checklist of the requirements a policy or solicitation sets (XLSX)."""

from __future__ import annotations

from graphforge.evidence.text_facts import normalise_text
from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    base_name,
    display_name,
    earlier_versions,
    label_of,
    layout_words,
    plain,
    request,
    restated_elsewhere,
    short,
    slug,
    spread,
    trusted,
)
from graphforge.specs.templates import GraphFact

MAX_ITEMS = 6
MAX_COVERED = 3  # items whose covering file the deliverable must name
MAX_POOL = 150  # source requirements a checklist entry may match (the extractor keeps 150 per file)


def _where(r: GraphFact) -> str:
    """Where a requirement is stated, as a reader finds it: a PDF's page (the heading guessed from a page's
    text is mostly a running header or a figure's caption), else the section path."""
    if r.locator.startswith("page="):
        return f"page {r.locator.removeprefix('page=')}"
    return r.section


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    for row in inp.rows:
        stated = [facts[i] for i in row["requirements"] if i in facts and trusted(facts[i])]
        reqs = [r for r in stated if 6 <= len((r.normalized or "").split()) <= 45]
        # A lead-in ("The Contractor shall provide the following services:") is listed only when the file
        # has too few whole requirements without it.
        whole = [r for r in reqs if not r.value.rstrip().endswith(":")]
        reqs = whole if len(whole) >= 4 else reqs
        firsts: dict[str, GraphFact] = {}
        for r in reqs:  # a requirement the file states twice is one row
            firsts.setdefault(normalise_text(r.value), r)
        reqs = list(firsts.values())
        chosen = spread(reqs, MAX_ITEMS, per_file=MAX_ITEMS)
        if len(chosen) < 4:
            continue
        source = base_name(chosen[0].path)
        # Where no other current file states a listed item, a re-issued document is mapped against its
        # earlier version instead: which requirements that version stated already (a crosswalk row).
        partners = restated_elsewhere(inp.graph, chosen)
        before = earlier_versions(inp.graph).get(chosen[0].path)
        prior = {} if partners or before is None else restated_elsewhere(inp.graph, chosen, before.path)
        before_name = display_name(before.path, inp.graph.files) if prior and before else ""
        b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
        book = b.deliverable(
            f"{slug(inp.graph.name)}_compliance_checklist.xlsx",
            "xlsx",
            "compliance checklist",
            sheets=("Checklist",),
            columns=("Requirement", "Applies to", "Section", "Source file", "Status", "Evidence",
                     *(("Earlier version",) if prior else ())),
        )
        for r in chosen:
            b.item(
                r,
                book,
                f"{book.name} lists the requirement of {short(_where(r) or source, 60)} "
                f"({short(plain(r.value), 50)})",
                weight=1.5,
            )
        b.cites(chosen, book)
        # Where another current file states a listed item too, the book shows it beside the item (its
        # evidence): what the rest of the folder covers is the point of the exercise, and needs two files.
        for f in [f for f in chosen if f.fact_id in partners][:MAX_COVERED]:
            b.covered(f, partners[f.fact_id], book, inp.graph.files)
        for f in [f for f in chosen if f.fact_id in prior][:MAX_COVERED]:
            b.covered(f, prior[f.fact_id], book, inp.graph.files,
                      requirement=f"{book.name} shows, under Earlier version, that {before_name} stated "
                                  f"{short(label_of(f), 70)} too")
        # Every requirement the sources state may be listed; one they do not state may not.
        b.invented(stated[:MAX_POOL], book, "Checklist", "a requirement")
        sections = sorted({short(_where(r), 70) for r in chosen if _where(r)})
        statement = request(
            occupation=inp.seed.occupation,
            context=(
                f"we have to show that our work meets what {source} asks for ({inp.graph.name}), and "
                f"the reviewer wants a checklist rather than prose."
            ),
            ask=(
                "could you turn its obligations into a compliance checklist: one row per requirement, who it "
                "applies to, where it is stated, and whether the other files show it is met?"
            ),
            items=[f"the requirements under {s}" for s in sections[:6]] or [f"the requirements in {source}"],
            deliverables=[
                (book, f"{layout_words(book)}; one row per requirement, its file under Source file"
                       + (f"; under Earlier version, {before_name} where that earlier version of it states "
                          "the requirement too, else new" if prior else ""))
            ],
            constraints=["Quote each requirement as the document states it; do not invent requirements."],
        )
        return b.spec(statement, "")
    return None


FAMILY = Family(
    name="compliance_checklist",
    rank=40,
    title="a compliance checklist of a document's requirements",
    patterns=(
        "review, audit and compliance checking",
        "monitoring and quality tracking",
        "technical specification and design",
        "policy and procedure writing",
    ),
    inputs=("document", "pdf", "web page"),
    formats=("xlsx",),
    keywords=("complian", "requirement", "checklist", "audit", "standard", "regulat"),
    build=build,
)
