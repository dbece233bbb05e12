"""Citations checked item by item (family ``cites`` criteria): each item the deliverable states must name, on
its own record, a file of the workspace that holds it.

An item's record is where the deliverable states it: a workbook or CSV row with the comments on its cells, a
report line with the line after it when that one opens with "Source:", the footnote or reference its marker
([1], [^2], ¹) points to and its slide's speaker notes, a JSON record. Its citation passes when it names the
anchored file, or a current file that states the same value (a compare edge in the graph, or an identical
copy), and when it writes a place (page=3, p. 3, row 4, slide 2, Sheet!B4) that place holds the item. A cited
file that is not in the workspace fails the item, however right the rest; so does a record that names files
wholesale. Anchors stated by no criterion of the deliverable (a second file that states an item too) must be
named, exactly, on the record of the item they go with.

Citations and locators are read by graphforge.judge.regions (``citations``, ``at_place``), which the standing
``sources`` criterion uses too: one reading of a citation for every rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from graphforge.evidence.text_facts import normalise_text
from graphforge.judge.documents import Document, Report, Workbook
from graphforge.judge.item_text import cells_of, deliverable_lines, expected_text, scales_of, states
from graphforge.judge.regions import Citation, Footprint, Line, at_place, citations, strip_file_names
from graphforge.judge.view import Anchor, JudgeView, bad_files
from graphforge.models.spec import CriterionSpec

WHOLESALE = 4  # a record naming this many files, most not holding its item, cites nothing in particular
TEXT_KINDS = ("requirement", "definition", "list_item")  # items whose text may wrap over two lines

_SOURCE_LEAD = re.compile(
    r"^[\s>*•|-]*\(?\s*(?:sources?|ref(?:erence)?s?|citations?|cited(?:\s+in)?|from|see|per|stated\s+in)\b",
    re.IGNORECASE,
)
_MARK = re.compile(r"\[\^?([A-Za-z0-9]{1,3})\]|([¹²³⁴⁵⁶⁷⁸⁹⁰]+)")
_SUPERSCRIPT = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹⁰", "1234567890")
_NOTE_OPENING = re.compile(r"^[\s>*•|-]*(?:\[\^?([A-Za-z0-9]{1,3})\]:?|([¹²³⁴⁵⁶⁷⁸⁹⁰]+))")
_NUMBERED_OPENING = re.compile(r"^[\s>*•|-]*(\d{1,3})[.)]\s")
_NOTES_HEADING = re.compile(r"\b(?:notes?|footnotes?|endnotes?|references?|sources?|citations?)\b", re.I)


@dataclass(frozen=True)
class Record:
    """A place the deliverable states something, with the lines its citation may sit on."""

    line: Line
    attached: tuple[Line, ...] = ()  # the next "Source:" line, footnotes, cell comments, speaker notes

    @property
    def footprint(self) -> Footprint:
        return self.line.footprint.union(*(a.footprint for a in self.attached))


@dataclass(frozen=True)
class Wanted:
    """How to recognise one anchored item on a line (as the ``item`` check does)."""

    kind: str | None
    text: str | None
    number: float | None
    label: str | None
    tolerance: float
    scales: tuple[float, ...]


def _wanted(view: JudgeView, anchor: Anchor, deliverable: str) -> Wanted | None:
    """The item or stale criterion of the deliverable that states this anchor, as a ``Wanted``."""
    for c in view.spec.criteria:
        if c.target_deliverable != deliverable or c.check not in ("item", "stale"):
            continue
        anchors = view.anchors_of(c)
        if anchors and anchors[0].fact_id == anchor.fact_id:
            text, number, _ = expected_text(c, [anchor])
            return Wanted(c.fact_kind, text, number, c.label, c.tolerance, scales_of([anchor]))
    return None


def _container(line: Line) -> str | None:
    return next((c for _, c, _ in line.footprint), None)


def _notes_index(lines: list[Line], doc: Document) -> dict[str, list[Line]]:
    """Footnote and reference lines by their marker ("1" for "[1] ...", "[^1]: ...", "¹ ..." and, under a
    Notes / References / Sources heading, "1. ...")."""
    noted = {s.heading for s in doc.sections if _NOTES_HEADING.search(s.heading)} if isinstance(doc, Report) \
        else set()
    index: dict[str, list[Line]] = {}
    for line in lines:
        m = _NOTE_OPENING.match(line.text)
        mark = (m.group(1) or m.group(2).translate(_SUPERSCRIPT)) if m else None
        if mark is None and _container(line) in noted and (n := _NUMBERED_OPENING.match(line.text)):
            mark = n.group(1)
        if mark is not None:
            index.setdefault(mark.lower(), []).append(line)
    return index


def records(doc: Document, name: str) -> list[Record]:
    """Every line of the deliverable as a record, with the lines its citation may sit on."""
    lines = deliverable_lines(doc, name)
    notes = _notes_index(lines, doc)
    speaker: dict[str, tuple[Line, ...]] = {}
    if isinstance(doc, Report):
        for s in doc.sections:
            speaker[s.heading] = tuple(Line(t, f"speaker notes of {s.heading!r}", frozenset())
                                       for t in s.notes.splitlines() if t.strip())
    out: list[Record] = []
    for i, line in enumerate(lines):
        attached: list[Line] = []
        container = _container(line)
        after = lines[i + 1] if i + 1 < len(lines) else None
        if after is not None and _container(after) == container and _SOURCE_LEAD.match(after.text):
            attached.append(after)
        for m in _MARK.finditer(line.text):
            mark = (m.group(1) or m.group(2).translate(_SUPERSCRIPT)).lower()
            attached += [n for n in notes.get(mark, []) if n is not line]
        if isinstance(doc, Workbook) and container is not None:
            comments = doc.comments.get(container, {})
            attached += [Line(comments[c], f"comment on {container}!{c}", frozenset({(name, container, c)}))
                         for _, _, c in sorted(line.footprint) if c in comments]
        attached += speaker.get(container or "", ())
        out.append(Record(line, tuple(attached)))
    return out


def _record_windows(recs: list[Record]) -> list[Record]:
    """Each record and each pair of neighbouring ones (requirement text may wrap over two lines)."""
    pairs = [Record(Line(f"{a.line.text} {b.line.text}", f"{a.line.where} and {b.line.where}",
                         a.line.footprint | b.line.footprint), a.attached + b.attached)
             for a, b in zip(recs, recs[1:], strict=False)]
    return recs + pairs


def _stating(recs: list[Record], wanted: Wanted, paths: list[str]) -> list[Record]:
    """The records that state the item (as the ``item`` check finds it). An item stated wrong or not at all
    has no citation to check: its citation fails with it."""
    pool = _record_windows(recs) if wanted.kind in TEXT_KINDS else recs
    return [r for r in pool if states(strip_file_names(r.line.text, paths), wanted.kind, wanted.text,
                                       wanted.number, wanted.label, wanted.tolerance, wanted.scales)]


def _places(view: JudgeView, anchor: Anchor, exact: bool) -> dict[str, set[str]]:
    """The files that hold the item and where: its own span, an identical copy of its file and, unless only
    its own file will do, the current files that state it in agreement."""
    places: dict[str, set[str]] = {anchor.path or "": {anchor.locator}}
    sha = next((f.sha256 for f in view.files if f.path == anchor.path), "")
    for f in view.files:
        if sha and f.sha256 == sha:
            places.setdefault(f.path, set()).add(anchor.locator)
    if not exact:
        bad = bad_files(view)
        for s in view.agreeing.get(anchor.fact_id, []):
            if s.path not in bad:
                places.setdefault(s.path, set()).add(s.locator)
    return places


def _named(c: Citation, paths: list[str]) -> list[str]:
    """The workspace files a citation names: the one it resolves to, or every file with its base name (a base
    name two folders share names one of them, not an invented file)."""
    if c.path is not None:
        return [c.path]
    base = PurePosixPath(c.token.replace("\\", "/")).name.lower()
    return [p for p in paths if PurePosixPath(p).name.lower() == base]


def _judge_record(record: Record, places: dict[str, set[str]], view: JudgeView, ignore: set[str]
                  ) -> tuple[bool, str]:
    region = [c for line in (record.line, *record.attached) for c in cells_of(line)]
    cites = [(c, _named(c, view.paths)) for c in citations(region, view.paths, ignore)]
    invented = [c.token for c, named in cites if not named]
    if invented:
        return False, f"cites {invented[0]!r}, which is not a file of the workspace"
    if not cites:
        return False, "names no source file"
    right = [(c, p) for c, named in cites for p in named if p in places and at_place(c, places[p])]
    if not right:
        misplaced = [(c, p) for c, named in cites for p in named if p in places]
        if misplaced:
            c, p = misplaced[0]
            held = sorted(x for x in places[p] if x)
            return False, f"cites {p} at {', '.join(c.locators)}, but the item is at {', '.join(held)}"
        return False, f"cites {sorted({c.token for c, _ in cites})}, none of which states the item"
    files = {p for _, named in cites for p in named}
    if len(files) >= WHOLESALE and 2 * len({p for _, p in right}) < len(files):
        return False, f"names {len(files)} files at once, most of which do not state the item"
    c, p = right[0]
    return True, f"cites {p}" + (f" at {', '.join(c.locators)}" if c.locators else "")


def verify_item_sources(criterion: CriterionSpec, view: JudgeView, doc: Document
                        ) -> tuple[float, str, Footprint]:
    """Share of the criterion's anchored items whose own record cites a file holding them (anchored arm)."""
    name = criterion.target_deliverable
    anchors = list({a.fact_id: a for a in view.anchors_of(criterion) if a.path}.values())
    if not anchors:
        return 0.0, "no anchored source files to look for", frozenset()
    recs = records(doc, name)
    ignore = {d.name for d in view.spec.deliverables}
    wanted = {a.fact_id: _wanted(view, a, name) for a in anchors}
    # An anchor no criterion states goes with the first item of the criterion that is stated (a second file).
    lead = next((a for a in anchors if wanted[a.fact_id] is not None), None)
    passed: list[str] = []
    failed: list[str] = []
    footprint: set[tuple[str, str, str]] = set()
    for a in anchors:
        own = wanted[a.fact_id]
        exact = own is None
        w = own or (wanted[lead.fact_id] if lead is not None else None)
        shown = PurePosixPath(a.path or "").name
        if w is None:
            w = Wanted(None, normalise_text(a.value), None, None, criterion.tolerance, (1.0,))
        stating = _stating(recs, w, view.paths)
        if not stating:
            failed.append(f"{shown}: the item is not stated, so no citation of it can be checked")
            continue
        places = _places(view, a, exact)
        verdicts = [(r, *_judge_record(r, places, view, ignore)) for r in stating]
        good = [(r, why) for r, ok, why in verdicts if ok]
        if good:
            passed.append(f"{shown}: {good[0][1]} ({good[0][0].line.where})")
            footprint |= good[0][0].footprint
        else:
            r, _, why = verdicts[0]
            failed.append(f"{shown}: {r.line.where} {why}")
    score = len(passed) / len(anchors)
    evidence = f"{len(passed)} of {len(anchors)} items cite a file that holds them"
    if failed:
        evidence += "; not: " + "; ".join(failed[:4]) + ("; ..." if len(failed) > 4 else "")
    return score, evidence, frozenset(footprint)


def verify_named_sources(criterion: CriterionSpec, view: JudgeView, doc: Document
                         ) -> tuple[float, str, Footprint]:
    """Unanchored arm (no anchors to say which item comes from where): the share of the criterion's files the
    deliverable names; nothing when it cites a file the workspace does not hold."""
    files = [f for f in (criterion.expected or "").split("; ") if f]
    if not files:
        return 0.0, "no source files to look for", frozenset()
    lines = deliverable_lines(doc, criterion.target_deliverable)
    ignore = {d.name for d in view.spec.deliverables}
    cites = citations([c for line in lines for c in cells_of(line)], view.paths, ignore)
    invented = [c for c in cites if not _named(c, view.paths)]
    if invented:
        return 0.0, f"cites files that are not in the workspace: {sorted({c.token for c in invented})[:3]}", \
            frozenset(i for c in invented for i in c.line.footprint)
    named = {PurePosixPath(c.token.replace("\\", "/")).name.lower() for c in cites}
    hits = [f for f in files if PurePosixPath(f).name.lower() in named]
    footprint = frozenset(i for c in cites if PurePosixPath(c.token.replace("\\", "/")).name.lower() in
                          {PurePosixPath(h).name.lower() for h in hits} for i in c.line.footprint)
    return len(hits) / len(files), f"names {len(hits)} of {len(files)} source files: {hits}", footprint
