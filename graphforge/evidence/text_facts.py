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
from graphforge.figures.numbers import is_total_label, parse_figure
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
    FactKind.ATTRIBUTE: 300,
    FactKind.RECORD: 200,
}

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
# "3.2 Deliverables", "C.4 Scope of work", "Section 5: Reporting", "Article IV - Terms", "PART 2 - ..."
_NUMBERED_HEADING = re.compile(
    r"^\s*(?:(?:section|article|part|chapter)\s+)?(?P<num>(?:[A-Z]\.)?\d+(?:\.\d+){0,3}|[IVX]+)\.?[:)\s-]+"
    r"(?P<title>[A-Z][^.!?]{2,80})$",
    re.I,
)
_FOOTNOTE_TITLE = re.compile(r"[“”\"]|…|\bhttps?://|\bpp?\.\s*\d")
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
    r"\b(status|result|decision|outcome|resolution|pass/fail|disposition)\b", re.I
)
_NAME_COLUMN = re.compile(r"\b(name|title|entity|organi[sz]ation|company|account|program\w*|project|system|"
                          r"item|file|url|requirement|term)\b", re.I)
_COLUMN_NAME = re.compile(r"^(?![/-])(?=.*[A-Za-z0-9])[^:]*$")  # not "/path", "--" or a "Label:" cell
_CODE_COLUMN = re.compile(r"\b(code|id|number|no|fips|zip|phone|year)\b\.?", re.I)
# Columns that state an attribute of the row's key: who owns or runs it, what kind it is, how often.
_ATTRIBUTE_HEADER = re.compile(
    r"\b(owner|office|agency|bureau|department|division|role|responsib\w*|lead|contact|point of contact|poc|"
    r"type|kind|format|frequency|cadence|source|program\w*|classification|priority|level|location|state|"
    r"sector|system|vendor|contractor|recipient|assignee|assigned to|manager|method)\b",
    re.I,
)
_CODED = re.compile(r"^\s*q\d+", re.I)  # a questionnaire item's code leads the header
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to and or in on for by with at as is are be this that any all its their from "
    "shall must will may not".split()
)


_FILLERS = frozenset({
    "na", "n/a", "n.a", "-", "--", "---", "—", "–", "none", "null", "nil", "tbc", "tbd", "tba", "redacted",
    "withheld", "unknown", "?", "not applicable", "not available", "not known", "not specified", "no data",
})


def is_filler(text: str) -> bool:
    """A cell that stands for "no value" ("NA", "n/a", "--", "TBC", "not applicable"): never a name or key."""
    return text.strip().lower().rstrip(".") in _FILLERS or not text.strip()


_MD_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
_PLACEHOLDER_RE = re.compile(
    r"^[<\[{(]\s*(?:insert|enter|add|type|your|name of|tbd|tbc|placeholder|x{2,})\b[^>\]})]*[>\]})]$|^x{3,}$",
    re.I,
)


def placeholder_or_link(text: str) -> bool:
    """A template's placeholder ("<Insert Test Name>", "[Enter date]") or a bare link ("[Slides](url)",
    "**[June Newsletter](https://…)**"): navigation and blanks to fill, not items a document states."""
    stripped = text.strip().strip("*_`").strip()
    if _PLACEHOLDER_RE.match(stripped):
        return True
    bare = _MD_LINK_RE.sub("", stripped)
    return bool(_MD_LINK_RE.search(stripped)) and not re.search(r"[^\W_]", bare)


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
        # "## [F.7 Open Source Tools](https://...)": the heading is the link's words, not its markup.
        return len(m.group(1)), re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2)).strip("* ")
    m = _NUMBERED_HEADING.match(line)
    if m and len(line) <= 100 and not _MODAL.search(line) and not line.rstrip().endswith((",", ";")):
        num = m.group("num")
        # "2015 USEITI Executive Summary" opens with a year, and '7 Meeting, “Decisions,…' is a footnote
        # (a number, then a quotation, an ellipsis or a page reference): neither is a numbered section.
        title = m.group("title")
        if re.fullmatch(r"(?:19|20)\d{2}", num) or _FOOTNOTE_TITLE.search(title) or not title[0].isupper():
            return None  # "33 states produce oil, gas, or coal": a wrapped sentence opening with a count
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
        metric: str | None = None,
    ) -> None:
        value = value.strip()
        if len(value) < 2 or value not in span.text:
            return
        if self.counts.get(kind, 0) >= MAX_PER_FILE.get(kind, 10_000):
            return
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.facts.append(
            FactRow(
                fact_id=fact_id(span.span_id, value, metric or kind.value, period, entity, NAME),
                span_id=span.span_id,
                statement=f"{statement} ({span.path}, {span.locator})"[:600],
                value=value,
                value_num=None,
                unit=None,
                scale=1.0,
                entity=entity,
                metric=metric or kind.value,
                period=period,
                extractor=NAME,
                kind=kind,
                normalized=normalized,
                section=section[:200],
            )
        )


_MONTHS = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b|\d", re.I
)
_CLAUSE_DATE = re.compile(r"^\((?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC) \d{4}\)$")
_CITATION = re.compile(r"^\d{1,3}\s+\S|https?://|\bretrieved\b|\bavailable at\b", re.I)
_SENTENCE_END = re.compile(r"[.?!;](?=\s|$)")


def _obligation_items(lines: Sequence[str], i: int, most: int = 12) -> list[str]:
    """The list items that follow a lead-in on line ``i`` ("The contractor shall:"), up to the first line
    that is neither a bullet, its wrapped continuation nor blank."""
    items: list[str] = []
    for nxt in lines[i + 1 :]:
        if not nxt.strip():
            if items:
                break
            continue
        bullet = _BULLET.match(nxt)
        if bullet is None:
            if items and nxt.startswith((" ", "\t")):
                continue  # a wrapped item
            break
        items.append(bullet.group("item").strip())
        if len(items) >= most:
            break
    return items


def _continued(lines: Sequence[str], i: int, text: str, most: int = 3) -> str:
    """``text`` (the end of line ``i``) with the lines that continue it, verbatim as the span holds them
    (line breaks kept), up to the sentence end; a blank line, a bullet, a heading or a table row stops."""
    out = text
    for nxt in lines[i + 1 : i + 1 + most]:
        if _SENTENCE_END.search(out[-1:] or "") or not nxt.strip() or "\t" in nxt:
            break
        if _BULLET.match(nxt) or heading_of(nxt.strip()) is not None:
            break
        end = _SENTENCE_END.search(nxt)
        out += "\n" + (nxt[: end.end()] if end else nxt).rstrip()
        if end:
            break
    return out


_SUBHEADING = re.compile(r"^\s*(?:\d{1,2}|[a-z])[.)]\s+(?:\S+\s+){0,5}\S+\s*$")


def _continues_list(lines: Sequence[str], i: int) -> bool:
    """The next non-blank line after ``i`` is another item of the same list."""
    for nxt in lines[i + 1 :]:
        if nxt.strip():
            return bool(_BULLET.match(nxt))
    return False


def short_row(line: str, value: str) -> str:
    """The other cells of a table row that holds ``value``: what the date is for."""
    cells = [c.strip() for c in line.split("\t") if c.strip() and value not in c and not c.strip().isdigit()]
    text = " ".join(cells)
    return text if len(text) <= 80 else text[:79].rsplit(" ", 1)[0].rstrip(" ,;:-") + "…"  # whole words


_YAML_KEY = re.compile(r"^\s*title\s*:\s*[\"']?(?P<t>.+?)[\"']?\s*$", re.I)
_TRAILING_PAGE = re.compile(r"^(?P<t>.*\D)\s+\d{1,3}$")
_NOT_A_TITLE = re.compile(
    r"\{\{|\{%|^(?:dear|hi|hello)\b|^[A-Z]{2,}[A-Z0-9]*-\d+\b|^[$@]?[a-z_]+\s*:\s|[?:]$|https?://|www\.|"
    # a tool's time stamp ("Generated at: Tue Oct 31 2017 12:55", "Last updated: 2024-01-05")
    r"^(?:(?:last\s+)?(?:generated|created|printed|updated|modified|exported|downloaded|retrieved|run)"
    r"(?:\s+(?:at|on|by))?|date|time(?:stamp)?)\s*:\s", re.I
)  # placeholders, greetings, ids ("TCRW-01 Login"), keys ("$schema: ..."), questions, lead-ins and links
_DANGLING = re.compile(r"(?:,|\b(?:for|of|and|the|to|in|on|&))$", re.I)


def _begun(lines: Sequence[str], i: int, sentence: str) -> str:
    """``sentence`` (the start of line ``i``) with the start of its sentence on the line above, verbatim."""
    if i == 0 or not lines[i - 1].strip() or "\t" in lines[i - 1] or _BULLET.match(lines[i - 1]):
        return sentence
    above = lines[i - 1].rstrip()
    ends = list(_SENTENCE_END.finditer(above))
    tail = above[ends[-1].end() :].lstrip() if ends else above.lstrip()
    if not tail or ends and ends[-1].end() >= len(above) or heading_of(tail) is not None:
        return sentence
    return f"{tail}\n{lines[i][: len(lines[i]) - len(lines[i].lstrip())]}{sentence}"


def _continued_title(lines: Sequence[str], i: int, line: str) -> str:
    """A title broken over two lines ("... Department of Labor," / "Wage and Hour Division"), verbatim."""
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    joined = f"{line}\n{nxt}"
    if _DANGLING.search(line) and nxt and len(joined) <= 160 and joined in "\n".join(lines):
        return joined
    # A cover's title set in capitals over several lines ("SPRING 2019 SECTION 508" / "PROGRAM MATURITY" /
    # "REPORT: EXECUTIVE" / "SUMMARY"), up to the first line that is not in capitals (its date, a name).
    if _CAPITALS.fullmatch(line):
        block = [line]
        for more in lines[i + 1 : i + 6]:
            more = more.strip()
            if not more or not _CAPITALS.fullmatch(more) or len(" ".join([*block, more])) > 160:
                break
            block.append(more)
        if len(block) > 1 and "\n".join(block) in "\n".join(lines):
            return "\n".join(block)
    return line


_CAPITALS = re.compile(r"(?=.*[A-Z]{3})[A-Z0-9 ,:;&/()'’.-]+")
_DESCRIBED = re.compile(
    r"\b(?:what|which|whatever|how much|how)\s+(?:\w+\s+)?$"
    # "Indicates how each column header must appear": a description of a field, obliging no one (a reported
    # obligation, "indicates that X must", stays one)
    r"|\b(?:indicates?|describes?|explains?|denotes?|illustrates?|shows?)\s+(?:how|what|which|whether|if|the|a|an)"
    r"\b[^.;:!?]*$", re.I)


# A finite verb of a running sentence: a long first line that has one is the document's prose, not its title.
_PROSE_LINE = re.compile(r"\b(?:is|are|was|were|has|have|had|will|can|promotes?|provides?|describes?)\b\s+\w",
                         re.I)


def _title(out: _Collector, span: WorkspaceSpan, text: str, section: str) -> bool:
    """Record the document's title; False when ``text`` is no title (a template placeholder, a greeting,
    an id, a bare date) so the caller keeps looking."""
    if (m := _YAML_KEY.match(text)) and (m.group("t") in span.text):
        text = m.group("t")  # front matter: the value, not the key
    if (m := _TRAILING_PAGE.match(text)) and len(m.group("t").split()) >= 3:
        text = m.group("t").strip()  # a running header with its page number
    if _NOT_A_TITLE.search(text) or not re.search(r"[A-Za-z]{3}", re.sub(_MONTHS, "", text)):
        return False
    out.add(span, FactKind.METADATA, text, f"Title of the document is {text!r}", entity="title",
            normalized=normalise_text(text), section=section)
    return True


# An XML document states its own title and version in a metadata element ("title: ...", "version: 1.1");
# its root element's name and ids ("system-security-plan [uuid=...]") are no title.
_XML_FIELD = re.compile(r"^\s*(?P<k>(?:dc:)?title|version|doc-version|revision)\s*:\s*(?P<v>\S.*?)\s*$", re.I)


def _xml_metadata(out: _Collector, spans: Sequence[WorkspaceSpan]) -> bool:
    """The title (and version) an XML file states in its first elements' metadata; True when it has a title,
    and for any XML file (its root element is never taken for the title)."""
    xml = [s for s in spans[:4] if s.locator.startswith("element=")]
    if not xml:
        return False
    titled = versioned = False
    for span in xml:
        for line in span.text.splitlines():
            m = _XML_FIELD.match(line)
            if m is None:
                continue
            key, value = m.group("k").lower(), m.group("v")
            if key.endswith("title") and not titled:
                titled = _title(out, span, value, span.locator)
            elif not key.endswith("title") and not versioned:
                _version(out, span, value, f"Document version: {value}", span.locator)
                versioned = True
    return True


def _version(out: _Collector, span: WorkspaceSpan, mark: str, statement: str, section: str) -> None:
    out.add(span, FactKind.METADATA, mark, statement, entity="version", normalized=mark.lower(),
            section=section)


def _subject(sentence: str, at: int) -> str | None:
    words = re.findall(r"[A-Za-z][\w'-]*", sentence[:at])[-5:]
    text = " ".join(words).strip()
    return text or None


def _line_shape(line: str) -> str:
    """A line with its digits removed: a running header or footer keeps its shape from page to page."""
    return " ".join(re.sub(r"\d+", "#", line).split()).lower()


def running_lines(spans: Sequence[WorkspaceSpan]) -> frozenset[str]:
    """Shapes of the lines a file repeats on many pages (running headers and footers, "2015 USEITI
    Executive Summary — Extractive Revenue Appendix 7"): they are page furniture, never section titles."""
    pages = [s for s in spans if s.locator.startswith("page=")]
    if len(pages) < 3:
        return frozenset()
    seen: dict[str, int] = {}
    for page in pages:
        for shape in {_line_shape(ln) for ln in page.text.splitlines() if ln.strip()}:
            seen[shape] = seen.get(shape, 0) + 1
    least = max(3, len(pages) // 4)
    return frozenset(shape for shape, count in seen.items() if count >= least)


def prose_facts(spans: Sequence[WorkspaceSpan]) -> list[FactRow]:
    """Dates, requirements, definitions, list items and metadata of one file's text spans (in file order)."""
    out = _Collector()
    trail = _Trail([])
    title_done = False
    lead_in: str | None = None
    furniture = running_lines(spans)
    title_done = _xml_metadata(out, spans)
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
            if not title_done and n == 0 and i < 12 and (front := _YAML_KEY.match(line)):
                title_done = _title(out, span, front.group("t"), _place(span, trail))  # front matter's title
                continue
            heading = heading_of(line) if _line_shape(line) not in furniture else None
            if heading is not None:
                level, text = heading
                trail.push(level, text)
                if not title_done and level == 1:  # a section heading (## ...) is not the document's title
                    title_done = _title(out, span, text, _place(span, trail))
                if n < 2 and (v := _VERSION.search(text)):
                    mark = v.group("v")
                    _version(out, span, mark, f"Document version: {mark}", _place(span, trail))
                continue
            if (not title_done and n == 0 and i < 3 and 3 <= len(line) <= 120 and not line.endswith(".")
                    and not (_PROSE_LINE.search(line) and len(line.split()) >= 8)):
                # An unmarked first line is the title unless it runs as a sentence ("The Initiative, or
                # EITI, is a global standard that ..."): a marked heading is a title whatever its words.
                title_done = _title(out, span, _continued_title(lines, i, line), _place(span, trail))
            section = _place(span, trail)
            if (
                n < 2
                and (v := _VERSION.search(line))
                and len(line) <= 80
                and not re.search(r"\b(?:the|a|an|of)\s+$", line[: v.start()], re.I)
            ):  # a version mark on a title or header line; "the final report" in a sentence is prose
                mark = v.group("v")
                _version(out, span, mark, f"Document version: {mark} ({line[:80]})", section)
            bullet = _BULLET.match(raw)
            if bullet is None and line.endswith(":") and len(line) <= 200:
                lead_in = line.rstrip(":").strip()  # "The process included the following steps:"
            elif bullet is None:
                lead_in = None if not _BULLET.match(lines[i - 1] if i else "") else lead_in
            if bullet and _SUBHEADING.match(raw) and not _continues_list(lines, i):
                bullet = None  # "a. Sources of data" over a paragraph: a sub-heading, not a list item
            # A page's guessed heading is mostly its running header: a PDF list is named by its lead-in.
            heading_name = None if span.locator.startswith("page=") else trail.last()
            if bullet and (lead_in or heading_name) and not placeholder_or_link(bullet.group("item")):
                item = _continued(lines, i, bullet.group("item").strip())
                name = lead_in or heading_name
                out.add(
                    span,
                    FactKind.LIST_ITEM,
                    item,
                    f"{name!r} lists: {item}",
                    entity=name,
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
                if modal and start == 0 and sentence[:1].islower():
                    sentence = _begun(lines, i, sentence)  # it began on the line above: keep its subject
                    modal = _MODAL.search(sentence)
                if modal and end >= len(line) and not sentence.endswith((".", "?", "!", ";", ":")):
                    sentence = _continued(lines, i, sentence)  # wrapped at the page's line end
                if modal and _DESCRIBED.search(sentence[: modal.start()]):
                    modal = None  # "specify what must be paid" describes, it obliges no one
                if modal and len(sentence) <= 400:
                    who = _subject(sentence, modal.start())
                    # "A project must:" obliges nothing alone: the obligation is the lead-in with its items.
                    items = _obligation_items(lines, i) if sentence.endswith(":") else []
                    whole = f"{sentence} {'; '.join(items)}" if items else sentence
                    out.add(
                        span,
                        FactKind.REQUIREMENT,
                        sentence,
                        f"Requirement ({section}): {whole}",
                        entity=who,
                        normalized=normalise_text(whole),  # two versions differ where their items do
                        section=section,
                    )
                for found in find_dates(sentence):
                    around = sentence[max(0, found.start - 1) : found.end + 1]
                    if _CLAUSE_DATE.search(around) or _CITATION.search(line):
                        continue  # "(JAN 2017)" dates a clause's wording; a footnote cites a source
                    before = sentence[max(0, found.start - 30) : found.start]
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


def _cell_key(cell: str) -> str:
    """A record cell as compared across files: a figure by its value, text by its normalised words."""
    figure = parse_figure(cell)
    return f"{figure.number:g}" if figure is not None else normalise_text(cell) or cell.strip()


def table_facts(
    header: Sequence[str], rows: Sequence[tuple[WorkspaceSpan, Sequence[str], str]]
) -> list[FactRow]:
    """Definitions (data dictionaries), statuses (trackers), attributes and records of one table, keyed by
    the header.

    An attribute is a short text cell under a column that says what it is ("Owner", "Frequency", "Type"):
    "Owner of <key> is 'OCIO'". A record is the row itself, keyed by its first name-like cell, with every
    header and cell in its normalised value, so the same record in two files can be compared cell by cell.

    Args:
        rows: (span, cell texts aligned with ``header``, location of the row such as "Data!A7").
    """
    out = _Collector()
    names = [i for i, h in enumerate(header) if _NAME_HEADER.search(h or "")]
    # A data dictionary is a narrow table whose description column is not a survey answer ("q2 description").
    dictionary = sum(1 for h in header if h) <= 6
    descs = [
        i
        for i, h in enumerate(header)
        if dictionary and _DESC_HEADER.search(h or "") and i not in names[:1] and not _CODED.match(h or "")
    ]
    statuses = [i for i, h in enumerate(header) if _STATUS_HEADER.search(h or "")]
    attributes = [i for i, h in enumerate(header) if _ATTRIBUTE_HEADER.search(h or "") and i not in statuses
                  and i not in descs and len(h or "") <= 60]
    # Column names a record can be read by: words, not a label cell ("File/URL:"), a path ("/section/wioa")
    # or a filler ("--") standing where a header row should be.
    named = [i for i, h in enumerate(header) if _COLUMN_NAME.match((h or "").strip())]
    # A record is named by its most specific name column: "Account Name" after "Agency Name" and "Bureau
    # Name" in a budget export. A table without one (a production log keyed by year, product and county)
    # has rows, not named records: its "Category" or first cell names nothing, so it gives neither records
    # nor attributes. Codes and numbers never name one.
    titled = [i for i in named
              if _NAME_COLUMN.search(header[i]) and not _CODE_COLUMN.search(header[i])]
    # A column called "... name" names the row; among them the last is the most specific. Other name-like
    # headers ("Title", "Program ...") count only without one: a "Subfunction Title" or an "IT Accessibility
    # Program Office - Bracket" column after "Account Name" holds a category or a rating, not the row.
    called = [i for i in titled if re.search(r"\bname\b", header[i], re.I)]
    # A filler in the name column ("NA" for an unnamed officer) leaves the row to the next name-like column.
    titled = called[::-1] + [i for i in titled if i not in called]
    for span, cells, where in rows:

        def cell(i: int, cells: Sequence[str] = cells) -> str:
            return cells[i].strip() if i < len(cells) else ""

        key_col = (
            names[0]
            if names
            else next(
                (i for i, c in enumerate(cells)
                 if re.search(r"[^\W\d_]{2}", c) and not is_filler(c) and parse_figure(c) is None),
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
        record_col = next((i for i in titled if cell(i) and parse_figure(cell(i)) is None
                           and not is_total_label(cell(i)) and not is_filler(cell(i))), None)
        record = cell(record_col) if record_col is not None else ""
        if not record or parse_figure(record) is not None:
            record, record_col = "", None
        for a in attributes if record else ():
            value = cell(a)
            if a != record_col and 2 <= len(value) <= 80 and parse_figure(value) is None and value != record:
                out.add(
                    span,
                    FactKind.ATTRIBUTE,
                    value,
                    f"{header[a]} of {record} is {value!r}",
                    entity=record,
                    normalized=normalise_text(value) or value.lower(),
                    section=where,
                    metric=normalise_text(header[a])[:80] or None,
                )
        filled = [(header[i], cell(i)) for i in named if cell(i)]
        if record and len(named) >= 2 and len(filled) >= 2 and len(record) <= 120:
            out.add(
                span,
                FactKind.RECORD,
                record,
                f"Record {record!r}: " + "; ".join(f"{h}: {c[:60]}" for h, c in filled[:8]),
                entity=record,
                normalized=" | ".join(f"{normalise_text(h)}={_cell_key(c)}" for h, c in filled),
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
