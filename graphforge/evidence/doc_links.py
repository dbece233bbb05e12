"""Links that real documents have beyond one shared figure: versions, citations, restated requirements, dates,
definitions and statuses. Every edge records why it was made (``note``).

All matching is by hash keys (dicts of normalised text), so the cost grows linearly with facts and spans:
- ``supersedes``: two files that are versions of one document (same name once dates, "draft"/"final",
  "as issued"/"amended" and version marks are removed), newer -> older;
- ``reference``: a span that names another file of the workspace (file name or stem) or its title;
- ``compare`` / ``reconcile``: the same requirement, definition, list item, status, attribute or record key
  in two files, equal or restated differently; the same sentence carrying a different date (a moved
  deadline) reconciles;
- ``interpret``: a dictionary definition of a term that names a column or measure used in another file.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.text_facts import normalise_text
from graphforge.figures.dates import find_dates
from graphforge.figures.numbers import metric_key
from graphforge.models.evidence import DependencyKind, DependsOnRow, FactKind, FactRow

_VERSION_WORDS = re.compile(
    r"(?:^|[\s_.-])(draft|final|fnl|vfnl|as[\s_-]?issued|amended|amendment|revised|rev\d*|v\d+(?:\.\d+)*|"
    r"copy|updated?|old|new|latest|current)(?=$|[\s_.-])",
    re.I,
)
_DATE_IN_NAME = re.compile(r"(?:19|20)\d{2}[-_]?\d{2}[-_]?\d{2}|(?:19|20)\d{2}")
# Words that say how a schedule entry changed or when it is due, not what it is for.
_AMEND_WORDS = frozenset(
    "original extended revised new updated amended initial final draft pm am est edt due "
    "deadline date dates no later than".split()
)
_LATER_WORDS = {
    "final": 3,
    "fnl": 3,
    "vfnl": 3,
    "amended": 2,
    "amendment": 2,
    "revised": 2,
    "updated": 2,
    "update": 2,
    "latest": 3,
    "current": 3,
    "new": 2,
}
_EARLIER_WORDS = {"draft": -2, "as issued": -1, "asissued": -1, "as-issued": -1, "as_issued": -1, "old": -2}


def version_stem(path: str) -> str:
    """A file's name with its version marks removed: what two versions of one document share."""
    stem = PurePosixPath(path).stem.lower()
    stem = _DATE_IN_NAME.sub(" ", stem)
    stem = _VERSION_WORDS.sub(" ", stem)
    return " ".join(re.findall(r"[a-z0-9]+", stem))


def version_rank(path: str, title_marks: str = "") -> tuple[int, tuple[int, ...], str, str]:
    """Sort key of a version: its marks first (draft < as issued < bare < amended < final), then its release
    number (v2.10 > v2.9), then the newest date anywhere in its path (file name or folder: fy2016 < fy2017),
    then the path."""
    name = PurePosixPath(path).name.lower()
    digits = [re.sub(r"\D", "", d) for d in _DATE_IN_NAME.findall(path.lower())]
    date = max(digits, default="")
    words = [
        w.lower().replace(" ", "").replace("_", "").replace("-", "")
        for w in _VERSION_WORDS.findall(name + " " + title_marks)
    ]
    score = sum(_LATER_WORDS.get(w, 0) + _EARLIER_WORDS.get(w, 0) for w in words)
    if "draft" in name and "draft" not in words:  # "14cDraftPWS": a draft however it is glued in
        score -= 2
    # A bare name next to a dated or "as issued" sibling is the live copy (RFQ.md beside RFQ_as-issued.md).
    if not words and not _DATE_IN_NAME.search(name):
        score += 1
    # Release numbers compare as numbers (v10 after v9), before dates: "v4.4-provisional-2025" > "v4.3-2024".
    release = max((tuple(int(x) for x in m.split(".")) for m in re.findall(r"(?<![a-z0-9])v(\d+(?:\.\d+)*)",
                                                                         path.lower())), default=())
    return (score, release, date, path)


def version_folder(path: str) -> str:
    """The folder of a file with years and version marks removed: fy2016/ and fy2017/ hold versions."""
    parent = str(PurePosixPath(path).parent).lower()
    return " ".join(re.findall(r"[a-z]+", _VERSION_WORDS.sub(" ", _DATE_IN_NAME.sub(" ", parent))))


# Data files of one name hold the same table at another date; a prose document needs more than a name to be
# another version of one document (monthly newsletters and meeting records share names and templates).
_TABULAR = frozenset({".csv", ".tsv", ".xlsx", ".xlsm", ".xls", ".json", ".xml", ".parquet"})
_MARKED = re.compile(
    r"(?:^|[^a-z0-9])(?:v\d+(?:\.\d+)*|draft|final|fnl|amend\w*|revis\w*|rev\d+|as[\s_-]?issued)(?=$|[^a-z])",
    re.I,
)
# Share of the shorter document's distinct lines that the other restates, below which two prose documents
# named alike (only their dates differ) are a series, not versions. The corpus's dated page snapshots
# restate 0.35-1.0 of their lines; monthly newsletters and separate meetings' records 0.05-0.28.
MIN_RESTATED = 0.3
_TEMPLATE = re.compile(r"templ", re.I)


class _LinesOf:
    """Each file's distinct normalised lines, computed once per file and only when asked."""

    def __init__(self, spans: Sequence[WorkspaceSpan]) -> None:
        self._spans: dict[str, list[str]] = defaultdict(list)
        for s in spans:
            self._spans[s.path].append(s.text)
        self._cache: dict[str, set[str]] = {}

    def __call__(self, path: str) -> set[str]:
        if path not in self._cache:
            self._cache[path] = {
                n for text in self._spans.get(path, ()) for ln in text.splitlines()
                if len(n := normalise_text(ln)) > 3
            }
        return self._cache[path]


_YEAR = re.compile(r"(?<![0-9])(?:fy[-_ ]?)?(?:19|20)[0-9]{2}(?![0-9])", re.I)  # a year, not a date


def _revision_evidence(older: str, newer: str, marks: dict[str, str], lines_of: _LinesOf) -> str | None:
    """Why two files named alike are versions of one document, or None when they are not: files at
    different folder depths are different documents (a folder's README and a release's README); version
    marks (v2, draft, final, amended) or a data table of one name are enough; prose documents whose names
    differ only by a year are editions of a yearly series, never versions; those whose names differ only by
    a date must restate a good share of each other's lines (a newsletter series does not); a
    template is never a version of a document made from it."""
    a, b = PurePosixPath(older), PurePosixPath(newer)
    if len(a.parts) != len(b.parts):
        return None
    if (_TEMPLATE.search(a.name) is None) != (_TEMPLATE.search(b.name) is None):
        return None  # a template and a document made from it are two documents, neither replaces the other
    if _MARKED.search(older) or _MARKED.search(newer) or marks.get(older, "").strip() or marks.get(
            newer, "").strip():
        return "version marks"
    if a.suffix.lower() in _TABULAR and b.suffix.lower() in _TABULAR:
        return "the same data file at a later date"
    if _YEAR.sub("#", older) == _YEAR.sub("#", newer):
        return None  # '2023-executive-summary' and '2024-...': two editions of a yearly report, both stand
    la, lb = lines_of(older), lines_of(newer)
    shared = len(la & lb) / max(1, min(len(la), len(lb)))
    if shared < MIN_RESTATED:
        return None
    return f"{shared:.0%} of the shorter one's lines restated"


def _first_fact_per_file(facts: Sequence[FactRow], path_of: dict[str, str]) -> dict[str, FactRow]:
    """Each file's representative fact: its title metadata when there is one, else its first fact."""
    out: dict[str, FactRow] = {}
    for f in facts:
        path = path_of.get(f.span_id)
        if path is None:
            continue
        best = out.get(path)
        if best is None or (
            f.kind is FactKind.METADATA
            and f.entity == "title"
            and not (best.kind is FactKind.METADATA and best.entity == "title")
        ):
            out[path] = f
    return out


def _row_key(f: FactRow) -> str:
    """What names a record (its key) or an attribute (its key and column) across files."""
    key = metric_key(f.entity or "")
    return key if f.kind is FactKind.RECORD else f"{key} / {f.metric}"


_WORD = re.compile(r"\w")


def _names_elsewhere(text: str, start: int, end: int, target: str) -> bool:
    """Whether the name matched at ``text[start:end]`` is not the workspace file ``target``: part of a longer
    word ("readme" in "readmes"), or a segment of a web address or of a path that leads elsewhere
    (".../Proposal_Resources/readme.html", "./docs/Area1/readme.md" for a file at the folder's root)."""
    if (start and _WORD.match(text[start - 1])) or (end < len(text) and _WORD.match(text[end])):
        return True
    left = max(text.rfind(c, 0, start) for c in " \t\n(<[\"'")
    right = min([i for c in " \t\n)>]\"'" if (i := text.find(c, end)) >= 0] or [len(text)])
    token = text[left + 1:right]
    if "://" in token or token.startswith("www."):
        return True
    if "/" not in token[: start - left - 1]:
        return text[end:right].startswith((".htm", ".php", ".asp"))  # a web page of the same name
    # a relative path: it names the target only when it ends with the target's own folders
    wanted = target.lower().replace("_", " ")
    return not (token.lstrip("./").endswith(wanted) or wanted.endswith(token.lstrip("./")))


def _edge(src: FactRow, dst: FactRow, kind: DependencyKind, note: str) -> DependsOnRow:
    return DependsOnRow(src_fact_id=src.fact_id, dst_fact_id=dst.fact_id, kind=kind, note=note[:300])



_REVISED = 0.6  # share of content words two wordings of one item have in common (Jaccard), at least


def _revised_items(facts: Sequence[FactRow], path_of: dict[str, str], newer_of: dict[str, str],
                   linked: Iterable[DependsOnRow]) -> list[DependsOnRow]:
    """Reconcile edges for items a later version rewords: in two versions of one document, a requirement
    or list item of the newer that no item of the older states alike is paired with the older's item whose
    content words mostly agree (at least ``_REVISED``), when each is the other's best match ("a research
    proposal selected ... through any previous SMD solicitation" -> "an existing research proposal selected
    ... by SMD"). Items with the same words in another order are the same item, not a revision."""
    already = {f for e in linked if e.kind in (DependencyKind.COMPARE, DependencyKind.RECONCILE)
               for f in (e.src_fact_id, e.dst_fact_id)}
    per: dict[tuple[str, FactKind], list[tuple[FactRow, frozenset[str]]]] = defaultdict(list)
    for f in facts:
        if f.kind in (FactKind.REQUIREMENT, FactKind.LIST_ITEM) and f.fact_id not in already:
            words = frozenset((f.normalized or "").split())
            if len(words) >= 5 and f.span_id in path_of:
                per[(path_of[f.span_id], f.kind)].append((f, words))

    def best(of: frozenset[str], among: list[tuple[FactRow, frozenset[str]]]) -> tuple[float, str]:
        return max(((len(of & w) / len(of | w), f.fact_id) for f, w in among), default=(0.0, ""))

    out = []
    for older, newer in sorted(newer_of.items()):
        for kind in (FactKind.REQUIREMENT, FactKind.LIST_ITEM):
            olds, news = per.get((older, kind), []), per.get((newer, kind), [])
            by_id = {f.fact_id: (f, w) for f, w in olds}
            for n, words in news:
                score, old_id = best(words, olds)
                if not old_id or score < _REVISED or words == by_id[old_id][1]:
                    continue
                o, old_words = by_id[old_id]
                if best(old_words, news)[1] != n.fact_id:
                    continue
                note = (f"{newer} revises a {kind.value} of {older} ({score:.2f} of its content words "
                        f"alike): {n.value[:80]!r} vs {o.value[:80]!r}")
                out.append(_edge(n, o, DependencyKind.RECONCILE, note))
    return out


def document_edges(facts: Sequence[FactRow], spans: Sequence[WorkspaceSpan]) -> list[DependsOnRow]:
    """supersedes, reference, compare/reconcile of non-numeric facts and interpret edges (linear)."""
    by_span = {s.span_id: s for s in spans}
    path_of = {s.span_id: s.path for s in spans}
    heads = _first_fact_per_file(facts, path_of)
    edges: dict[tuple[str, str, str], DependsOnRow] = {}

    def put(e: DependsOnRow) -> None:
        if e.src_fact_id != e.dst_fact_id:
            edges.setdefault((e.src_fact_id, e.dst_fact_id, e.kind.value), e)

    # versions ---------------------------------------------------------------------------------------
    marks: dict[str, str] = defaultdict(str)
    for f in facts:
        if f.kind is FactKind.METADATA and f.entity == "version" and f.span_id in path_of:
            marks[path_of[f.span_id]] += " " + f.value
    families: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in heads:
        stem = version_stem(path)
        if stem:
            families[(PurePosixPath(path).suffix.lower(), f"{version_folder(path)}/{stem}")].append(path)
    # Two files of one folder with the same title are versions too (DraftPWS.md and PWS.md).
    titled: dict[str, list[str]] = defaultdict(list)
    for path, head in heads.items():
        title = (
            normalise_text(head.value) if head.kind is FactKind.METADATA and head.entity == "title" else ""
        )
        if len(title.split()) >= 3:
            titled[f"{version_folder(path)}/{' '.join(title.split()[:4])}"].append(path)
    for key, paths in titled.items():
        # Same title is not enough (a solicitation's parts share the project's name): the names must share
        # a word too ("DraftPWS" and "PWS").
        for first, second in zip(sorted(paths), sorted(paths)[1:], strict=False):
            wa, wb = set(version_stem(first).split()), set(version_stem(second).split())
            if any(x == y or (len(y) >= 3 and y in x) or (len(x) >= 3 and x in y) for x in wa for y in wb):
                families[("title", key)] += [first, second]
    newer_of: dict[str, str] = {}
    lines_of = _LinesOf(spans)
    for (_, stem), paths in families.items():
        if len(paths) < 2 or len(paths) > 6:  # six "versions" of one name are a series, not revisions
            continue
        ordered = sorted(set(paths), key=lambda p: version_rank(p, marks[p]))
        for older, newer in zip(ordered, ordered[1:], strict=False):
            why = _revision_evidence(older, newer, marks, lines_of)
            if why is None:
                continue
            newer_of[older] = newer
            put(
                _edge(
                    heads[newer],
                    heads[older],
                    DependencyKind.SUPERSEDES,
                    f"{newer} is a later version of {older} (same document name '{stem}'; {why})",
                )
            )

    # references: one pass of one alternation over the text ---------------------------------------------
    # A name two files share ("readme.md" in three folders) names neither: it is no key.
    holders: dict[str, set[str]] = defaultdict(set)
    for path in heads:
        p = PurePosixPath(path)
        for key in {p.name.lower(), p.stem.lower().replace("_", " ")}:
            if len(key) >= 6:
                holders[key].add(path)
    for f in heads.values():
        if f.kind is FactKind.METADATA and f.entity == "title" and len(f.value.split()) >= 4:
            holders[f.value.lower()].add(path_of[f.span_id])
    names = {key: next(iter(paths)) for key, paths in holders.items() if len(paths) == 1}
    if names:
        pattern = re.compile("|".join(re.escape(k) for k in sorted(names, key=len, reverse=True)))
        first_in_span: dict[str, FactRow] = {}
        for f in facts:
            first_in_span.setdefault(f.span_id, f)
        for span in spans:
            lowered = span.text.lower().replace("_", " ") if "_" in span.text else span.text.lower()
            for m in pattern.finditer(lowered):
                target = names.get(m.group(0))
                if target is None or target == span.path or target not in heads:
                    continue
                if _names_elsewhere(lowered, m.start(), m.end(), target):
                    continue
                src = first_in_span.get(span.span_id) or heads.get(span.path)
                if src is not None:
                    put(
                        _edge(
                            src,
                            heads[target],
                            DependencyKind.REFERENCE,
                            f"{span.path} ({span.locator}) names {target}",
                        )
                    )

    # the same requirement / definition / list item / status in two files -----------------------------
    keyed: dict[tuple[str, str], dict[str, FactRow]] = defaultdict(dict)
    # A record or attribute links two files only when its key names one row in each: "Legislative Branch"
    # heads hundreds of budget rows, and pairing two of them says nothing.
    row_keys = {f.fact_id: (path_of[f.span_id], f.kind.value, _row_key(f)) for f in facts
                if f.kind in (FactKind.RECORD, FactKind.ATTRIBUTE) and f.entity and f.span_id in path_of}
    rows_per_key = Counter(row_keys.values())
    for f in facts:
        at = path_of.get(f.span_id)
        if at is None:
            continue
        path = at
        if f.kind in (FactKind.REQUIREMENT, FactKind.LIST_ITEM):
            words = (f.normalized or "").split()
            if len(words) >= 4:
                keyed[(f.kind.value, " ".join(words[:8]))].setdefault(path, f)
        elif f.kind in (FactKind.DEFINITION, FactKind.STATUS) and f.entity:
            keyed[(f.kind.value, metric_key(f.entity))].setdefault(path, f)
        elif f.fact_id in row_keys:
            if rows_per_key[row_keys[f.fact_id]] == 1:
                keyed[row_keys[f.fact_id][1:]].setdefault(path, f)
        elif f.kind is FactKind.DATE and f.span_id in by_span:
            line = next((ln for ln in by_span[f.span_id].text.splitlines() if f.value in ln), "")
            for found in find_dates(line):  # every date on the line, so "moved from X to Y" keeps one key
                line = line.replace(found.text, " ")
            words = sorted(
                {w for w in normalise_text(line).split() if not w.isdigit() and w not in _AMEND_WORDS}
            )
            if len(words) >= 2:
                # The last statement of a schedule wins: "extended deadline" rows follow "original" ones.
                keyed[("date", " ".join(words))][path] = f
    for (kind, _key), per_file in keyed.items():
        if len(per_file) < 2:
            continue
        by_path = sorted(per_file.items())
        for (path_a, fa), (path_b, fb) in zip(by_path, by_path[1:], strict=False):
            same = (fa.normalized or fa.value) == (fb.normalized or fb.value)
            dep = DependencyKind.COMPARE if same else DependencyKind.RECONCILE
            verb = "states the same" if same else "states differently the same"
            later, earlier = (fb, fa) if newer_of.get(path_a) == path_b or path_b > path_a else (fa, fb)
            put(
                _edge(
                    later, earlier, dep,
                    f"{path_b} {verb} {kind} as {path_a}: {fb.value[:80]!r} vs {fa.value[:80]!r}",
                )
            )

    for e in _revised_items(facts, path_of, newer_of, edges.values()):
        put(e)

    # interpret: a definition naming a measure or a status key used in another file ---------------------
    defined: dict[str, FactRow] = {}
    for f in facts:
        if f.kind is FactKind.DEFINITION and f.entity:
            defined.setdefault(metric_key(f.entity), f)
    seen: set[tuple[str, str]] = set()
    for f in facts:
        if f.kind not in (FactKind.QUANTITY, FactKind.STATUS):
            continue
        key = metric_key(f.metric or "") if f.kind is FactKind.QUANTITY else metric_key(f.entity or "")
        d = defined.get(key)
        if d is None or path_of.get(d.span_id) == path_of.get(f.span_id):
            continue
        pair = (d.fact_id, path_of.get(f.span_id, ""))
        if pair in seen:
            continue
        seen.add(pair)
        put(
            _edge(
                d,
                f,
                DependencyKind.INTERPRET,
                f"{path_of.get(d.span_id)} defines {d.entity!r}, used in {path_of.get(f.span_id)}",
            )
        )
    return sorted(edges.values(), key=lambda e: (e.kind, e.src_fact_id, e.dst_fact_id))
