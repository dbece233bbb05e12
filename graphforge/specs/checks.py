"""Deterministic spec checks: recompute a VALUE criterion from its anchors, find leaks in the agent's view."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from graphforge.figures.formula import compute
from graphforge.figures.numbers import parse_value
from graphforge.models.spec import AgentView, CriterionKind, Polarity, TaskSpec
from graphforge.models.workspace import FileRole


def recompute(computation: str, anchor_numbers: Sequence[float]) -> float:
    """The expected value a computation yields from the anchors' numbers (value text x scale, in order)."""
    value = compute(computation, anchor_numbers)
    if value is None:
        raise ValueError(
            f"computation {computation!r} is unknown or undefined for {len(anchor_numbers)} anchors"
        )
    return value


def anchor_number(value_text: str, scale: float) -> float:
    """The number an anchor's value text states, in full units."""
    number = parse_value(value_text)
    if number is None:
        raise ValueError(f"{value_text!r} is not a number")
    return number * scale


def number_forms(x: float) -> set[str]:
    """Ways a number may be printed, for leak searches: 9115, 9,115, 9115.0, 9,115.00, 0.082, 8.2%."""
    forms = {f"{x:.0f}", f"{x:,.0f}"} if abs(x - round(x)) < 1e-9 else set()
    forms |= {f"{x:g}", f"{x:.2f}", f"{x:,.2f}"}
    if abs(x) < 10 and x != round(x):
        forms |= {f"{100 * x:.1f}%", f"{100 * x:.2f}%", f"{x:.3f}", f"{x:.4f}"}
    return {f for f in forms if len(f.strip("-0.,%")) >= 2}


# Words that name what only the judge may know: the hidden file roles and the rubric's own vocabulary.
ROLE_WORDS = tuple(r.value for r in FileRole)
JUDGE_WORDS = ("criterion", "criteria", "anchor", "anchored", "rubric", "expected_value", "expected value",
               "verification")
# Neighbours that say nothing about what a word means in the documents: "the core file" stays a leak even in
# a workspace whose documents speak of "the core" of something.
_PLAIN_WORDS = frozenset(
    "a an the this that these those each every any all some of in on for to from by with as at is are be was "
    "were and or not no it its their our your my one ones which what who file files document documents doc "
    "docs source sources sheet sheets workbook table data folder copy version".split()
) | frozenset(w for x in ROLE_WORDS + JUDGE_WORDS for w in x.split())
_QUOTED = re.compile(r"'([^'\n]{3,200})'|\"([^\"\n]{3,200})\"|‘([^’\n]{3,200})’|“([^”\n]{3,200})”")
_TOKEN = re.compile(r"[a-z0-9_%]+")


def _norm(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


class DocumentText:
    """The workspace's own words (span texts, headings, labels), for telling a word the documents use from a
    word that names a hidden role or criterion. Build it once per workspace; lookups are set and substring
    searches over the normalised text."""

    def __init__(self, texts: Iterable[str]) -> None:
        parts = [_norm(t) for t in texts if t]
        self.text = " | ".join(p for p in parts if p)
        self.bigrams = {pair for p in parts for pair in zip(p.split(), p.split()[1:], strict=False)}

    def has_phrase(self, phrase: str) -> bool:
        norm = _norm(phrase)
        return bool(norm) and f" {norm} " in f" {self.text} "


@dataclass(frozen=True)
class Leak:
    """One piece of hidden information found in text an agent sees."""

    kind: str  # "role word", "word", "fact id", "fact id pattern", "expected value", "expected text"
    what: str
    criterion_id: str | None = None

    def __str__(self) -> str:
        if self.kind == "fact id pattern":
            return "a fact id pattern"
        what = repr(self.what) if self.kind in ("role word", "word", "expected text") else self.what
        return f"{self.criterion_id + ' ' if self.criterion_id else ''}{self.kind} {what}"


def _cited_spans(text: str, files: Iterable[str]) -> list[tuple[int, int]]:
    """Where the text cites a workspace file: its path, its file name, or a title-like stem of two words or
    more ("Supporting Schedules 2024")."""
    names: set[str] = set()
    for path in files:
        name = PurePosixPath(path).name
        names |= {path, name}
        stem = PurePosixPath(name).stem
        if len(_TOKEN.findall(stem.lower())) >= 2:
            names.add(stem)
    spans: list[tuple[int, int]] = []
    for name in sorted(names, key=len, reverse=True):
        for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text, flags=re.I):
            if not any(s <= m.start() < e for s, e in spans):
                spans.append((m.start(), m.end()))
    return spans


def _without_cited_files(text: str, files: Iterable[str]) -> str:
    """The text with the workspace file names it cites blanked out, so their words are not the writer's."""
    for start, end in _cited_spans(text, files):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def redact_word(text: str, word: str, files: Iterable[str] = ()) -> str:
    """``text`` without ``word`` (and the spaces after it), except inside the workspace file names cited."""
    spans = _cited_spans(text, files)
    return re.sub(rf"\b{re.escape(word)}\b\s*",
                  lambda m: m.group(0) if any(s <= m.start() < e for s, e in spans) else "", text, flags=re.I)


def _documents_say(text: str, start: int, end: int, words: DocumentText) -> bool:
    """True when the word at text[start:end] is the documents' own: inside a quoted phrase of two words or
    more that the documents contain, or next to a content word it stands beside in the documents."""
    for q in _QUOTED.finditer(text):
        if q.start() < start and end < q.end():
            phrase = next(g for g in q.groups() if g is not None).strip(" .…")
            if len(_TOKEN.findall(phrase.lower())) >= 2 and words.has_phrase(phrase):
                return True
    before = _TOKEN.findall(text[:start].lower())[-1:]
    after = _TOKEN.findall(text[end:].lower())[:1]
    word = _norm(text[start:end])
    first, last = word.split()[0], word.split()[-1]
    return any(n not in _PLAIN_WORDS and pair in words.bigrams
               for n, pair in [*[(b, (b, first)) for b in before], *[(a, (last, a)) for a in after]])


def find_leaks(
    text: str,
    spec: TaskSpec,
    *,
    files: Iterable[str] = (),
    fact_ids: Iterable[str] = (),
    searched: str | None = None,
    documents: DocumentText | None = None,
    recomputed: Mapping[str, float] | None = None,
) -> list[Leak]:
    """The one leak checker: hidden roles, rubric vocabulary, fact ids, anchors and expected values in
    ``text`` (what the compiler or reviser wrote: a statement, deliverable names).

    Words inside the workspace file names the text cites are not the writer's ("core-inflation-2024.csv",
    "Supporting Schedules 2024.pdf"); with ``documents``, a word the documents themselves use in that place
    (a quoted heading "Eligibility criteria", "core inflation") is not either. "The core file", "the
    confuser" or "each criterion" are leaks whatever the documents say.

    Args:
        files: workspace-relative paths the agent sees.
        fact_ids: ids to look for besides the criteria's anchors.
        searched: where ids are searched (default ``text``; the whole agent view for the compiler).
        documents: the workspace's own text, when the caller has it.
        recomputed: criterion id -> the value its anchors recompute to (searched as well).
    """
    files = list(files)
    own = _without_cited_files(text, files)
    found: list[Leak] = []
    for kind, vocabulary in (("role word", ROLE_WORDS), ("word", JUDGE_WORDS)):
        for word in vocabulary:
            hits = [m for m in re.finditer(rf"\b{re.escape(word)}\b", own, re.I)
                    if documents is None or not _documents_say(own, m.start(), m.end(), documents)]
            if hits:
                found.append(Leak(kind, word))
    ids = set(fact_ids) | {a for c in spec.criteria for a in c.anchors}
    where = text if searched is None else searched
    found += [Leak("fact id", i) for i in sorted(ids) if i and i in where]
    if re.search(r"\bfact-[0-9a-f]{8,}", where):
        found.append(Leak("fact id pattern", ""))
    for c in spec.criteria:
        if c.polarity is not Polarity.POSITIVE and c.check == "stale":
            continue  # a stale value sits in the workspace files; naming it is not a leak
        values = {v for v in (c.expected_value, (recomputed or {}).get(c.criterion_id)) if v is not None}
        forms = sorted({f for v in values for f in number_forms(v)})
        found += [Leak("expected value", f, c.criterion_id) for f in forms
                  if re.search(rf"(?<![\w.,]){re.escape(f)}(?![\w]|[.,]\d)", own)]
        visible = c.expected is not None and any(c.expected.lower() in f.lower() for f in files)
        if (
            c.expected
            and not visible
            and c.kind is CriterionKind.VALUE
            and len(c.expected.strip("-0.,%")) >= 2
            and re.search(rf"(?<![\w.,]){re.escape(c.expected)}(?![\w]|[.,]\d)", own, re.I)
        ):
            found.append(Leak("expected text", c.expected, c.criterion_id))
    return found


def leaks(view: AgentView, spec: TaskSpec, fact_ids: Iterable[str] = (),
          documents: DocumentText | None = None) -> list[str]:
    """Hidden things found in the agent's view: roles, fact ids, anchors, expected values. Empty is good.

    What the compiler wrote (the statement and the deliverable names) is searched, without the workspace file
    names it cites; ids are searched in the whole view. See :func:`find_leaks`.
    """
    text = "\n".join([view.statement, *view.deliverables])
    return [str(x) for x in find_leaks(text, spec, files=view.files, fact_ids=fact_ids,
                                       searched=view.model_dump_json(), documents=documents)]


def spec_problems(
    spec: TaskSpec, fact_values: Mapping[str, tuple[str, float, str]] | None = None
) -> list[str]:
    """Structural problems of a spec (empty when sound).

    Args:
        fact_values: fact_id -> (value text, scale, span text); when given, every anchor must be recoverable
            from its span and every VALUE criterion's expected value must recompute from its anchors.
    """
    problems: list[str] = []
    names = {d.name for d in spec.deliverables}
    for d in spec.deliverables:
        if d.name not in spec.statement:
            problems.append(f"statement does not name deliverable {d.name}")
        for cell in d.required_formulas:
            if cell.split("!")[0] not in d.required_sheets:
                problems.append(f"{d.name}: formula cell {cell} is on no required sheet")
    for c in spec.criteria:
        if c.target_deliverable not in names:
            problems.append(f"{c.criterion_id} targets unknown deliverable {c.target_deliverable}")
        if c.polarity is Polarity.POSITIVE and not c.anchors:
            problems.append(f"{c.criterion_id} is positive and has no anchor")
        if fact_values is None:
            continue
        for a in c.anchors:
            if a not in fact_values:
                problems.append(f"{c.criterion_id}: anchor {a} is not a known fact")
            elif fact_values[a][0] not in fact_values[a][2]:
                problems.append(f"{c.criterion_id}: anchor {a} value not found in its span")
        if (
            c.kind is CriterionKind.VALUE
            and c.polarity is Polarity.POSITIVE
            and c.computation
            and c.expected_value is not None
            and all(a in fact_values for a in c.anchors)
        ):
            try:
                numbers = [anchor_number(fact_values[a][0], fact_values[a][1]) for a in c.anchors]
                got = recompute(c.computation, numbers)
            except ValueError as exc:
                problems.append(f"{c.criterion_id} ({c.check or c.kind.value}): {exc}")
                continue
            if abs(got - c.expected_value) > 1e-6 * max(1.0, abs(got)):
                problems.append(f"{c.criterion_id}: expected {c.expected_value} but anchors give {got}")
    return problems
