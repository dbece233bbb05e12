"""A gap analysis: the items a document requires, and which ones the other files show are covered (MD)."""

from __future__ import annotations

import re

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    base_name,
    layout_words,
    request,
    short,
    slug,
    trusted,
)

MAX_ITEMS = 6
_FILE_NAME = re.compile(r"[\w./\\-]+\.[A-Za-z0-9]{2,5}")


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    for row in inp.rows:
        items = [facts[i] for i in row["items"] if i in facts and trusted(facts[i])]
        # A list of file names is an index, not required items (and a cited file name is no content).
        items = [i for i in items if 2 <= len((i.normalized or "").split()) <= 40
                 and not _FILE_NAME.fullmatch(i.value.strip(" `*_"))]
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
            b.item(i, report, f"{report.name} lists the required item {short(i.value, 50)!r}", weight=1.5)
        b.cites(chosen, report)
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
