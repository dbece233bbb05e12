"""A gap analysis: the items a document requires, and which ones the other files show are covered (MD)."""

from __future__ import annotations

import re
from typing import Any

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    base_name,
    layout_words,
    plain,
    request,
    restated_elsewhere,
    short,
    slug,
    trusted,
)

MAX_ITEMS = 6
MAX_COVERED = 3  # items whose covering file the deliverable must name
_FILE_NAME = re.compile(r"[\w./\\-]+\.[A-Za-z0-9]{2,5}")
# What makes a list a list of requirements, in any office document: an obligation in the item ("must",
# "shall", "is required") or an item that starts with an instruction ("Provide ...", "Include ..."), or a
# heading that names requirements. A list of announcements, awards or links is no gap-analysis source.
_OBLIGATION = re.compile(
    r"\b(?:must|shall|should|required|requires?|mandatory|needs? to|has to|have to|is expected|are expected|"
    r"will (?:provide|submit|include|deliver|ensure|maintain|develop|describe))\b",
    re.I,
)
_INSTRUCTION = frozenset(
    "provide submit include describe identify ensure maintain develop prepare deliver document demonstrate "
    "report list specify complete attach address explain establish conduct perform comply define record "
    "review test verify update publish notify obtain retain train assess monitor implement support use "
    "create make keep post display".split()
)
_REQUIRING_HEADING = re.compile(
    r"requir|criteri|deliverabl|checklist|obligation|must|shall|acceptance|elements|expectation|standards?\b|"
    r"responsibilit|definition of done|scope of work|conditions",
    re.I,
)
MIN_REQUIRING = 0.5


def requiring_share(items: list[str], heading: str) -> float:
    """Share of a list's items that state an obligation or start with an instruction; a heading that names
    requirements counts for half the list."""
    if not items:
        return 0.0
    def requires(text: str) -> bool:
        words = re.findall(r"[a-z]+", text.lower())
        return bool(_OBLIGATION.search(text)) or bool(words and words[0] in _INSTRUCTION)
    share = sum(requires(t) for t in items) / len(items)
    return min(1.0, share + (0.5 if _REQUIRING_HEADING.search(heading or "") else 0.0))


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    candidates: list[tuple[Any, ...]] = []
    for row in inp.rows:
        items = [facts[i] for i in row["items"] if i in facts and trusted(facts[i])]
        # A list of file names is an index, not required items (and a cited file name is no content).
        items = [i for i in items if 2 <= len((i.normalized or "").split()) <= 40
                 and not _FILE_NAME.fullmatch(i.value.strip(" `*_"))]
        share = requiring_share([i.value for i in items], str(row["heading"] or ""))
        if share >= MIN_REQUIRING:
            # Current versions first, then lists another file restates, then the most requiring, then size.
            candidates.append((bool(row.get("superseded")), not row.get("restated"), -share, -len(items),
                               len(candidates), row, items))
    for *_, row, items in sorted(candidates, key=lambda c: c[:5]):
        seen: set[str] = set()
        chosen = []
        for i in sorted(items, key=lambda f: (f.ordinal, f.fact_id)):
            if i.normalized not in seen:
                seen.add(i.normalized or "")
                chosen.append(i)
        chosen = chosen[:MAX_ITEMS]
        if len(chosen) < 3:
            continue
        heading, source = row["heading"], base_name(chosen[0].path)
        b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
        report = b.deliverable(
            f"{slug(inp.graph.name)}_gap_analysis.md",
            "md",
            "gap analysis",
            sections=("Required items", "Gaps", "Sources"),
        )
        for i in chosen:
            b.item(i, report, f"{report.name} lists the required item {short(plain(i.value), 50)!r}",
                   weight=1.5)
        b.cites(chosen, report)
        # Where another current file states a listed item too, the report shows it beside the item (its
        # evidence): what the rest of the folder covers is the point of the exercise, and needs two files.
        partners = restated_elsewhere(inp.graph, chosen)
        for f in [f for f in chosen if f.fact_id in partners][:MAX_COVERED]:
            b.covered(f, partners[f.fact_id], report, inp.graph.files)
        statement = request(
            occupation=inp.seed.occupation,
            context=(
                f"{source} sets out what is expected under {short(heading, 80)!r}, and we need to know "
                f"where the rest of the {inp.graph.name} material falls short."
            ),
            ask=(
                "could you do a gap analysis: list every item it requires and say which ones the other "
                "files cover?"
            ),
            items=[f"every item listed under {short(heading, 80)!r} in {source}"],
            deliverables=[
                (
                    report,
                    f"{layout_words(report)}; under Required items each item as the source words it, with "
                    "the file it comes from",
                )
            ],
            constraints=[
                "List only items the document requires; mark an item covered only with a file to show."
            ],
        )
        return b.spec(statement, "")
    return None


FAMILY = Family(
    name="gap_analysis",
    rank=70,
    title="a gap analysis of required items",
    patterns=(
        "research and source synthesis",
        "policy and procedure writing",
        "review, audit and compliance checking",
        "instruction and training material development",
    ),
    inputs=("document", "pdf", "web page"),
    formats=("md",),
    keywords=("gap", "requir", "criteria", "checklist", "deliverable"),
    build=build,
)
