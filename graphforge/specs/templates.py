"""Template spec compiler (no model): one checkable task per workspace from its evidence graph.

Each edge kind has a template. derive: a "Totals" row whose total is the sum of the anchored parts, as a
formula. reconcile (two trusted files disagree): a "Reconciliation" row with both figures and their difference
as a formula. compare (files agree): a "Summary" row with the confirmed figure and, when the earlier period is
in the graph, the change against it. A confuser file that disagrees with a trusted one gives a negative
criterion: reporting its figure is penalised. The memo deliverable carries citation and qualitative criteria.
The statement names files, metrics, periods and cells, never values, roles or fact ids.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from graphforge.models.base import stable_hash
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)

COMPILER = "template"
TRUSTED = {"core", "supporting", None}
MAX_ROWS = 3  # rows per sheet: enough to check, small enough to finish in one rollout


class GraphFact(BaseModel):
    """A fact as the compiler sees it (from cypher/specs/get_workspace_facts)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    fact_id: str
    statement: str
    value: str
    value_num: float | None
    unit: str | None
    scale: float = 1.0
    metric: str | None
    entity: str | None
    period: str | None
    extractor: str | None = None
    span_id: str
    locator: str
    ordinal: int
    span_text: str
    path: str
    role: str | None
    format: str | None = None


class GraphEdge(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    src_fact_id: str
    dst_fact_id: str
    kind: str
    note: str = ""


class WorkspaceGraph(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    workspace_id: str
    name: str
    seed_id: str | None = None
    files: list[str]
    facts: list[GraphFact]
    edges: list[GraphEdge]


def _label(f: GraphFact) -> str:
    who = f.entity or "group total"
    return f"{(f.metric or 'value').capitalize()}, {who}, {_period_words(f.period)}"


def _period_words(period: str | None) -> str:
    if not period:
        return "no period"
    m = re.fullmatch(r"(\d{4})-(Q[1-4]|H[12])", period)
    return f"{m.group(2)} {m.group(1)}" if m else period


def _previous(period: str | None) -> str | None:
    m = re.fullmatch(r"(\d{4})-Q([1-4])", period or "")
    if m is None:
        return None
    year, q = int(m.group(1)), int(m.group(2))
    return f"{year - 1}-Q4" if q == 1 else f"{year}-Q{q - 1}"


def _base(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "workspace"


def _key(f: GraphFact) -> tuple[str, str, str]:
    return (f.metric or "", (f.entity or "").lower(), f.period or "")


def _fmt(x: float) -> str:
    return f"{x:.6g}" if abs(x) < 1e6 else f"{x:.0f}"


def _rank(f: GraphFact) -> tuple[int, str, int]:
    """Core files first, then tables (structured) before prose, then path order: stable choices."""
    table = 0 if f.locator.startswith(("sheet=", "row=", "table=")) else 1
    return (0 if f.role == "core" else 1, f"{table}{f.path}", f.ordinal)


def compile_template(graph: WorkspaceGraph, version: int = 1) -> TaskSpec | None:
    """The template spec of one workspace, or None when its graph has nothing checkable."""
    facts = {f.fact_id: f for f in graph.facts}
    numeric = [f for f in graph.facts if f.value_num is not None]
    trusted = lambda f: f.role in TRUSTED  # noqa: E731 - reads better inline than a def here
    scales = Counter(f.scale for f in numeric if f.unit != "%" and trusted(f))
    scale = scales.most_common(1)[0][0] if scales else 1.0
    units = Counter(f.unit for f in numeric if f.unit and f.unit != "%" and trusted(f))
    unit = units.most_common(1)[0][0] if units else ""
    unit_words = (f"{unit} thousand" if scale == 1e3 else f"{unit} million" if scale == 1e6 else unit).strip()
    divisor = "" if scale == 1.0 else f"/{scale:g}"
    by_kind: dict[str, list[GraphEdge]] = defaultdict(list)
    for e in graph.edges:
        if e.src_fact_id in facts and e.dst_fact_id in facts:
            by_kind[e.kind].append(e)

    base_id = "spec-" + stable_hash(graph.workspace_id, COMPILER, length=12)
    spec_id = f"{base_id}@v{version}"
    slug = _slug(graph.name)
    book = DeliverableSpec(deliverable_id="", name=f"{slug}_review.xlsx", format="xlsx")
    memo = DeliverableSpec(deliverable_id="", name=f"{slug}_memo.md", format="md",
                           required_sections=["Summary", "Discrepancies", "Sources"])
    criteria: list[CriterionSpec] = []
    lines: list[str] = []
    sheets: list[str] = []
    formulas: list[str] = []
    used: dict[str, list[str]] = defaultdict(list)  # path -> anchor fact ids

    def add(**kw: object) -> None:
        criteria.append(CriterionSpec(criterion_id=f"{spec_id}/c{len(criteria) + 1}", **kw))  # type: ignore[arg-type]

    # derive: totals and their parts, in trusted files
    parts_of: dict[str, list[GraphFact]] = defaultdict(list)
    for e in by_kind["derive"]:
        parts_of[e.src_fact_id].append(facts[e.dst_fact_id])
    totals = sorted((facts[t] for t in parts_of if trusted(facts[t]) and all(trusted(p) for p in parts_of[t])),
                    key=_rank)
    chosen_totals: list[GraphFact] = []
    for t in totals:
        if _key(t) not in {_key(c) for c in chosen_totals} and t.unit != "%":
            chosen_totals.append(t)
        if len(chosen_totals) == MAX_ROWS:
            break
    if chosen_totals:
        sheets.append("Totals")
        rows = []
        for r, total in enumerate(chosen_totals, start=2):
            parts = sorted(parts_of[total.fact_id], key=lambda p: (p.ordinal, p.fact_id))
            names = ", ".join(f"{p.entity or p.metric} {_period_words(p.period)}" for p in parts)
            rows.append(f"row {r}: {_label(total)} as stated in {_base(total.path)}; its components ({names}) "
                        f"in columns C onward and the total in column B as a formula adding them")
            value = sum(p.value_num or 0.0 for p in parts) / scale
            anchors = [p.fact_id for p in parts] + [total.fact_id]
            used[total.path] += anchors
            add(polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=2.0,
                requirement=f"Totals!B{r} holds {_label(total)}, the sum of its {len(parts)} components",
                target_deliverable=book.name, target_location=f"Totals!B{r}", expected=_fmt(value),
                expected_value=value, computation=f"sum:{len(parts)}{divisor}",
                verification=f"Open {book.name}, read Totals!B{r} (the computed value) and compare it with the "
                             f"sum of the anchored components within the tolerance; the printed total corroborates.",
                anchors=anchors)
            formulas.append(f"Totals!B{r}")
        lines.append("Sheet Totals (row 1 headers: Item, Total, Components): " + "; ".join(rows) + ".")

    # reconcile between trusted files: both figures and their difference
    recon = [e for e in by_kind["reconcile"] if trusted(facts[e.src_fact_id]) and trusted(facts[e.dst_fact_id])]
    seen: set[tuple[str, str, str]] = set()
    recon_rows = []
    for e in sorted(recon, key=lambda e: (_rank(facts[e.src_fact_id]), e.src_fact_id, e.dst_fact_id)):
        a, b = facts[e.src_fact_id], facts[e.dst_fact_id]
        if _key(a) in seen or len(recon_rows) == MAX_ROWS:
            continue
        seen.add(_key(a))
        r = len(recon_rows) + 2
        recon_rows.append(f"row {r}: {_label(a)} - column C the figure in {_base(a.path)}, column D the figure "
                          f"in {_base(b.path)}, column E the difference C minus D as a formula")
        value = ((a.value_num or 0.0) - (b.value_num or 0.0)) / scale
        used[a.path].append(a.fact_id)
        used[b.path].append(b.fact_id)
        add(polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=2.0,
            requirement=f"Reconciliation!E{r} holds the difference for {_label(a)} between {_base(a.path)} and "
                        f"{_base(b.path)}",
            target_deliverable=book.name, target_location=f"Reconciliation!E{r}", expected=_fmt(value),
            expected_value=value, computation=f"difference{divisor}",
            verification=f"Read Reconciliation!E{r}; it must equal the first anchor minus the second within the "
                         f"tolerance, and C{r}/D{r} must hold the two source figures.",
            anchors=[a.fact_id, b.fact_id])
        formulas.append(f"Reconciliation!E{r}")
    if recon_rows:
        sheets.append("Reconciliation")
        lines.append("Sheet Reconciliation (row 1 headers: Item, Source 1, Source 2, Figure 1, Figure 2, "
                     "Difference): " + "; ".join(recon_rows) + ".")

    # compare: figures confirmed by two trusted files, with the change against the earlier period
    agreeing = [e for e in by_kind["compare"] if trusted(facts[e.src_fact_id]) and trusted(facts[e.dst_fact_id])]
    summary_rows = []
    seen = {_key(t) for t in chosen_totals}
    by_key_file: dict[tuple[tuple[str, str, str], str], GraphFact] = {}
    for f in sorted(numeric, key=_rank):
        if trusted(f):
            by_key_file.setdefault((_key(f), f.path), f)
    conflicted = {_key(facts[x]) for e in by_kind["reconcile"] for x in (e.src_fact_id, e.dst_fact_id)
                  if facts[x].role == "confuser"}
    with_prev = {_key(f) for f in numeric if (f.metric or "", (f.entity or "").lower(), _previous(f.period) or "")
                 in {_key(g) for g in numeric}}

    def preference(e: GraphEdge) -> tuple[object, ...]:
        a = facts[e.src_fact_id]  # a figure the draft got wrong, with an earlier period to compare, checks most
        return (_key(a) not in conflicted, _key(a) not in with_prev, _rank(a), _rank(facts[e.dst_fact_id]))

    for e in sorted(agreeing, key=preference):
        a, b = sorted((facts[e.src_fact_id], facts[e.dst_fact_id]), key=_rank)
        if _key(a) in seen or a.unit == "%" or len(summary_rows) == MAX_ROWS:
            continue
        seen.add(_key(a))
        r = len(summary_rows) + 2
        prev_key = (a.metric or "", (a.entity or "").lower(), _previous(a.period) or "")
        prev = by_key_file.get((prev_key, a.path))
        row = f"row {r}: {_label(a)} - column B the figure, confirmed in {_base(a.path)} and {_base(b.path)}"
        used[a.path].append(a.fact_id)
        used[b.path].append(b.fact_id)
        value = (a.value_num or 0.0) / scale
        add(polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=1.0,
            requirement=f"Summary!B{r} holds {_label(a)} as confirmed by two sources",
            target_deliverable=book.name, target_location=f"Summary!B{r}", expected=_fmt(value),
            expected_value=value, computation=f"copy{divisor}",
            verification=f"Read Summary!B{r}; it must equal the first anchor (the second agrees with it).",
            anchors=[a.fact_id, b.fact_id])
        if prev is not None and prev.value_num:
            row += f"; column C the change against {_period_words(prev.period)} as a formula giving a fraction " \
                   f"of the earlier figure, not as a percentage"
            change = ((a.value_num or 0.0) - prev.value_num) / prev.value_num
            used[prev.path].append(prev.fact_id)
            add(polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=1.0,
                requirement=f"Summary!C{r} holds the change of {_label(a)} against {_period_words(prev.period)}",
                target_deliverable=book.name, target_location=f"Summary!C{r}", expected=f"{change:.4f}",
                expected_value=change, tolerance=0.01, computation="change",
                verification=f"Read Summary!C{r}; it must equal (first anchor - second) / second.",
                anchors=[a.fact_id, prev.fact_id])
            formulas.append(f"Summary!C{r}")
        summary_rows.append(row)
    if summary_rows:
        sheets.insert(0, "Summary")
        lines.insert(0, "Sheet Summary (row 1 headers: Item, Figure, Change): " + "; ".join(summary_rows) + ".")
    if not criteria:
        return None

    # negative: a confuser's figure that disagrees with a trusted one
    reported = {c.target_location: c for c in criteria if c.kind is CriterionKind.VALUE}
    located = {}
    for c in reported.values():
        if not (c.computation or "").startswith(("copy", "sum")):
            continue  # differences and changes are not where a source figure is written
        first = facts[c.anchors[-1] if c.computation and c.computation.startswith("sum") else c.anchors[0]]
        located.setdefault(_key(first), c.target_location)
    confused: set[tuple[str, str, str]] = set()
    for e in sorted(by_kind["reconcile"], key=lambda e: (e.src_fact_id, e.dst_fact_id)):
        pair = (facts[e.src_fact_id], facts[e.dst_fact_id])
        bad = [f for f in pair if f.role == "confuser"]
        good = [f for f in pair if trusted(f)]
        if not bad or not good or _key(bad[0]) in confused or bad[0].unit == "%":
            continue
        wrong, right = bad[0], good[0]
        if any(f.value_num is not None and abs(f.value_num - (wrong.value_num or 0.0)) < 1e-9
               for f in numeric if trusted(f) and _key(f) == _key(wrong)):
            continue  # a trusted file states the same figure: using it cannot be a penalised mistake
        confused.add(_key(wrong))
        where = located.get(_key(wrong))
        value = (wrong.value_num or 0.0) / scale
        add(polarity=Polarity.NEGATIVE, kind=CriterionKind.VALUE, weight=1.0,
            requirement=f"Does not report the superseded figure for {_label(wrong)} from {_base(wrong.path)}",
            target_deliverable=book.name if where else memo.name, target_location=where, expected=_fmt(value),
            expected_value=value, computation=f"copy{divisor}",
            verification=("Violated (1) when " + (f"{where} of {book.name}" if where else "the deliverables")
                          + f" states the first anchor's figure (from {wrong.path}) instead of the second "
                            f"anchor's (from {right.path}) within the tolerance; else 0."),
            anchors=[wrong.fact_id, right.fact_id])
        if len(confused) == MAX_ROWS:
            break

    # citations: the memo names every source file it drew on
    for path in sorted(used):
        add(polarity=Polarity.POSITIVE, kind=CriterionKind.CITATION, weight=0.5,
            requirement=f"The Sources section of {memo.name} cites {_base(path)}",
            target_deliverable=memo.name, target_location="section=Sources", expected=_base(path),
            verification=f"Search the Sources section of {memo.name} for the file name {_base(path)}.",
            anchors=sorted(set(used[path]))[:3])
    all_anchors = sorted({a for c in criteria if c.polarity is Polarity.POSITIVE for a in c.anchors})
    add(polarity=Polarity.POSITIVE, kind=CriterionKind.STRUCTURE, weight=1.0,
        requirement=f"{book.name} has the sheets {', '.join(sheets)} and formulas in {', '.join(formulas) or 'no cell'}",
        target_deliverable=book.name, target_location=None, expected=", ".join(sheets),
        verification="Open the workbook; every required sheet exists and every listed cell holds a formula "
                     "(text starting with '=').",
        anchors=all_anchors[:5])
    add(polarity=Polarity.POSITIVE, kind=CriterionKind.STRUCTURE, weight=0.5,
        requirement=f"{memo.name} has the sections Summary, Discrepancies and Sources",
        target_deliverable=memo.name, target_location=None, expected="Summary, Discrepancies, Sources",
        verification="Find a heading for each required section in the memo.", anchors=all_anchors[:3])
    if confused:
        neg = [c for c in criteria if c.polarity is Polarity.NEGATIVE]
        add(polarity=Polarity.POSITIVE, kind=CriterionKind.QUALITATIVE, weight=1.0,
            requirement=f"The Discrepancies section of {memo.name} explains which document version was used and "
                        f"why figures from the superseded version were set aside",
            target_deliverable=memo.name, target_location="section=Discrepancies",
            verification="A judge reads the section: it must name the superseded document and the figures that "
                         "differ, and say the final version's figures were used.",
            anchors=sorted({a for c in neg for a in c.anchors})[:6])

    book = book.model_copy(update={"deliverable_id": f"{spec_id}/{book.name}", "required_sheets": sheets,
                                   "required_formulas": formulas})
    memo = memo.model_copy(update={"deliverable_id": f"{spec_id}/{memo.name}"})
    statement = _statement(graph, book, memo, lines, unit_words)
    return TaskSpec(spec_id=spec_id, base_id=base_id, version=version, workspace_id=graph.workspace_id,
                    seed_id=graph.seed_id, statement=statement, statement_hash=statement_hash(statement),
                    deliverables=[book, memo], criteria=criteria, compiler=COMPILER)


def _statement(graph: WorkspaceGraph, book: DeliverableSpec, memo: DeliverableSpec, lines: Sequence[str],
               unit_words: str) -> str:
    files = "\n".join(f"- {p}" for p in graph.files)
    sheet_lines = "\n".join(f"   - {line}" for line in lines)
    units = f" Enter amounts in {unit_words}, as plain numbers." if unit_words else ""
    return (
        f"You are reviewing the figures of \"{graph.name}\". The workspace holds these files:\n{files}\n\n"
        f"Produce two deliverables in the output folder:\n"
        f"1. The workbook {book.name} with the sheets {', '.join(book.required_sheets)}:\n{sheet_lines}\n"
        f"   Every total, difference and change must be a spreadsheet formula, not a typed number.{units}\n"
        f"2. The memo {memo.name} (Markdown) with the sections Summary, Discrepancies and Sources. Summary states "
        f"the key figures; Discrepancies explains any figures that differ between documents and which version "
        f"you relied on; Sources lists the file names you took figures from.\n\n"
        f"Where documents disagree, rely on the final, most recent version of a document, not on drafts."
    )
