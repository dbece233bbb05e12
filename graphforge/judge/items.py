"""Verifiers for task-family criteria: find an item by its meaning wherever the deliverable puts it.

- ``item``: a date is any printed form of the same day; a figure any printed form within tolerance, at the
  source's scale or in full units, on a line that names the item; text (a requirement, definition, list item,
  title) is a passage holding most of the source's content words; a status is the item's name with its status.
- ``cites``: the share of the anchored items whose own line, row or record cites a file that holds them, at
  the place it names (graphforge.judge.item_sources); unanchored: the share of the files named, none invented.
- ``layout``: a heading, sheet or slide title with the part's name; a column of the table's header or a key of
  the JSON records where the deliverable declares it one (``required_columns`` / ``required_keys``). Names
  match whatever their case, spacing, punctuation or plural, in any order.
- ``stale`` (negative): a line states the superseded value without the current one and without calling it
  earlier or superseded.
Anchored arm: expected values come from the anchored span text; unanchored: from the criterion alone.
Lines addressed to the grader are not content and count for nothing.
"""

from __future__ import annotations

import re

from graphforge.evidence.text_facts import normalise_text
from graphforge.judge.documents import Document, Report, Workbook, norm_key
from graphforge.judge.grader_notes import addresses_grader
from graphforge.judge.item_sources import verify_item_sources, verify_named_sources
from graphforge.judge.item_text import (
    cells_of,
    content_words,
    deliverable_lines,
    expected_text,
    scales_of,
    states,
    windows,
    without_label,
)
from graphforge.judge.regions import TITLE, Footprint, Line, section_lines, sheet_lines, strip_file_names
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import CriterionSpec

EARLIER = re.compile(
    r"\b(supersed\w*|earlier|previous\w*|prior|was|were|original(?:ly)?|changed|replac\w*|"
    r"moved|as issued|draft|old|from)\b",
    re.I,
)


def verify_check(
    criterion: CriterionSpec, arm: JudgeArm, view: JudgeView, doc: Document
) -> tuple[float, str, Footprint]:
    """Score one family criterion: (a in [0, 1] or v in {0, 1}, evidence, the lines or parts it rests on)."""
    anchors = view.anchors_of(criterion) if arm is JudgeArm.ANCHORED else []
    name = criterion.target_deliverable
    lines = deliverable_lines(doc, name)
    if criterion.check == "layout":
        return _layout(criterion, view, doc)
    if criterion.check == "cites":
        if arm is JudgeArm.ANCHORED:
            return verify_item_sources(criterion, view, doc)
        return verify_named_sources(criterion, view, doc)
    text, number, source = expected_text(criterion, anchors)
    kind, scales = criterion.fact_kind, scales_of(anchors)
    # A cited file name is not content, whatever its characters ("Q3 results, 2024.xlsx" states no figure).
    lines = [Line(kept, line.where, line.footprint) for line in lines
             if (kept := strip_file_names(line.text, view.paths)).strip()]
    if criterion.check == "item":
        # Long text may wrap over two lines in a deliverable; a title, date, figure or status sits on one.
        wraps = kind in ("requirement", "definition", "list_item")
        for window in windows(lines) if wraps else lines:
            if states(window.text, kind, text, number, criterion.label, criterion.tolerance, scales):
                return 1.0, f"found ({source}): {window.text[:160]!r}", window.footprint
        return 0.0, f"no passage states the {kind} expected from the {source}", frozenset()
    if criterion.check == "stale":
        return _stale(criterion, anchors, lines, text, number, scales)
    if criterion.check == "invented":
        return _invented(criterion, anchors, view, doc)
    return 0.0, f"unknown check {criterion.check!r}", frozenset()


def _stale(criterion: CriterionSpec, anchors: list[Anchor], lines: list[Line], text: str | None,
           number: float | None, scales: tuple[float, ...]) -> tuple[float, str, Footprint]:
    """A line states the superseded value (the first anchor) as current: it states the old item without the
    current one (the second anchor) and without calling it earlier. Where the two versions of a text share
    most words, what tells them apart is what differs (a number, a date, a version, a changed word): the line
    must hold the old version's own words, and not all of the new version's."""
    kind = criterion.fact_kind
    current_text = current_number = None
    if len(anchors) > 1:
        current_text, current_number, _ = expected_text(criterion, anchors[1:])
    textual = kind not in ("date", "quantity") and text is not None and current_text is not None
    old_words, new_words = set((text or "").split()), set((current_text or "").split())
    old_only, new_only = old_words - new_words, new_words - old_words
    raw = " ".join([a.value for a in anchors[:2]] or [criterion.expected or ""])
    own = {w.lower() for w in EARLIER.findall(raw)}
    for line in lines:
        if not states(line.text, kind, text, number, None, criterion.tolerance, scales):
            continue
        # "earlier", "was", "from" in the item's own text call nothing earlier.
        said = {w.lower() for w in EARLIER.findall(line.text)} - own
        if said:
            continue
        if textual and old_only:
            # The item's name copied from the request ("that begins 'Proposer must have an existing…'")
            # quotes the new wording: it is no sign that the line states it.
            got = set(normalise_text(without_label(line.text, criterion.label)).split())
            if not old_only <= got or (new_only and new_only <= got):
                continue
        elif current_text is not None and states(
            line.text, kind, current_text, current_number, None, criterion.tolerance, scales
        ):
            continue
        return 1.0, f"states the superseded value as current: {line.text[:160]!r}", line.footprint
    return 0.0, "the superseded value is not stated as current", frozenset()


MIN_ENTRY_WORDS = 4  # a row or list entry shorter than this is a heading, a total or a note, not an item


def _invented(criterion: CriterionSpec, anchors: list[Anchor], view: JudgeView,
              doc: Document) -> tuple[float, str, Footprint]:
    """Set coverage, negative: an entry of the named part that states none of the anchored source items."""
    if not anchors:
        return 0.0, "no source items to compare the entries with", frozenset()
    name, part = criterion.target_deliverable, criterion.expected or ""
    entries = [Line(kept, line.where, line.footprint) for line in _entries(doc, part, name)
               if not addresses_grader(line.text)
               and len(content_words(kept := strip_file_names(line.text, view.paths))) >= MIN_ENTRY_WORDS]
    # What an entry may state: a source item of this criterion, or another item the deliverable is asked for
    # (a deadline, a figure beside the requirements), each as its own kind.
    pool = [(criterion.fact_kind, expected_text(criterion, [a]), scales_of([a])) for a in anchors]
    pool += [(c.fact_kind, expected_text(c, view.anchors_of(c)[:1]), scales_of(view.anchors_of(c)[:1]))
             for c in view.spec.criteria
             if c.check == "item" and c.target_deliverable == name and view.anchors_of(c)]
    invented = [e for e in entries
                if not any(states(e.text, kind, text, number, None, criterion.tolerance, scales)
                           for kind, (text, number, _), scales in pool)]
    if not invented:
        return 0.0, f"each of the {len(entries)} entries of {part!r} states a source item", frozenset()
    shown = "; ".join(repr(e.text[:80]) for e in invented[:3])
    return (1.0, f"{len(invented)} of {len(entries)} entries of {part!r} state no source item: {shown}",
            frozenset(i for e in invented for i in e.footprint))


def _entries(doc: Document, part: str, name: str) -> list[Line]:
    """The rows of a sheet (its header row left out) or the lines of a section named ``part``."""
    if isinstance(doc, Workbook):
        sheet = doc.evaluator.sheet_name(part) or (doc.order[0] if len(doc.order) == 1 else None)
        return sheet_lines(doc, sheet, name)[1:] if sheet is not None else []
    section = doc.section(part)
    return section_lines(section, name) if section is not None else []


HEADER_ROWS = 10  # a table's header sits in the first rows of its sheet (a title row may come first)


def same_name(a: str, b: str) -> bool:
    """Two names of a part match whatever their case, spacing, punctuation or plural ("Source file",
    "source_file", "SourceFiles")."""
    return bool(_squash(a)) and _squash(a) == _squash(b)


def _squash(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)


def _layout(criterion: CriterionSpec, view: JudgeView, doc: Document) -> tuple[float, str, Footprint]:
    """A layout criterion: the part, column or JSON key its deliverable declares, by name."""
    part, name = criterion.expected or "", criterion.target_deliverable
    d = next((d for d in view.spec.deliverables if d.name == name), None)
    if d is not None and any(same_name(part, c) for c in d.required_columns):
        what = "column"
        found = _find_column(doc, part, d.required_sheets[0] if d.required_sheets else None, name)
    elif d is not None and any(same_name(part, k) for k in d.required_keys):
        what = "key"
        found = _find_key(doc, part, d.required_sections[0] if d.required_sections else None, name)
    else:
        what, found = "part", _find_part(doc, part, name)
    return (1.0 if found else 0.0), f"{what} {part!r} {'present' if found else 'missing'}", found


def _find_column(doc: Document, column: str, sheet: str | None, name: str) -> Footprint:
    """A header cell named ``column``: in the first rows of the declared sheet (of every sheet when it is
    missing: that is the sheet criterion's loss), or a table row of a report."""
    if isinstance(doc, Workbook):
        declared = [t for t in doc.order if sheet is not None and same_name(t, sheet)]
        for title in declared or doc.order:
            for line in sheet_lines(doc, title, name)[:HEADER_ROWS]:
                for ref in sorted(c for _, _, c in line.footprint):
                    cell = doc.sheets[title][ref]
                    if isinstance(cell.value, str) and same_name(cell.value, column):
                        return frozenset({(name, title, ref)})
        return frozenset()
    for section in doc.sections:
        for line in section_lines(section, name):
            cells = cells_of(line)
            if len(cells) >= 2 and any(same_name(c.text, column) for c in cells):
                return line.footprint
    return frozenset()


def _find_key(doc: Document, key: str, section: str | None, name: str) -> Footprint:
    """A JSON object key named ``key``, under the declared top-level key (under any when that one is
    missing: that is its own criterion's loss)."""
    if not isinstance(doc, Report):
        return frozenset()
    declared = [s for s in doc.sections if section is not None and same_name(s.heading, section)]
    for s in declared or doc.sections:
        if any(same_name(k, key) for k in s.keys):
            return frozenset({(name, s.heading, TITLE)})
    return frozenset()


def _find_part(doc: Document, part: str, name: str) -> Footprint:
    """Where the deliverable has a part named ``part``: a heading or slide title, a sheet, a column, or the
    label opening a section's first line. Empty when it has none."""
    want = norm_key(part)
    if isinstance(doc, Report):
        section = doc.section(part) or next((s for s in doc.sections if same_name(s.heading, part)), None)
        if section is not None:
            return frozenset({(name, section.heading, TITLE)})
        for s in doc.sections:
            first = s.text.splitlines()[:1]
            if first and want in norm_key(first[0].split("\t")[0]):
                return frozenset({(name, s.heading, "0")})
        return frozenset()
    sheet = doc.evaluator.sheet_name(part) or next((t for t in doc.order if same_name(t, part)), None)
    if sheet is not None:
        return frozenset({(name, sheet, TITLE)})
    for title in doc.order:
        top = sheet_lines(doc, title, name)[:1]
        if top and any(want == norm_key(cell) for cell in top[0].text.split("\t")):
            return top[0].footprint
    return frozenset()
