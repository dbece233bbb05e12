"""What changed between two versions of a document, stated as current, for a decision maker (DOCX)."""

from __future__ import annotations

from graphforge.evidence.text_facts import normalise_text
from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import SpecBuilder, display_name, label_of, layout_words, request, slug
from graphforge.specs.templates import GraphFact

MAX_CHANGES = 4


def _one_per_line(pairs: list[tuple[GraphFact, GraphFact]]) -> list[tuple[GraphFact, GraphFact]]:
    """One change per line of the newer file, in its order: a numbered requirement is both a list item and
    a requirement of the same words, which a reader counts as one change (the requirement kept)."""
    rank = {"requirement": 0, "list_item": 1}
    out: dict[tuple[str, str], tuple[GraphFact, GraphFact]] = {}
    for current, stale in sorted(pairs, key=lambda p: (rank.get(p[0].kind, 2), p[0].ordinal, p[0].fact_id)):
        key = (current.span_id, normalise_text(current.value)[:60])
        if not any(k[0] == key[0] and (k[1].startswith(key[1]) or key[1].startswith(k[1])) for k in out):
            out[key] = (current, stale)
    return sorted(out.values(), key=lambda p: (p[0].ordinal, p[0].fact_id))


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    for row in inp.rows:
        newer, older = facts.get(row["newer"]), facts.get(row["older"])
        if newer is None or older is None:
            continue
        new_path, old_path = newer.path, older.path
        pairs = []
        for a, b in row["changes"]:
            fa, fb = facts.get(a), facts.get(b)
            if fa is None or fb is None or fa.kind != fb.kind:
                continue
            current, stale = (fa, fb) if fa.path == new_path else (fb, fa)
            if normalise_text(current.value) == normalise_text(stale.value):
                continue  # alike but for case, spacing or punctuation: no change a reader would report
            if current.path == new_path and stale.path == old_path:
                pairs.append((current, stale))
        pairs = _one_per_line(pairs)
        if not pairs:
            continue
        pairs = pairs[:MAX_CHANGES]
        b = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
        memo = b.deliverable(
            f"{slug(inp.graph.name)}_change_memo.docx",
            "docx",
            "change memo between two versions",
            sections=("Summary", "Changes", "Sources"),
        )
        for current, _ in pairs:
            b.item(
                current,
                memo,
                f"{memo.name} gives what {label_of(current)} says now, as "
                f"{display_name(new_path, inp.graph.files)} states it",
                weight=2.0,
            )
        b.cites([p[0] for p in pairs] + [p[1] for p in pairs], memo)
        for current, stale in pairs:
            b.stale(stale, current, memo)
        items = [f"what {label_of(c)} says now, and what it said before" for c, _ in pairs]
        new_name, old_name = display_name(new_path, inp.graph.files), display_name(old_path, inp.graph.files)
        statement = request(
            occupation=inp.seed.occupation,
            context=(
                f"{new_name} replaces {old_name} in the {inp.graph.name} files, and "
                f"people are still working from the earlier text."
            ),
            ask=(
                "could you write a short change memo for the team lead: what changed between the "
                "two versions and what now applies?"
            ),
            items=items,
            deliverables=[
                (
                    memo,
                    f"{layout_words(memo)}; for each change give the current wording or value, the earlier "
                    "one, and the file each comes from",
                )
            ],
            constraints=[
                "Report the current version as what applies; mention the earlier text only as earlier."
            ],
        )
        return b.spec(statement, "")
    return None


FAMILY = Family(
    name="version_change_memo",
    rank=30,
    title="a change memo between two versions of a document",
    patterns=(
        "document drafting and editing",
        "communication and correspondence",
        "policy and procedure writing",
        "review, audit and compliance checking",
    ),
    inputs=("document", "pdf", "web page", "plain text"),
    formats=("docx",),
    keywords=("amend", "revis", "change", "version", "update", "draft"),
    build=build,
)
