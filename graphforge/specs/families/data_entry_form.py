"""A records-system entry filled in from the source documents: titles, versions and dates (JSON)."""

from __future__ import annotations

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    base_name,
    display_name,
    earlier_versions,
    layout_words,
    previous_editions,
    request,
    short,
    slug,
    superseded_paths,
)
from graphforge.specs.templates import GraphFact

MAX_DOCS = 4


def first_dates(title: GraphFact, dates: list[GraphFact]) -> list[GraphFact]:
    """A file's dates in the order a reader meets them (span, then place in the span), kept only from the
    title's span or the one after it (the title block, the first page): "the first date it states" is what
    a reader sees first, never a footnote's date deep in the file."""
    near = [d for d in dates if d.ordinal <= title.ordinal + 1]
    return sorted(near, key=lambda d: (d.ordinal, d.span_text.find(d.value), d.fact_id))


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    docs = [
        (facts[r["title"]], first_dates(facts[r["title"]], [facts[d] for d in r["dates"] if d in facts]))
        for r in inp.rows
        if r["title"] in facts
    ]
    docs = [(t, ds) for t, ds in docs if 3 <= len(t.value) <= 120 and sum(c.isalpha() for c in t.value) >= 3]
    # Two versions (or editions) share a title: one entry per title keeps items checkable, the current
    # version's, a later edition's.
    old_paths = superseded_paths(inp.graph)
    earlier = earlier_versions(inp.graph)
    editions = {} if any(t.path in earlier for t, _ in docs) else previous_editions(inp.graph)
    docs.sort(key=lambda d: (d[0].path in old_paths, d[0].path not in editions))  # else the rows' order
    distinct: dict[str, tuple[GraphFact, list[GraphFact]]] = {}
    for t, ds in docs:
        distinct.setdefault((t.normalized or t.value).lower(), (t, ds))
    # A document that replaces an earlier version first: its entry records which file it replaces, what a
    # records clerk files beside it (and what needs the two files read side by side). Else a later edition
    # of a series first: its entry records the edition before it.
    docs = sorted(distinct.values(), key=lambda d: (d[0].path not in earlier, d[0].path not in editions))
    docs = docs[:MAX_DOCS]
    if len(docs) < 2:
        return None
    replacing = [(t, earlier[t.path]) for t, _ in docs if t.path in earlier]
    following = [(t, editions[t.path]) for t, _ in docs if t.path in editions]
    b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    form = b.deliverable(
        f"{slug(inp.graph.name)}_records.json", "json", "records-system entries", sections=("documents",),
        keys=("file", "title", "first_date", *(("replaces",) if replacing else ()),
              *(("previous_edition",) if following else ())),
    )
    anchors = []
    for title, dates in docs:
        b.item(title, form, f"{form.name} records the title of {base_name(title.path)}", weight=1.5)
        anchors.append(title)
        if dates:
            b.item(
                dates[0],
                form,
                f"{form.name} records the first date {base_name(title.path)} states",
                weight=1.0,
            )
            anchors.append(dates[0])
    b.cites(anchors, form)
    for title, old in replacing:
        files = inp.graph.files
        new_name, old_name = display_name(title.path, files), display_name(old.path, files)
        b.covered(title, old, form, files,
                  requirement=f"{form.name} records that {new_name} replaces {old_name}, its earlier version")
    for title, before in following:
        files = inp.graph.files
        new_name, old_name = display_name(title.path, files), display_name(before.path, files)
        b.covered(title, before, form, files,
                  requirement=f"{form.name} records {old_name} as the edition before {new_name}")
    statement = request(
        occupation=inp.seed.occupation,
        context=f"the {inp.graph.name} files need to be registered in our records system.",
        ask=(
            "could you prepare the entries: for each document its file name, title as printed, and the "
            "first date it states?"
        ),
        items=[short(t.path, 100) for t, _ in docs],
        deliverables=[
            (form, f"{layout_words(form)} with dates as YYYY-MM-DD (YYYY-MM where a document gives only the "
                   "month)" + ("; under replaces, the file of the folder that a document replaces (an "
                               "earlier version of it), else null" if replacing else "")
                   + ("; under previous_edition, the file of the folder that is the same series' edition "
                      "before it (the previous year's or meeting's), else null" if following else ""))
        ],
        constraints=["Copy titles as the documents print them."],
    )
    return b.spec(statement, "")


FAMILY = Family(
    name="data_entry_form",
    rank=100,
    title="records-system entries filled from the documents",
    patterns=("record keeping and data entry", "inventory and resource management"),
    inputs=("document", "pdf", "plain text", "structured data"),
    formats=("json",),
    keywords=("record", "entry", "register", "catalog", "log"),
    build=build,
)
