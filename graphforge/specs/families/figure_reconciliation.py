"""Reconcile the figures that files state for the same measure, and check totals against their parts,
for a reviewer (XLSX workbook + Markdown memo)."""

from __future__ import annotations

from collections.abc import Callable

from graphforge.models.spec import TaskSpec
from graphforge.specs.families import Family, FamilyInput
from graphforge.specs.families._common import (
    SpecBuilder,
    base_name,
    label_of,
    layout_words,
    plausible,
    request,
    slug,
    trusted,
)
from graphforge.specs.templates import GraphFact

MAX_PAIRS, MAX_TOTALS = 5, 2


def _namer(files: list[str]) -> Callable[[str], str]:
    """How the request names a file: its base name, or its path when another folder holds the same name
    (fy2016/budauth.csv and fy2017/budauth.csv)."""
    names = [base_name(p) for p in files]
    shared = {n for n in names if names.count(n) > 1}
    return lambda path: path if base_name(path) in shared else base_name(path)


def _agree(a: GraphFact, b: GraphFact) -> bool:
    if a.value_num is None or b.value_num is None:
        return a.value.strip() == b.value.strip()
    return abs(a.value_num - b.value_num) <= 0.005 * max(abs(a.value_num), abs(b.value_num), 1.0)


def build(inp: FamilyInput) -> TaskSpec | None:
    facts = {f.fact_id: f for f in inp.graph.facts}
    _name = _namer(inp.graph.files)
    # A zero that two files agree on is no figure to reconcile (budget tables hold thousands of them).
    usable = {k: f for k, f in facts.items() if plausible(f) and f.value_num}
    pairs: list[tuple[GraphFact, GraphFact, GraphFact | None]] = []  # (a, b, the current one if versioned)
    totals: list[GraphFact] = []
    seen: set[str] = set()
    for r in inp.rows:
        a, other = usable.get(r["src"]), usable.get(r["dst"])
        if a is None or other is None:
            continue
        if not trusted(a) and not trusted(other):
            continue
        if r["kind"] == "derive":
            if a.fact_id not in seen and a.path == other.path and trusted(a):
                seen.add(a.fact_id)
                totals.append(a)
            continue
        if a.path == other.path or a.fact_id in seen or other.fact_id in seen:
            continue
        if _agree(a, other) and not (trusted(a) and trusted(other)):
            continue  # a draft that happens to agree confirms nothing
        seen.update((a.fact_id, other.fact_id))
        # A draft or confuser file beside a trusted one: the trusted file's figure is the current one.
        current = (
            usable.get(r["current"] or "") if trusted(a) and trusted(other) else (a if trusted(a) else other)
        )
        pairs.append((a, other, current))
    # Disagreements first (they are what the reviewer needs), then figures two files confirm.
    pairs.sort(key=lambda p: (_agree(p[0], p[1]), p[0].path, p[0].ordinal, p[0].fact_id))
    pairs = pairs[:MAX_PAIRS]
    totals = sorted(totals, key=lambda f: (f.path, f.ordinal, f.fact_id))[:MAX_TOTALS]
    if len(pairs) + len(totals) < 2:
        return None
    sb = SpecBuilder(inp.graph.workspace_id, FAMILY.name, inp.seed.seed_id, inp.version)
    book = sb.deliverable(
        f"{slug(inp.graph.name)}_reconciliation.xlsx",
        "xlsx",
        "reconciliation workbook",
        sheets=("Reconciliation",),
    )
    memo = sb.deliverable(
        f"{slug(inp.graph.name)}_reconciliation_memo.md",
        "md",
        "reconciliation memo",
        sections=("Summary", "Discrepancies", "Sources"),
    )
    items: list[str] = []
    anchored: list[GraphFact] = []
    confirmed: list[tuple[GraphFact, GraphFact]] = []  # figures two files state alike: both are sources
    for a, c, current in pairs:
        if _agree(a, c):
            sb.item(
                a,
                book,
                f"{book.name} gives {label_of(a)}, stated alike in {_name(a.path)} and "
                f"{_name(c.path)}",
                weight=1.5,
            )
            items.append(f"{label_of(a)} ({_name(a.path)} and {_name(c.path)})")
            anchored.append(a)
            confirmed.append((a, c))
        elif current is not None:
            old = c if current is a else a
            sb.item(
                current,
                book,
                f"{book.name} relies on the current {label_of(current)} from {_name(current.path)}",
                weight=2.0,
            )
            sb.stale(old, current, book)  # the earlier value is not a source to cite, only a trap
            items.append(
                f"{label_of(current)}, which {_name(current.path)} and {_name(old.path)} "
                f"state differently"
            )
            anchored.append(current)
        else:
            for f in (a, c):
                sb.item(
                    f, book, f"{book.name} gives {label_of(f)} as {_name(f.path)} states it", weight=1.5
                )
            items.append(
                f"{label_of(a)}, which {_name(a.path)} and {_name(c.path)} state differently"
            )
            anchored += [a, c]
    for t in totals:
        sb.item(
            t,
            book,
            f"{book.name} gives the total {label_of(t)} and whether its parts add up to it",
            weight=1.5,
        )
        items.append(f"the total {label_of(t)} in {_name(t.path)}, checked against its parts")
        anchored.append(t)
    sb.cites(anchored, book)
    for a, c in confirmed:
        # The workbook's row names each source file and its value: the second file too, which only a worker
        # who opened both files can name.
        sb.covered(a, c, book, inp.graph.files,
                   requirement=f"{book.name} names {_name(c.path)} beside {label_of(a)} as a second source "
                               "that states the same value")
    statement = request(
        occupation=inp.seed.occupation,
        context=(
            f"before the {inp.graph.name} figures go into the review, we need to know which ones the files "
            f"agree on and where they differ."
        ),
        ask=(
            "could you reconcile the figures below across the files: what each source states, whether "
            "they agree, and which value we should rely on?"
        ),
        items=items,
        deliverables=[
            (
                book,
                f"{layout_words(book)}: one row per figure with the figure, each source file and the value "
                "it states, whether they agree, and the value relied on"
                + (" (totals checked against the sum of their parts with a formula)" if totals else ""),
            ),
            (
                memo,
                f"{layout_words(memo)}: what differs, why you relied on the value you chose, and the files "
                "you used",
            ),
        ],
        constraints=[
            "Where a later version of a document replaces an earlier one, rely on the later version and "
            "mention the earlier value only as earlier.",
            "Give figures as the documents state them; do not round them.",
        ],
    )
    return sb.spec(statement, "")


FAMILY = Family(
    name="figure_reconciliation",
    rank=20,
    title="a reconciliation workbook of figures that files state differently",
    patterns=(
        "data cleaning and reconciliation",
        "data analysis and reporting",
        "review, audit and compliance checking",
    ),
    inputs=("spreadsheet", "csv", "pdf"),
    formats=("xlsx", "md"),
    keywords=("reconcil", "variance", "total", "figure", "discrepanc"),
    build=build,
)
