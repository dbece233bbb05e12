"""Facts that are not numbers, read by rules from a file's structure: dates and deadlines, requirements,
definitions, list items, statuses and document metadata, each with the section it sits under.

Every fact's ``value`` is a verbatim piece of its span (one line's sentence, one cell), so it is recoverable
exactly like a figure; ``normalized`` is what verifiers compare (ISO date, lower-cased words). A sentence that
wraps over lines keeps the line that holds its key words as value and the whole sentence in the statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphforge.evidence.base import WorkspaceSpan, fact_id
from graphforge.figures.dates import find_dates
from graphforge.models.evidence import FactKind, FactRow

NAME = "rule-based"
# Caps per file and kind keep one long guidance PDF from drowning the workspace in near-identical facts.
MAX_PER_FILE = {
    FactKind.REQUIREMENT: 150,
    FactKind.DATE: 120,
    FactKind.LIST_ITEM: 150,
    FactKind.DEFINITION: 200,
    FactKind.STATUS: 200,
    FactKind.METADATA: 6,
}

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
# "3.2 Deliverables", "C.4 Scope of work", "Section 5: Reporting", "Article IV - Terms", "PART 2 - ..."
_NUMBERED_HEADING = re.compile(
    r"^\s*(?:(?:section|article|part|chapter)\s+)?(?P<num>(?:[A-Z]\.)?\d+(?:\.\d+){0,3}|[IVX]+)\.?[:)\s-]+"
    r"(?P<title>[A-Z][^.!?]{2,80})$",
    re.I,
)
_BULLET = re.compile(r"^\s*(?:[-*•▪◦·]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))\s+(?P<item>\S.{2,240})$")
_MODAL = re.compile(
    r"\b(?P<modal>shall(?: not)?|must(?: not)?|is required to|are required to|will be required to|"
    r"is responsible for|are responsible for|may not)\b",
    re.I,
)
_DEADLINE = re.compile(
    r"\b(due|deadline|no later than|not later than|closing date|submit\w*|received by|"
    r"expires?|expiration|effective|begin\w*|start\w*|end\w*|complete\w*|deliver\w*|releas\w*|award\w*|"
    r"launch\w*|kick-?off|milestone|by)\b",
    re.I,
)
_DEFINES = re.compile(
    r"^\s*[-*]?\s*\**\"?(?P<term>[A-Z][\w /()&'.-]{1,60}?)\"?\**\s*"
    r"(?P<verb>\bmeans\b|\bis defined as\b|\brefers to\b|\bshall mean\b)\s+(?P<text>\S.{8,})$"
)
_GLOSSARY_LINE = re.compile(r"^\s*[-*]?\s*\*\*(?P<term>[^*]{2,60})\*\*\s*[:—–-]\s*(?P<text>\S.{8,})$")
_GLOSSARY_SECTION = re.compile(r"definition|glossary|terms|acronym|abbreviation|dictionary", re.I)
_VERSION = re.compile(
    r"\b(?P<v>draft|final|amend(?:ed|ment)(?:\s+(?:no\.?\s*)?\d+)?|as issued|revised|"
    r"superseded|version\s+\d+(?:\.\d+)*|v\d+(?:\.\d+)+|vfnl)\b",
    re.I,
)
_NAME_HEADER = re.compile(
    r"\b(field|variable|column|term|element|acronym|name|question|item|criteri\w*|"
    r"indicator|measure|category|data point)\b",
    re.I,
)
_DESC_HEADER = re.compile(
    r"\b(description|definition|meaning|question text|explanation|label|notes?)\b", re.I
)
_STATUS_HEADER = re.compile(
    r"\b(status|result|decision|outcome|resolution|pass/fail|disposition|state)\b", re.I
)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to and or in on for by with at as is are be this that any all its their from "
    "shall must will may not".split()
)


def normalise_text(text: str) -> str:
    """Lower-cased content words in order: the form verifiers compare requirement or item text by."""
    return " ".join(w for w in _WORD.findall(text.lower()) if w not in _STOP)


@dataclass
class _Trail:
    """The heading trail above the current line: [(level, text)]."""

    items: list[tuple[int, str]]

    def push(self, level: int, text: str) -> None:
        self.items = [(lvl, t) for lvl, t in self.items if lvl < level] + [(level, text)]

    def label(self) -> str:
        return " > ".join(t for _, t in self.items[-2:])

    def last(self) -> str:
        return self.items[-1][1] if self.items else ""


def heading_of(line: str) -> tuple[int, str] | None:
    """(level, text) when a line is a heading (markdown #, or a numbered section title), else None."""
    m = _MD_HEADING.match(line)
    if m:
        return len(m.group(1)), m.group(2).strip("* ")
    m = _NUMBERED_HEADING.match(line)
    if m and len(line) <= 100 and not _MODAL.search(line) and not line.rstrip().endswith((",", ";")):
        num = m.group("num")
        return 1 + num.count("."), line.strip()
    return None


def _sentences(line: str) -> Iterable[tuple[int, int]]:
    """(start, end) of each sentence inside one line."""
    start = 0
    for m in re.finditer(r"(?<=[.!?;])\s+(?=[A-Z(\"])", line):
        yield start, m.start()
        start = m.end()
    yield start, len(line)


def _place(span: WorkspaceSpan, trail: _Trail) -> str:
    where = trail.label()
    if span.locator.startswith("page="):
        page = f"page {span.locator.removeprefix('page=')}"
        return f"{page}, {where}" if where else page
    if span.locator.startswith("slide="):
        return f"slide {span.locator.removeprefix('slide=')}" + (f", {where}" if where else "")
    return where or span.locator


class _Collector:
    def __init__(self) -> None:
        self.facts: list[FactRow] = []
        self.counts: dict[FactKind, int] = {}

    def add(
        self,
        span: WorkspaceSpan,
        kind: FactKind,
        value: str,
        statement: str,
        *,
        entity: str | None = None,
        normalized: str | None = None,
        section: str = "",
        period: str | None = None,
    ) -> None:
        value = value.strip()
        if len(value) < 2 or value not in span.text:
            return
        if self.counts.get(kind, 0) >= MAX_PER_FILE.get(kind, 10_000):
            return
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.facts.append(
            FactRow(
                fact_id=fact_id(span.span_id, value, kind.value, period, entity, NAME),
                span_id=span.span_id,
                statement=f"{statement} ({span.path}, {span.locator})"[:600],
                value=value,
                value_num=None,
                unit=None,
                scale=1.0,
                entity=entity,
                metric=kind.value,
                period=period,
                extractor=NAME,
                kind=kind,
                normalized=normalized,
                section=section[:200],
            )
        )


def short_row(line: str, value: str) -> str:
    """The other cells of a table row that holds ``value``: what the date is for."""
    cells = [c.strip() for c in line.split("\t") if c.strip() and value not in c and not c.strip().isdigit()]
    return " ".join(cells)[:80]


def _title(out: _Collector, span: WorkspaceSpan, text: str, section: str) -> None:
    out.add(span, FactKind.METADATA, text, f"Title of the document is {text!r}", entity="title",
            normalized=normalise_text(text), section=section)


def _version(out: _Collector, span: WorkspaceSpan, mark: str, statement: str, section: str) -> None:
    out.add(span, FactKind.METADATA, mark, statement, entity="version", normalized=mark.lower(),
            section=section)


def _subject(sentence: str, at: int) -> str | None:
    words = re.findall(r"[A-Za-z][\w'-]*", sentence[:at])[-5:]
    text = " ".join(words).strip()
    return text or None


def prose_facts(spans: Sequence[WorkspaceSpan]) -> list[FactRow]:
    """Dates, requirements, definitions, list items and metadata of one file's text spans (in file order)."""
    out = _Collector()
    trail = _Trail([])
    title_done = False
    for n, span in enumerate(spans):
        lines = span.text.splitlines()
        for i, raw in enumerate(lines):
            line = raw.strip()
            if not line:
                continue
            if line.count("|") >= 2 and "\t" not in line:  # a markdown table row: cells as tab-separated
                if set(line) <= set("|-: "):
                    continue
                line = "\t".join(c.strip() for c in line.strip("|").split("|"))
            if not any(ch.isalnum() for ch in line):
                continue  # rules and underlines ("=====") are layout, not content
            if "\t" in line:  # a table row: its dates count (a schedule), its cells are not prose
                for found in find_dates(line):
                    cue = _DEADLINE.findall(line)
                    what = cue[0].lower() if cue else "date"
                    row = " | ".join(c.strip() for c in line.split("\t") if c.strip())
                    out.add(
                        span,
                        FactKind.DATE,
                        found.text,
                        f"{what.capitalize()} date {found.iso} ({row[:200]})",
                        entity=short_row(line, found.text) or what,
                        normalized=found.iso,
                        section=_place(span, trail),
                        period=found.iso[:4],
                    )
                continue
            heading = heading_of(line)
            if heading is not None:
                level, text = heading
                trail.push(level, text)
                if not title_done:
                    _title(out, span, text, _place(span, trail))
                    title_done = True
                if n < 2 and (v := _VERSION.search(text)):
                    mark = v.group("v")
                    _version(out, span, mark, f"Document version: {mark}", _place(span, trail))
                continue
            if not title_done and n == 0 and i < 3 and 3 <= len(line) <= 120 and not line.endswith("."):
                _title(out, span, line, _place(span, trail))
                title_done = True
            section = _place(span, trail)
            if n < 2 and (v := _VERSION.search(line)) and len(line) <= 160:
                mark = v.group("v")
                _version(out, span, mark, f"Document version: {mark} ({line[:80]})", section)
            bullet = _BULLET.match(raw)
            if bullet and trail.last():
                item = bullet.group("item").strip()
                out.add(
                    span,
                    FactKind.LIST_ITEM,
                    item,
                    f"{trail.last()!r} lists: {item}",
                    entity=trail.last(),
                    normalized=normalise_text(item),
                    section=section,
                )
            if (m := _DEFINES.match(line)) or (
                _GLOSSARY_SECTION.search(trail.label()) and (m := _GLOSSARY_LINE.match(line))
            ):
                term, text = m.group("term").strip(' *"'), m.group("text").strip()
                out.add(
                    span,
                    FactKind.DEFINITION,
                    text,
                    f"{term} means: {text}",
                    entity=term,
                    normalized=normalise_text(text),
                    section=section,
                )
            for start, end in _sentences(line):
                sentence = line[start:end].strip()
                if len(sentence) < 12:
                    continue
                modal = _MODAL.search(sentence)
                if modal and len(sentence) <= 400:
                    who = _subject(sentence, modal.start())
                    out.add(
                        span,
                        FactKind.REQUIREMENT,
                        sentence,
                        f"Requirement ({section}): {sentence}",
                        entity=who,
                        normalized=normalise_text(sentence),
                        section=section,
                    )
                for found in find_dates(sentence):
                    before = sentence[max(0, found.start - 80) : found.start]
                    cue = _DEADLINE.findall(before)
                    what = cue[-1].lower() if cue else "date"
                    subject = _subject(sentence, found.start) or what
                    out.add(
                        span,
                        FactKind.DATE,
                        found.text,
                        f"{what.capitalize()} date {found.iso} ({section}): {sentence[:200]}",
                        entity=subject,
                        normalized=found.iso,
                        section=section,
                        period=found.iso[:4],
                    )
    return out.facts


def table_facts(
    header: Sequence[str], rows: Sequence[tuple[WorkspaceSpan, Sequence[str], str]]
) -> list[FactRow]:
    """Definitions (data dictionaries) and statuses (trackers) of one table, keyed by the header.

    Args:
        rows: (span, cell texts aligned with ``header``, location of the row such as "Data!A7").
    """
    out = _Collector()
    names = [i for i, h in enumerate(header) if _NAME_HEADER.search(h or "")]
    descs = [i for i, h in enumerate(header) if _DESC_HEADER.search(h or "") and i not in names[:1]]
    statuses = [i for i, h in enumerate(header) if _STATUS_HEADER.search(h or "")]
    for span, cells, where in rows:

        def cell(i: int, cells: Sequence[str] = cells) -> str:
            return cells[i].strip() if i < len(cells) else ""

        key_col = (
            names[0]
            if names
            else next(
                (i for i, c in enumerate(cells) if c.strip() and not c.strip().replace(".", "").isdigit()),
                None,
            )
        )
        key = cell(key_col) if key_col is not None else ""
        if not key:
            continue
        if names and descs and len(cell(descs[0])) >= 8:
            text = cell(descs[0])
            out.add(
                span,
                FactKind.DEFINITION,
                text,
                f"{key} ({header[descs[0]]}): {text}",
                entity=key,
                normalized=normalise_text(text),
                section=where,
            )
        for s in statuses:
            value = cell(s)
            if value and s != key_col and len(value) <= 80:
                out.add(
                    span,
                    FactKind.STATUS,
                    value,
                    f"{header[s]} of {key} is {value!r}",
                    entity=key,
                    normalized=normalise_text(value) or value.lower(),
                    section=where,
                )
    return out.facts
