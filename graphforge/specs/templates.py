"""Template spec compiler (no model): one checkable task per workspace from its evidence graph.

Each edge kind has a template. derive: a "Totals" row whose total is the sum of the anchored parts, as a
formula. reconcile (two trusted files disagree): a "Reconciliation" row with both figures and their difference
as a formula. compare (files agree): a "Summary" row with the confirmed figure and, when the earlier period is
in the graph, the change against it. Negative criteria: every reported figure (a cell a positive VALUE
criterion checks) that a confuser file's differing figure would change gets one, at the same cell, anchored to
the superseded fact(s) first and the trusted fact(s) they replace last; its weight lambda is the mirrored
positive's weight, at least NEGATIVE_SHARE of the total positive weight. A confuser figure that no deliverable
reports gets none: nothing locates it, and the memo may rightly quote it when explaining the discrepancy.
The memo deliverable carries citation and qualitative criteria.
The statement names files, metrics, periods and cells, never values, roles or fact ids.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from graphforge.figures.formula import parse_computation
from graphforge.models.base import stable_hash
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)
from graphforge.specs.checks import recompute

COMPILER = "template"
TRUSTED = {"core", "supporting", None}
MAX_ROWS = 3  # rows per sheet: enough to check, small enough to finish in one rollout
# A violated negative criterion costs at least this share of the total positive weight (lambda_j in Q).
# With its mirrored positive failing too, one superseded figure keeps Q <= 1 - 0.15 - w/sum(w), below any
# admission threshold above 0.85 (the paper admits SFT at Q > 0.90 and keeps RFT candidates at Q > 0.95).
NEGATIVE_SHARE = 0.15


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
    kind: str = "quantity"
    normalized: str | None = None
    section: str = ""


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
    """What a figure is, in the words a colleague would use: its measure, whose, and when (each part only
    when the file gives it: no "group total" or "no period" filler)."""
    parts = [(f.metric or "value").capitalize(), f.entity or "", _period_words(f.period) if f.period else ""]
    return ", ".join(p for p in parts if p)


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


def negative_weight(mirror_weight: float, total_positive_weight: float) -> float:
    """lambda_j of a negative criterion: the mirrored weight, at least NEGATIVE_SHARE of the total weight."""
    return round(max(mirror_weight, NEGATIVE_SHARE * total_positive_weight), 4)


class _Mirror(BaseModel):
    """A reported figure as a superseded file would make it: the negative criterion's content."""

    mirror: CriterionSpec  # the positive VALUE criterion at the same location
    anchors: list[str]  # the computation's inputs with superseded facts swapped in, a superseded fact first
    replaced: list[str]  # the trusted facts swapped out
    computation: str  # over ``anchors``; the mirror's own, or a copy when only a superseded total is stated
    value: float
    what: str


def _confuser_mirrors(criteria: Sequence[CriterionSpec], facts: dict[str, GraphFact],
                      numeric: Sequence[GraphFact]) -> list[_Mirror]:
    """Every reported figure that a confuser file's differing figure would change, in criterion order.

    A confuser figure counts when a trusted file states the same metric, entity and period with another value
    and no trusted file states the confuser's value (then using it would be no mistake). Each positive VALUE
    criterion with a target location is recomputed with such figures swapped in for its inputs: a sum over
    components, a copy, or a change whose reported (first) figure is superseded. Differences between two
    files that state the same key are skipped: which side a confuser figure would replace is undecidable.
    The mirror is kept only when its value differs from the criterion's expected value beyond the tolerance,
    so a coincidence can never be penalised.
    """
    trusted_values: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for f in numeric:
        if f.role in TRUSTED and f.value_num is not None:
            trusted_values[_key(f)].append(f.value_num)
    superseded: dict[tuple[str, str, str], GraphFact] = {}
    for f in sorted(numeric, key=_rank):
        values = trusted_values.get(_key(f), [])
        if (f.role != "confuser" or f.value_num is None or f.unit == "%" or not f.metric or not f.period
                or not values or any(abs(v - f.value_num) <= 1e-9 * max(1.0, abs(v)) for v in values)):
            continue
        superseded.setdefault(_key(f), f)
    if not superseded:
        return []
    out: list[_Mirror] = []
    for c in criteria:
        if (c.polarity is not Polarity.POSITIVE or c.kind is not CriterionKind.VALUE or not c.target_location
                or c.expected_value is None or not c.computation):
            continue
        parsed = parse_computation(c.computation, len(c.anchors))
        if parsed is None or parsed.op not in ("copy", "sum", "change"):
            continue
        op = parsed.op
        used_n = 1 if op == "copy" else 2 if op == "change" else parsed.first or len(c.anchors)
        used = [facts[a] for a in c.anchors[:used_n]]
        if len(used) < used_n or len({_key(f) for f in used}) < len(used):
            continue
        swapped = [superseded.get(_key(f)) for f in used]
        anchors = [s or f for s, f in zip(swapped, used, strict=True)]
        replaced = [f for s, f in zip(swapped, used, strict=True) if s is not None]
        if op == "sum":
            total = facts[c.anchors[used_n]] if len(c.anchors) > used_n else None
            if not replaced and total is not None and _key(total) in superseded:
                # the superseded file states only the total: copying it is the mistake to watch for
                anchors, replaced = [superseded[_key(total)]], [total]
                computation = "copy" + _divisor(c.computation)
            else:
                # a superseded component first (the sum does not depend on the order)
                anchors = sorted(anchors, key=lambda f: f.role != "confuser")
                computation = c.computation
            what = f"the total {_label(total or used[0])}"
        else:
            if swapped[0] is None:
                continue  # only an earlier period is superseded: the reported figure itself is not
            computation = c.computation
            what = _label(used[0]) if op == "copy" else f"the change of {_label(used[0])}"
        if not replaced:
            continue
        numbers = [f.value_num or 0.0 for f in anchors]
        value = recompute(computation, numbers)
        if abs(value - c.expected_value) <= max(c.tolerance * abs(c.expected_value), 0.005):
            continue
        out.append(_Mirror(mirror=c, anchors=[f.fact_id for f in anchors],
                           replaced=[f.fact_id for f in replaced], computation=computation, value=value,
                           what=what))
    return out


def _divisor(computation: str | None) -> str:
    m = re.search(r"/[0-9.e+]+$", computation or "")
    return m.group(0) if m else ""


def _trusted(fact: GraphFact) -> bool:
    """Whether a spec may take figures from the fact: its file role is core, supporting or unset."""
    return fact.role in TRUSTED


@dataclass
class _Draft:
    """The spec as it is built: criteria in order, the workbook's sheets and formula cells, the statement's
    sheet lines, and the anchor facts each source file contributed (for the memo's citations)."""

    spec_id: str
    book: DeliverableSpec
    memo: DeliverableSpec
    facts: dict[str, GraphFact]
    scale: float  # figures are asked for in this unit (1, 1e3 or 1e6)
    divisor: str  # the computations' scale suffix ("" or "/1e+06", ...)
    criteria: list[CriterionSpec] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    sheets: list[str] = field(default_factory=list)
    formulas: list[str] = field(default_factory=list)
    used: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # path -> anchor fact ids

    def add(self, **kw: object) -> None:
        self.criteria.append(CriterionSpec(criterion_id=f"{self.spec_id}/c{len(self.criteria) + 1}", **kw))


def compile_template(graph: WorkspaceGraph, version: int = 1) -> TaskSpec | None:
    """The template spec of one workspace, or None when its graph has nothing checkable.

    One step per edge kind fills the workbook (derive: Totals, reconcile: Reconciliation, compare:
    Summary); then the memo's criteria, then the negative criteria priced from the positive weight.
    """
    facts = {f.fact_id: f for f in graph.facts}
    numeric = [f for f in graph.facts if f.value_num is not None]
    scale, unit_words = _scale_and_unit(numeric)
    by_kind: dict[str, list[GraphEdge]] = defaultdict(list)
    for e in graph.edges:
        if e.src_fact_id in facts and e.dst_fact_id in facts:
            by_kind[e.kind].append(e)

    base_id = "spec-" + stable_hash(graph.workspace_id, COMPILER, length=12)
    spec_id = f"{base_id}@v{version}"
    slug = _slug(graph.name)
    draft = _Draft(
        spec_id=spec_id,
        book=DeliverableSpec(deliverable_id="", name=f"{slug}_review.xlsx", format="xlsx"),
        memo=DeliverableSpec(deliverable_id="", name=f"{slug}_memo.md", format="md",
                             required_sections=["Summary", "Discrepancies", "Sources"]),
        facts=facts,
        scale=scale,
        divisor="" if scale == 1.0 else f"/{scale:g}",
    )
    chosen_totals = _totals_sheet(draft, by_kind["derive"])
    _reconciliation_sheet(draft, by_kind["reconcile"])
    _summary_sheet(draft, by_kind["compare"], by_kind["reconcile"], numeric, chosen_totals)
    if not draft.criteria:
        return None
    mirrors = _confuser_mirrors(draft.criteria, facts, numeric)
    _memo_criteria(draft, mirrors)
    _negative_criteria(draft, mirrors)

    book = draft.book.model_copy(update={"deliverable_id": f"{spec_id}/{draft.book.name}",
                                         "required_sheets": draft.sheets,
                                         "required_formulas": draft.formulas})
    memo = draft.memo.model_copy(update={"deliverable_id": f"{spec_id}/{draft.memo.name}"})
    statement = _statement(graph, book, memo, draft.lines, unit_words)
    return TaskSpec(spec_id=spec_id, base_id=base_id, version=version, workspace_id=graph.workspace_id,
                    seed_id=graph.seed_id, statement=statement, statement_hash=statement_hash(statement),
                    deliverables=[book, memo], criteria=draft.criteria, compiler=COMPILER)


def _scale_and_unit(numeric: Sequence[GraphFact]) -> tuple[float, str]:
    """The trusted figures' most common scale and unit: (scale, unit words for the statement)."""
    scales = Counter(f.scale for f in numeric if f.unit != "%" and _trusted(f))
    scale = scales.most_common(1)[0][0] if scales else 1.0
    units = Counter(f.unit for f in numeric if f.unit and f.unit != "%" and _trusted(f))
    unit = units.most_common(1)[0][0] if units else ""
    unit_words = (f"{unit} thousand" if scale == 1e3 else f"{unit} million" if scale == 1e6 else unit).strip()
    return scale, unit_words


def _totals_sheet(d: _Draft, derive: Sequence[GraphEdge]) -> list[GraphFact]:
    """derive edges: totals and their parts, in trusted files; one Totals row each. Returns the totals."""
    facts = d.facts
    parts_of: dict[str, list[GraphFact]] = defaultdict(list)
    for e in derive:
        parts_of[e.src_fact_id].append(facts[e.dst_fact_id])
    totals = sorted(
        (facts[t] for t in parts_of if _trusted(facts[t]) and all(_trusted(p) for p in parts_of[t])),
        key=_rank,
    )
    chosen_totals: list[GraphFact] = []
    for t in totals:
        if _key(t) not in {_key(c) for c in chosen_totals} and t.unit != "%":
            chosen_totals.append(t)
        if len(chosen_totals) == MAX_ROWS:
            break
    if chosen_totals:
        d.sheets.append("Totals")
        rows = []
        for r, total in enumerate(chosen_totals, start=2):
            parts = sorted(parts_of[total.fact_id], key=lambda p: (p.ordinal, p.fact_id))
            names = ", ".join(f"{p.entity or p.metric} {_period_words(p.period)}" for p in parts)
            rows.append(
                f"row {r}: {_label(total)} as stated in {_base(total.path)}; its components ({names}) "
                f"in columns C onward and the total in column B as a formula adding them"
            )
            value = sum(p.value_num or 0.0 for p in parts) / d.scale
            anchors = [p.fact_id for p in parts] + [total.fact_id]
            d.used[total.path] += anchors
            d.add(
                polarity=Polarity.POSITIVE,
                kind=CriterionKind.VALUE,
                weight=2.0,
                requirement=f"Totals!B{r} holds {_label(total)}, the sum of its {len(parts)} components",
                target_deliverable=d.book.name,
                target_location=f"Totals!B{r}",
                expected=_fmt(value),
                expected_value=value,
                computation=f"sum:{len(parts)}{d.divisor}",
                verification=(
                    f"Open {d.book.name}, read Totals!B{r} (the computed value) and compare it with the "
                    f"sum of the anchored components within the tolerance; the printed total corroborates."
                ),
                anchors=anchors,
            )
            d.formulas.append(f"Totals!B{r}")
        d.lines.append("Sheet Totals (row 1 headers: Item, Total, Components): " + "; ".join(rows) + ".")
    return chosen_totals


def _reconciliation_sheet(d: _Draft, reconcile: Sequence[GraphEdge]) -> None:
    """reconcile edges between trusted files: both figures and their difference, one row each."""
    facts = d.facts
    recon = [e for e in reconcile if _trusted(facts[e.src_fact_id]) and _trusted(facts[e.dst_fact_id])]
    seen: set[tuple[str, str, str]] = set()
    recon_rows: list[str] = []
    for e in sorted(recon, key=lambda e: (_rank(facts[e.src_fact_id]), e.src_fact_id, e.dst_fact_id)):
        a, b = facts[e.src_fact_id], facts[e.dst_fact_id]
        if _key(a) in seen or len(recon_rows) == MAX_ROWS:
            continue
        seen.add(_key(a))
        r = len(recon_rows) + 2
        recon_rows.append(
            f"row {r}: {_label(a)} - column C the figure in {_base(a.path)}, column D the figure "
            f"in {_base(b.path)}, column E the difference C minus D as a formula"
        )
        value = ((a.value_num or 0.0) - (b.value_num or 0.0)) / d.scale
        d.used[a.path].append(a.fact_id)
        d.used[b.path].append(b.fact_id)
        d.add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.VALUE,
            weight=2.0,
            requirement=(
                f"Reconciliation!E{r} holds the difference for {_label(a)} between {_base(a.path)} and "
                f"{_base(b.path)}"
            ),
            target_deliverable=d.book.name,
            target_location=f"Reconciliation!E{r}",
            expected=_fmt(value),
            expected_value=value,
            computation=f"difference{d.divisor}",
            verification=(
                f"Read Reconciliation!E{r}; it must equal the first anchor minus the second within the "
                f"tolerance, and C{r}/D{r} must hold the two source figures."
            ),
            anchors=[a.fact_id, b.fact_id],
        )
        d.formulas.append(f"Reconciliation!E{r}")
    if recon_rows:
        d.sheets.append("Reconciliation")
        d.lines.append("Sheet Reconciliation (row 1 headers: Item, Source 1, Source 2, Figure 1, Figure 2, "
                       "Difference): " + "; ".join(recon_rows) + ".")


def _summary_sheet(d: _Draft, compare: Sequence[GraphEdge], reconcile: Sequence[GraphEdge],
                   numeric: Sequence[GraphFact], chosen_totals: Sequence[GraphFact]) -> None:
    """compare edges: figures confirmed by two trusted files, with the change against the earlier period.

    The Summary sheet comes first in the workbook and the statement, though its criteria follow the others.
    """
    facts = d.facts
    agreeing = [e for e in compare if _trusted(facts[e.src_fact_id]) and _trusted(facts[e.dst_fact_id])]
    summary_rows: list[str] = []
    seen = {_key(t) for t in chosen_totals}
    by_key_file: dict[tuple[tuple[str, str, str], str], GraphFact] = {}
    for f in sorted(numeric, key=_rank):
        if _trusted(f):
            by_key_file.setdefault((_key(f), f.path), f)
    conflicted = {_key(facts[x]) for e in reconcile for x in (e.src_fact_id, e.dst_fact_id)
                  if facts[x].role == "confuser"}
    with_prev = {
        _key(f)
        for f in numeric
        if (f.metric or "", (f.entity or "").lower(), _previous(f.period) or "") in {_key(g) for g in numeric}
    }

    def preference(e: GraphEdge) -> tuple[object, ...]:
        a = facts[
            e.src_fact_id
        ]  # a figure the draft got wrong, with an earlier period to compare, checks most
        return (_key(a) not in conflicted, _key(a) not in with_prev, _rank(a), _rank(facts[e.dst_fact_id]))

    for e in sorted(agreeing, key=preference):
        a, b = sorted((facts[e.src_fact_id], facts[e.dst_fact_id]), key=_rank)
        if _key(a) in seen or a.unit == "%" or len(summary_rows) == MAX_ROWS:
            continue
        if not a.value_num:
            continue  # two files agreeing on a zero (an account with no budget authority) checks nothing
        seen.add(_key(a))
        r = len(summary_rows) + 2
        prev_key = (a.metric or "", (a.entity or "").lower(), _previous(a.period) or "")
        prev = by_key_file.get((prev_key, a.path))
        row = f"row {r}: {_label(a)} - column B the figure, confirmed in {_base(a.path)} and {_base(b.path)}"
        d.used[a.path].append(a.fact_id)
        d.used[b.path].append(b.fact_id)
        value = (a.value_num or 0.0) / d.scale
        d.add(polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=1.0,
              requirement=f"Summary!B{r} holds {_label(a)} as confirmed by two sources",
              target_deliverable=d.book.name, target_location=f"Summary!B{r}", expected=_fmt(value),
              expected_value=value, computation=f"copy{d.divisor}",
              verification=f"Read Summary!B{r}; it must equal the first anchor (the second agrees with it).",
              anchors=[a.fact_id, b.fact_id])
        if prev is not None and prev.value_num:
            row += (
                f"; column C the change against {_period_words(prev.period)} as a formula giving a fraction "
                f"of the earlier figure, not as a percentage"
            )
            change = ((a.value_num or 0.0) - prev.value_num) / prev.value_num
            d.used[prev.path].append(prev.fact_id)
            d.add(
                polarity=Polarity.POSITIVE,
                kind=CriterionKind.VALUE,
                weight=1.0,
                requirement=(
                    f"Summary!C{r} holds the change of {_label(a)} against {_period_words(prev.period)}"
                ),
                target_deliverable=d.book.name,
                target_location=f"Summary!C{r}",
                expected=f"{change:.4f}",
                expected_value=change,
                tolerance=0.01,
                computation="change",
                verification=f"Read Summary!C{r}; it must equal (first anchor - second) / second.",
                anchors=[a.fact_id, prev.fact_id],
            )
            d.formulas.append(f"Summary!C{r}")
        summary_rows.append(row)
    if summary_rows:
        d.sheets.insert(0, "Summary")
        d.lines.insert(
            0, "Sheet Summary (row 1 headers: Item, Figure, Change): " + "; ".join(summary_rows) + "."
        )


def _memo_criteria(d: _Draft, mirrors: Sequence[_Mirror]) -> None:
    """The memo's citations (every source file drawn on), both deliverables' structure, and, when a
    superseded file would change a figure, the Discrepancies explanation."""
    book, memo = d.book, d.memo
    for path in sorted(d.used):
        d.add(polarity=Polarity.POSITIVE, kind=CriterionKind.CITATION, weight=0.5,
              requirement=f"The Sources section of {memo.name} cites {_base(path)}",
              target_deliverable=memo.name, target_location="section=Sources", expected=_base(path),
              verification=f"Search the Sources section of {memo.name} for the file name {_base(path)}.",
              anchors=sorted(set(d.used[path]))[:3])
    all_anchors = sorted({a for c in d.criteria if c.polarity is Polarity.POSITIVE for a in c.anchors})
    d.add(
        polarity=Polarity.POSITIVE,
        kind=CriterionKind.STRUCTURE,
        weight=1.0,
        requirement=(
            f"{book.name} has the sheets {', '.join(d.sheets)}"
            + (f" and formulas in {', '.join(d.formulas)}" if d.formulas else "")
        ),
        target_deliverable=book.name,
        target_location=None,
        expected=", ".join(d.sheets),
        verification=(
            "Open the workbook; every required sheet exists and every listed cell holds a formula "
            "(text starting with '=')."
        ),
        anchors=all_anchors[:5],
    )
    d.add(polarity=Polarity.POSITIVE, kind=CriterionKind.STRUCTURE, weight=0.5,
          requirement=f"{memo.name} has the sections Summary, Discrepancies and Sources",
          target_deliverable=memo.name, target_location=None, expected="Summary, Discrepancies, Sources",
          verification="Find a heading for each required section in the memo.", anchors=all_anchors[:3])
    if mirrors:
        superseded = sorted({m.anchors[0] for m in mirrors} | {a for m in mirrors for a in m.replaced})
        d.add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.QUALITATIVE,
            weight=1.0,
            requirement=(
                f"The Discrepancies section of {memo.name} explains which document version was used "
                f"and why figures from the superseded version were set aside"
            ),
            target_deliverable=memo.name,
            target_location="section=Discrepancies",
            verification=(
                "A judge reads the section: it must name the superseded document and the figures "
                "that differ, and say the final version's figures were used."
            ),
            anchors=superseded[:6],
        )


def _negative_criteria(d: _Draft, mirrors: Sequence[_Mirror]) -> None:
    """One negative per reported figure a superseded (confuser) file would change; added last, priced from the
    total positive weight so one violation alone keeps the attempt below admission."""
    total_weight = sum(c.weight for c in d.criteria if c.polarity is Polarity.POSITIVE)
    for m in mirrors:
        c = m.mirror
        where = f"{c.target_location} of {c.target_deliverable}"
        source = d.facts[m.anchors[0]]
        d.add(polarity=Polarity.NEGATIVE, kind=CriterionKind.VALUE,
              weight=negative_weight(c.weight, total_weight),
              requirement=f"{c.target_location} does not hold {m.what} as the superseded "
                          f"{_base(source.path)} would give it",
              target_deliverable=c.target_deliverable, target_location=c.target_location,
              expected=_fmt(m.value), expected_value=m.value, tolerance=c.tolerance,
              computation=m.computation,
              verification=(f"Violated (1) only when {where} holds the value that the computation gives over "
                            f"the first anchors (the superseded figures, from {source.path}) within the "
                            f"tolerance, and that value is not also the value the positive criterion "
                            f"{c.criterion_id} at the same location expects; the last anchors are the "
                            f"trusted figures it replaces. Else 0."),
              anchors=[*m.anchors, *m.replaced])


def _statement(graph: WorkspaceGraph, book: DeliverableSpec, memo: DeliverableSpec, lines: Sequence[str],
               unit_words: str) -> str:
    files = "\n".join(f"- {p}" for p in graph.files)
    sheet_lines = "\n".join(f"   - {line}" for line in lines)
    units = f" Enter amounts in {unit_words}, as plain numbers." if unit_words else ""
    formulas = "   Every total, difference and change must be a spreadsheet formula, not a typed number."
    # Only a workbook with computed cells is told to compute them.
    rules = f"{formulas}{units}\n" if book.required_formulas else (f"  {units}\n" if units else "")
    return (
        f'You are reviewing the figures of "{graph.name}". The workspace holds these files:\n{files}\n\n'
        f"Produce two deliverables in the output folder:\n"
        f"1. The workbook {book.name} with the sheets {', '.join(book.required_sheets)}:\n{sheet_lines}\n"
        + rules
        + f"2. The memo {memo.name} (Markdown) with the sections Summary, Discrepancies and Sources. "
        f"Summary states the key figures; Discrepancies explains any figures that differ between "
        f"documents and which version you relied on; Sources lists the file names you took figures from.\n\n"
        f"Where documents disagree, rely on the final, most recent version of a document, not on drafts."
    )
