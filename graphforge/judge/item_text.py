"""How the family verifiers read a deliverable: its lines in reading order, and whether a line states an item.

Shared by ``graphforge.judge.items`` (the ``item``, ``stale``, ``layout`` and ``invented`` checks) and
``graphforge.judge.item_sources`` (the ``cites`` check), which both import from here.
"""

from __future__ import annotations

import re

from graphforge.evidence.text_facts import normalise_text
from graphforge.figures.dates import find_dates, parse_date
from graphforge.figures.numbers import find_numbers, matches_value, parse_number
from graphforge.judge.documents import Document, Workbook
from graphforge.judge.grader_notes import addresses_grader
from graphforge.judge.regions import TITLE, Line, section_lines, sheet_lines
from graphforge.judge.view import Anchor
from graphforge.models.spec import CriterionSpec

TEXT_MATCH = 0.6  # share of the source's content words a passage must hold to state the same thing
FILE_NAME = re.compile(r"[^\s()]+\.(?:md|markdown|txt|pdf|docx?|xlsx?|xlsm|pptx?|csv|tsv|html?|json|xml)\b",
                        re.I)
GENERIC = frozenset({"figure", "date", "document", "documents", "metadata", "title", "value", "s"})


def deliverable_lines(doc: Document, name: str) -> list[Line]:
    """Every line of the deliverable in reading order, headings and sheet names included, each with its
    footprint; lines addressed to the grader are left out."""
    out: list[Line] = []
    if isinstance(doc, Workbook):
        for sheet in doc.order:
            out.append(Line(f"# {sheet}", f"sheet {sheet!r}", frozenset({(name, sheet, TITLE)})))
            out += sheet_lines(doc, sheet, name)
    else:
        for section in doc.sections:
            if section.heading:
                out.append(Line(section.heading, f"heading {section.heading!r}",
                                frozenset({(name, section.heading, TITLE)})))
            out += section_lines(section, name)
    return [line for line in out if line.text.strip() and not addresses_grader(line.text)]


def content_words(text: str) -> set[str]:
    return set(normalise_text(text).split()) - GENERIC


def names_item(line: str, label: str | None) -> bool:
    wanted = content_words(label or "")
    return not wanted or bool(wanted & content_words(line))


def expected_text(criterion: CriterionSpec, anchors: list[Anchor]) -> tuple[str | None, float | None, str]:
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


def scales_of(anchors: list[Anchor]) -> tuple[float, ...]:
    scale = anchors[0].scale if anchors and anchors[0].scale else 1.0
    return tuple(sorted({1.0, 1e3, 1e6, 1e9, 1.0 / scale if scale else 1.0}))


_QUOTED = re.compile(r"'([^']{3,})'|\"([^\"]{3,})\"")


def without_label(line: str, label: str | None) -> str:
    """``line`` without the copy of the item's name (``label``) the request gave: a quoted fragment of it
    that the line repeats with its ellipsis, or writes twice, is removed once. What the request already told
    the worker is no evidence that the deliverable states the item; the item written out in full still is."""
    for m in _QUOTED.finditer(label or ""):
        fragment = (m.group(1) or m.group(2)).rstrip("…. ").strip().lower()
        if not fragment:
            continue
        low = line.lower()
        at = low.find(fragment)
        # Copied as the request wrote it (cut with an ellipsis), or written twice (the name, then the item).
        copied = at >= 0 and (low[at + len(fragment):].lstrip().startswith(("…", "..."))
                              or low.count(fragment) > 1)
        if copied:
            line = line[:at] + " " + line[at + len(fragment):]
    return line


def states(
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
        if number is None or not names_item(line, label):
            return False
        return any(matches_value(v * k, number, tol) for v, _, _ in find_numbers(line) for k in scales)
    wanted = set((text or "").split())
    if not wanted:
        return False
    if kind == "status":
        return wanted <= content_words(line) | set(normalise_text(line).split()) and names_item(line, label)
    # A cited file name is not content: "records_handbook.md" does not state the title "Records Handbook".
    # Nor is the item's name copied from the request: "the item that begins 'Confirm that the signed…'"
    # gives its opening words, which a line must state again beside it.
    got = set(normalise_text(FILE_NAME.sub(" ", without_label(line, label))).split())
    need = TEXT_MATCH if len(wanted) > 4 else 1.0
    return len(wanted & got) / len(wanted) >= need


def windows(lines: list[Line]) -> list[Line]:
    """Each line and each pair of neighbouring lines (a sentence may wrap in a deliverable too)."""
    pairs = [Line(f"{a.text} {b.text}", f"{a.where} and {b.where}", a.footprint | b.footprint)
             for a, b in zip(lines, lines[1:], strict=False)]
    return lines + pairs


def cells_of(line: Line) -> list[Line]:
    """A row's cells (tab-separated, or a Markdown table's pipes) as lines of their own: a locator written in
    one cell is not read as another cell's."""
    text = line.text
    parts = text.strip().strip("|").split("|") if text.lstrip().startswith("|") else text.split("\t")
    if len(parts) < 2:
        return [line]
    return [Line(p, line.where, line.footprint) for p in parts if p.strip()]
