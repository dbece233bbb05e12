"""Verifiers for task-family criteria: find an item by its meaning wherever the deliverable puts it.

- ``item``: a date is any printed form of the same day; a figure any printed form within tolerance, at the
  source's scale or in full units, on a line that names the item; text (a requirement, definition, list item,
  title) is a passage holding most of the source's content words; a status is the item's name with its status.
- ``cites``: the share of the anchored facts' files the deliverable names.
- ``layout``: a heading, sheet, slide title, column or JSON key with the part's name.
- ``stale`` (negative): a line states the superseded value without the current one and without calling it
  earlier or superseded.
Anchored arm: expected values come from the anchored span text; unanchored: from the criterion alone.
Lines addressed to the grader are not content and count for nothing.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from graphforge.evidence.text_facts import normalise_text
from graphforge.figures.dates import find_dates, parse_date
from graphforge.figures.numbers import find_numbers, matches_value, parse_number
from graphforge.judge.documents import Document, Report, Workbook, _norm
from graphforge.judge.regions import strip_file_names
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import CriterionSpec

TEXT_MATCH = 0.6  # share of the source's content words a passage must hold to state the same thing
_EARLIER = re.compile(
    r"\b(supersed\w*|earlier|previous\w*|prior|was|were|originally|changed|replac\w*|"
    r"extended|moved|as issued|draft|old|from)\b",
    re.I,
)
_FILE_NAME = re.compile(r"[^\s()]+\.(?:md|markdown|txt|pdf|docx?|xlsx?|xlsm|pptx?|csv|tsv|html?|json|xml)\b",
                        re.I)
_GENERIC = frozenset({"figure", "date", "document", "documents", "metadata", "title", "value", "s"})


def _lines(doc: Document) -> list[str]:
    from graphforge.judge.verifiers import _TO_THE_GRADER

    text = doc.text()
    return [ln for ln in text.splitlines() if ln.strip() and not _TO_THE_GRADER.search(ln)]


def _words(text: str) -> set[str]:
    return set(normalise_text(text).split()) - _GENERIC


def _names_item(line: str, label: str | None) -> bool:
    wanted = _words(label or "")
    return not wanted or bool(wanted & _words(line))


def _expected_text(criterion: CriterionSpec, anchors: list[Anchor]) -> tuple[str | None, float | None, str]:
    """(expected text, expected number, where it came from) for the first anchor or the criterion."""
    if anchors:
        a = anchors[0]
        in_span = a.value and re.sub(r"\s+", " ", a.value) in re.sub(r"\s+", " ", a.span_text)
        if in_span:
            kind = criterion.fact_kind
            if kind == "date":
                return parse_date(a.value), None, "anchored span"
            if kind == "quantity":
                number = parse_number(a.value)
                return a.value, None if number is None else number * (a.scale or 1.0), "anchored span"
            return normalise_text(a.value), None, "anchored span"
        return criterion.expected, criterion.expected_value, "criterion (anchor text not in its span)"
    return criterion.expected, criterion.expected_value, "criterion"


def _scales(anchors: list[Anchor]) -> tuple[float, ...]:
    scale = anchors[0].scale if anchors and anchors[0].scale else 1.0
    return tuple(sorted({1.0, 1e3, 1e6, 1e9, 1.0 / scale if scale else 1.0}))


def _states(
    line: str,
    kind: str | None,
    text: str | None,
    number: float | None,
    label: str | None,
    tol: float,
    scales: tuple[float, ...],
) -> bool:
    if kind == "date":
        return bool(text) and any(
            d.iso == text or (len(text or "") == 7 and d.iso.startswith(text or "?"))
            for d in find_dates(line)
        )
    if kind == "quantity":
        if number is None or not _names_item(line, label):
            return False
        return any(matches_value(v * k, number, tol) for v, _, _ in find_numbers(line) for k in scales)
    wanted = set((text or "").split())
    if not wanted:
        return False
    if kind == "status":
        return wanted <= _words(line) | set(normalise_text(line).split()) and _names_item(line, label)
    # A cited file name is not content: "records_handbook.md" does not state the title "Records Handbook".
    got = set(normalise_text(_FILE_NAME.sub(" ", line)).split())
    need = TEXT_MATCH if len(wanted) > 4 else 1.0
    return len(wanted & got) / len(wanted) >= need


def _windows(lines: list[str]) -> list[str]:
    """Each line and each pair of neighbouring lines (a sentence may wrap in a deliverable too)."""
    return lines + [f"{a} {b}" for a, b in zip(lines, lines[1:], strict=False)]


def verify_check(
    criterion: CriterionSpec, arm: JudgeArm, view: JudgeView, doc: Document
) -> tuple[float, str]:
    """Score one family criterion: (a in [0, 1] or v in {0, 1}, evidence)."""
    anchors = view.anchors_of(criterion) if arm is JudgeArm.ANCHORED else []
    lines = _lines(doc)
    if criterion.check == "layout":
        part = criterion.expected or ""
        found = _has_part(doc, part)
        return (1.0 if found else 0.0), f"part {part!r} {'present' if found else 'missing'}"
    if criterion.check == "cites":
        files = (
            sorted({PurePosixPath(a.path).name for a in anchors if a.path})
            if anchors
            else [f for f in (criterion.expected or "").split("; ") if f]
        )
        if not files:
            return 0.0, "no source files to look for"
        body = _norm(" ".join(lines))
        named = [f for f in files if _norm(f) in body or _norm(PurePosixPath(f).stem) in body]
        return len(named) / len(files), f"names {len(named)} of {len(files)} source files: {named}"
    text, number, source = _expected_text(criterion, anchors)
    kind, scales = criterion.fact_kind, _scales(anchors)
    # A cited file name is not content, whatever its characters ("Q3 results, 2024.xlsx" states no figure).
    lines = [kept for kept in (strip_file_names(line, view.paths) for line in lines) if kept.strip()]
    if criterion.check == "item":
        # Long text may wrap over two lines in a deliverable; a title, date, figure or status sits on one.
        wraps = kind in ("requirement", "definition", "list_item")
        for window in _windows(lines) if wraps else lines:
            if _states(window, kind, text, number, criterion.label, criterion.tolerance, scales):
                return 1.0, f"found ({source}): {window[:160]!r}"
        return 0.0, f"no passage states the {kind} expected from the {source}"
    if criterion.check == "stale":
        current_text = current_number = None
        if len(anchors) > 1:
            current_text, current_number, _ = _expected_text(criterion, anchors[1:])
        for line in lines:
            if not _states(line, kind, text, number, None, criterion.tolerance, scales):
                continue
            if _EARLIER.search(line):
                continue
            if current_text is not None and _states(
                line, kind, current_text, current_number, None, criterion.tolerance, scales
            ):
                continue
            return 1.0, f"states the superseded value as current: {line[:160]!r}"
        return 0.0, "the superseded value is not stated as current"
    return 0.0, f"unknown check {criterion.check!r}"


def _has_part(doc: Document, part: str) -> bool:
    want = _norm(part)
    if isinstance(doc, Report):
        return doc.section(part) is not None or any(
            want in _norm(line.split("\t")[0]) for s in doc.sections for line in s.text.splitlines()[:1]
        )
    if isinstance(doc, Workbook):
        if doc.evaluator.sheet_name(part) is not None:
            return True
        first_rows = [doc.sheet_text(s).splitlines()[:1] for s in doc.order]
        return any(want == _norm(cell) for rows in first_rows for row in rows for cell in row.split("\t"))
    return False
