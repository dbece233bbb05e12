"""What every family uses: ids, fact selection, criteria by check kind, and a request-style statement."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from graphforge.models.base import stable_hash
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)
from graphforge.specs.templates import NEGATIVE_SHARE, TRUSTED, GraphFact, WorkspaceGraph

COMPILER = "family"
# Weights against admission at Q > 0.90, for items I: citations weigh CITES_SHARE * I and the declared layout
# LAYOUT_SHARE * I (Q's denominator 5/3 I), so every item cited wrong or invented costs 0.2 of Q, a layout
# other than the one asked for up to 0.2, and one wrong item of six 0.133 (its weight and its citation's
# share): none of them is admitted.
CITES_SHARE = 1 / 3  # a cites criterion: this share of the items whose sources it checks
LAYOUT_SHARE = 1 / 3  # all the parts a deliverable declares (sheets, sections, slides, columns, keys)
MIN_LAYOUT_WEIGHT = 0.25


def trusted(fact: GraphFact) -> bool:
    """The spec may take a value from this fact: its file role is core, supporting or unset."""
    return fact.role in TRUSTED


_SHARE_WORDS = re.compile(r"rate|share|margin|growth|percent|ratio|variance|change|%", re.I)


def plausible(fact: GraphFact) -> bool:
    """A figure whose value fits what it claims to measure: a named measure (not just "value"), and a
    percentage only for a rate, share, margin or change (a revenue of "86%" is a misread table)."""
    if not fact.metric or fact.metric == "value":
        return False
    percent = (fact.unit or "") == "%" or fact.value.strip().endswith("%")
    return not percent or bool(_SHARE_WORDS.search(fact.metric))


def base_name(path: str) -> str:
    return PurePosixPath(path).name


def slug(text: str, limit: int = 32) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "workspace"
    if len(name) > limit:  # whole words: 'trafford_council_pay', not 'trafford_council_pay_transparenc'
        cut = name[: limit + 1].rsplit("_", 1)[0]
        name = cut if len(cut) >= limit // 2 else name[:limit]
    return name.strip("_")


_MARKUP = re.compile(r"\*\*|__|`|^\s*[-*•▪◦·]\s+")


def plain(text: str) -> str:
    """Text as a reader sees it: Markdown emphasis, code marks and a bullet dropped ('**Updated Language**'
    reads 'Updated Language')."""
    return _MARKUP.sub("", text).strip()


def short(text: str, limit: int = 90) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


# Words a name of an event neither starts nor ends with: the five words before a date in running prose
# ("on October and ended on") are a fragment, not what a planner would call the date.
_JOINING = frozenset(
    "a an and as at by for from in into of on or than that the to was were which with".split())


def named_event(fact: GraphFact) -> bool:
    """The date's event has a name a colleague would use: two or more words, not a clause's fragment."""
    words = [w.strip(",.;:()").lower() for w in (fact.entity or "").split()]
    words = [w for w in words if w]
    return len(words) >= 2 and words[0] not in _JOINING and words[-1] not in _JOINING


def label_of(fact: GraphFact) -> str:
    """How a colleague would name the item without giving its value away."""
    if fact.kind == "quantity":
        who = f" of {fact.entity}" if fact.entity else ""
        when = f" for {fact.period}" if fact.period else ""
        return f"{fact.metric or 'figure'}{who}{when}"
    if fact.kind == "date":
        what = fact.entity or "date"
        what = f"the {what} date" if len(what.split()) <= 1 else what
        where = fact.section.split(" > ")[-1] if fact.section else ""  # the nearest heading, not the title
        return what + (f" ({short(where, 60)})" if where else "")
    if fact.kind in ("definition", "status"):
        return f"{fact.entity}"
    if fact.kind == "metadata":
        return f"the document's {fact.entity or 'metadata'}"
    # A requirement or list item: its nearest heading and its opening words, which a reader finds it by
    # (the whole section path, cut at 60 characters, named only the document's title).
    where = fact.section.split(" > ")[-1].strip() if fact.section else ""
    words = plain(fact.value).split()
    opening = " ".join(words[:6]) + ("…" if len(words) > 6 else "")
    what = {"requirement": "the requirement", "list_item": "the item"}.get(fact.kind, "the text")
    return f"{what} under {short(where, 50)!r} that begins {opening!r}" if where else f"{what} {opening!r}"


def _identity(fact: GraphFact) -> str:
    """What makes two facts the same item: its text, and for a status or attribute also the thing it belongs
    to ("Open" of two tracked items is two items, not one)."""
    value = (fact.normalized or fact.value).lower()
    if fact.kind in ("status", "attribute"):
        return f"{value} | {(fact.entity or '').lower()} | {(fact.metric or '').lower()}"
    return value


def spread(facts: Sequence[GraphFact], limit: int, per_file: int = 3) -> list[GraphFact]:
    """Up to ``limit`` facts, at most ``per_file`` from one file, in document order, without repeats (the
    same item twice: see :func:`_identity`)."""
    out: list[GraphFact] = []
    count: dict[str, int] = {}
    seen: set[str] = set()
    for f in sorted(facts, key=lambda f: (f.path, f.ordinal, f.fact_id)):
        key = _identity(f)
        if key in seen or count.get(f.path, 0) >= per_file:
            continue
        seen.add(key)
        count[f.path] = count.get(f.path, 0) + 1
        out.append(f)
    # round-robin across files so a short list still spans the workspace
    by_file: dict[str, list[GraphFact]] = {}
    for f in out:
        by_file.setdefault(f.path, []).append(f)
    mixed: list[GraphFact] = []
    while len(mixed) < min(limit, len(out)):
        for path in sorted(by_file):
            if by_file[path]:
                mixed.append(by_file[path].pop(0))
    return mixed[:limit]


def stale_criterion(criterion_id: str, deliverable: str, old: GraphFact, new: GraphFact,
                    positive: float) -> CriterionSpec:
    """Negative: ``old`` (a superseded or confuser file's value) reported as the current ``new``; weighed
    against the ``positive`` weight of the spec so far."""
    return CriterionSpec(
        criterion_id=criterion_id,
        polarity=Polarity.NEGATIVE,
        kind=CriterionKind.VALUE,
        weight=round(max(0.5, NEGATIVE_SHARE * positive + 1.0), 3),
        requirement=(
            f"{deliverable} reports the superseded value from {display_name(old.path, [old.path, new.path])} "
            f"for {label_of(new)} as current"
        ),
        target_deliverable=deliverable,
        expected=old.normalized if old.kind != "quantity" else old.value,
        expected_value=old.value_num,
        verification=(
            f"Violation when a line of {deliverable} states the superseded value without the current "
            f"one and without calling it superseded or earlier."
        ),
        anchors=[old.fact_id, new.fact_id],
        check="stale",
        fact_kind=old.kind,
        label=label_of(new),
    )


def display_name(path: str, files: Sequence[str]) -> str:
    """How a request names a file: its base name, or its path when another folder holds the same name
    ('fy2016/receipts.csv replaces fy2017/receipts.csv', never 'receipts.csv replaces receipts.csv')."""
    base = base_name(path)
    return path if sum(base_name(p) == base for p in files) > 1 else base


def superseded_paths(graph: WorkspaceGraph) -> set[str]:
    """Files a later version of the same document supersedes (the older side of a supersedes edge)."""
    path = {f.fact_id: f.path for f in graph.facts}
    return {path[e.dst_fact_id] for e in graph.edges if e.kind == "supersedes" and e.dst_fact_id in path}


def earlier_versions(graph: WorkspaceGraph) -> dict[str, GraphFact]:
    """For each file that supersedes another, a fact of the earlier version (its title when it has one):
    newer path -> fact."""
    facts = {f.fact_id: f for f in graph.facts}
    titles = {f.path: f for f in graph.facts if f.kind == "metadata" and f.entity == "title"}
    out: dict[str, GraphFact] = {}
    for e in sorted(graph.edges, key=lambda e: (e.src_fact_id, e.dst_fact_id)):
        new, old = facts.get(e.src_fact_id), facts.get(e.dst_fact_id)
        if e.kind != "supersedes" or new is None or old is None or new.path == old.path:
            continue
        out.setdefault(new.path, titles.get(old.path, old))
    return out


def previous_editions(graph: WorkspaceGraph) -> dict[str, GraphFact]:
    """For each file that is a later edition of a series (same folder, kind and name but for its date: the
    2024 and 2025 executive summaries, one forum's records after another's) and no version of it, a fact of
    the edition before it (its title when it has one): newer path -> fact. A records clerk files each
    edition beside the one before; a revision of one document is a version instead (``earlier_versions``)."""
    from graphforge.evidence.doc_links import version_folder, version_rank, version_stem

    firsts: dict[str, GraphFact] = {}
    title_first = sorted(graph.facts, key=lambda f: (f.path, (f.kind, f.entity) != ("metadata", "title"),
                                                     f.ordinal))
    for f in title_first:
        firsts.setdefault(f.path, f)
    facts = {f.fact_id: f for f in graph.facts}
    versions = {frozenset((facts[e.src_fact_id].path, facts[e.dst_fact_id].path)) for e in graph.edges
                if e.kind == "supersedes" and e.src_fact_id in facts and e.dst_fact_id in facts}
    series: dict[tuple[str, str, str], list[str]] = {}
    for path in firsts:
        stem = version_stem(path)
        if stem and re.search(r"\d{4}", PurePosixPath(path).name):  # an edition is dated in its name
            key = (PurePosixPath(path).suffix.lower(), version_folder(path), stem)
            series.setdefault(key, []).append(path)
    out: dict[str, GraphFact] = {}
    for paths in series.values():
        ordered = sorted(paths, key=version_rank)
        for older, newer in zip(ordered, ordered[1:], strict=False):
            if frozenset((older, newer)) not in versions and version_rank(older)[2] < version_rank(newer)[2]:
                out[newer] = firsts[older]
    return out


def restated_elsewhere(graph: WorkspaceGraph, chosen: Sequence[GraphFact],
                       in_file: str | None = None) -> dict[str, GraphFact]:
    """For each chosen fact that another current file states too (a compare edge), that file's fact: the
    first by path (a superseded or untrusted file is no evidence). With ``in_file``: that file's fact only,
    superseded or not (the earlier version a re-issued document is mapped against)."""
    facts = {f.fact_id: f for f in graph.facts}
    old = superseded_paths(graph) if in_file is None else set()
    ids = {f.fact_id: f for f in chosen}
    out: dict[str, GraphFact] = {}
    for e in sorted(graph.edges, key=lambda e: (e.src_fact_id, e.dst_fact_id)):
        if e.kind != "compare":
            continue
        for mine, theirs in ((e.src_fact_id, e.dst_fact_id), (e.dst_fact_id, e.src_fact_id)):
            f, o = ids.get(mine), facts.get(theirs)
            if f is None or o is None or o.path == f.path or o.path in old:
                continue
            # a file's role is checked for evidence; an earlier version is named, never taken a value from
            if (in_file is None and not trusted(o)) or (in_file is not None and o.path != in_file):
                continue
            if mine not in out or o.path < out[mine].path:
                out[mine] = o
    return out


class SpecBuilder:
    """Collects deliverables and criteria for one spec; ids derive from workspace, family and seed."""

    def __init__(self, workspace_id: str, family: str, seed_id: str | None, version: int) -> None:
        self.base_id = "spec-" + stable_hash(workspace_id, family, seed_id or "", length=12)
        self.spec_id = f"{self.base_id}@v{version}"
        self.workspace_id, self.family, self.seed_id, self.version = workspace_id, family, seed_id, version
        self.deliverables: list[DeliverableSpec] = []
        self.criteria: list[CriterionSpec] = []

    def deliverable(
        self,
        name: str,
        fmt: str,
        description: str,
        sections: Iterable[str] = (),
        sheets: Iterable[str] = (),
        columns: Iterable[str] = (),
        keys: Iterable[str] = (),
    ) -> DeliverableSpec:
        """A deliverable and its layout: report sections, slide titles or JSON top-level keys (``sections``),
        sheets, the table's columns, the JSON records' keys. ``spec()`` makes each part a layout criterion and
        :func:`layout_words` says them in the statement, so the two never disagree."""
        d = DeliverableSpec(
            deliverable_id=f"{self.spec_id}/{name}",
            name=name,
            format=fmt,
            description=description,
            required_sections=list(sections),
            required_sheets=list(sheets),
            required_columns=list(columns),
            required_keys=list(keys),
        )
        self.deliverables.append(d)
        return d

    def _add(self, **kw: object) -> CriterionSpec:
        c = CriterionSpec(criterion_id=f"{self.spec_id}/c{len(self.criteria) + 1}", **kw)
        self.criteria.append(c)
        return c

    def item(
        self, fact: GraphFact, d: DeliverableSpec, requirement: str, weight: float = 1.0
    ) -> CriterionSpec:
        """The deliverable must state this fact (by meaning, wherever it puts it)."""
        expected = fact.normalized if fact.kind != "quantity" else fact.value
        how = {
            "date": "find a date naming the same day (any printed form) on a line about the item",
            "quantity": "find the figure (any printed form, any stated scale) on a line that names the item",
            "status": "find the item's name with the same status on one line",
        }.get(
            fact.kind, "find a passage stating the same content (most of the anchored text's content words)"
        )
        return self._add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.VALUE,
            weight=weight,
            requirement=requirement,
            target_deliverable=d.name,
            expected=expected,
            expected_value=fact.value_num,
            tolerance=0.005,
            computation="copy" if fact.value_num is not None else None,
            verification=f"Open {d.name} and {how}; the anchored span gives the value.",
            anchors=[fact.fact_id],
            check="item",
            fact_kind=fact.kind,
            label=label_of(fact),
        )

    def _item_weight(self, d: DeliverableSpec, fact_ids: set[str] | None = None) -> float:
        return sum(c.weight for c in self.criteria if c.check == "item" and c.target_deliverable == d.name
                   and (fact_ids is None or set(c.anchors) & fact_ids))

    def cites(
        self, facts: Sequence[GraphFact], d: DeliverableSpec, weight: float | None = None
    ) -> CriterionSpec:
        """Each item the deliverable reports cites, on its own line, row or record, the file it comes from
        (or a current file stating the same value), at the place it names. Weighs ``CITES_SHARE`` of those
        items unless ``weight`` is given (call it after the items)."""
        files = sorted({base_name(f.path) for f in facts})
        if weight is None:
            weight = max(1.0, round(CITES_SHARE * self._item_weight(d, {f.fact_id for f in facts}), 3))
        return self._add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.CITATION,
            weight=weight,
            requirement=f"{d.name} cites, beside each item it reports, the source file it comes from",
            target_deliverable=d.name,
            expected="; ".join(files),
            verification=(
                f"Open {d.name}; for each anchored item, read the citation on the item's own line, row or "
                f"record (a source column, a footnote it points to, a cell comment, speaker notes, a JSON "
                f"field): it must name a workspace file holding the item, at the place it gives if it gives "
                f"one; a file not in the workspace fails the item (score: share of items)."
            ),
            anchors=[f.fact_id for f in facts],
            check="cites",
        )

    def layout(
        self, d: DeliverableSpec, part: str, anchors: Sequence[GraphFact], weight: float = 0.5
    ) -> None:
        """A section, sheet, slide or column named ``part`` is present."""
        self._add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.STRUCTURE,
            weight=weight,
            requirement=f"{d.name} has a part titled {part!r}",
            target_deliverable=d.name,
            expected=part,
            verification=f"Open {d.name}; look for a heading, sheet, slide title or column named {part!r}.",
            anchors=[f.fact_id for f in anchors[:3]],
            check="layout",
        )

    def covered(self, fact: GraphFact, other: GraphFact, d: DeliverableSpec, files: Sequence[str],
                requirement: str | None = None) -> None:
        """The deliverable shows where the folder covers ``fact``: beside it, the other current file that
        states it too (``other``). A worker who copies the list without reading the rest of the folder
        leaves it out; the citation is checked on the item's own row or line, at ``other``'s place."""
        where = display_name(other.path, files)
        self._add(
            polarity=Polarity.POSITIVE,
            kind=CriterionKind.CITATION,
            weight=1.0,
            requirement=requirement or (f"{d.name} shows {short(label_of(fact), 70)} as covered by {where}, "
                                        "which states it too"),
            target_deliverable=d.name,
            expected=where,
            verification=(
                f"Open {d.name}; on the item's own row or line, a citation (an evidence or source cell, a "
                f"footnote, a comment) must name {where}, which states the same item (score 1 or 0)."
            ),
            anchors=[fact.fact_id, other.fact_id],
            check="cites",
        )

    def stale(self, old: GraphFact, new: GraphFact, d: DeliverableSpec) -> None:
        """Negative: the superseded value is reported as the current one."""
        positive = sum(c.weight for c in self.criteria if c.polarity is Polarity.POSITIVE)
        self.criteria.append(stale_criterion(f"{self.spec_id}/c{len(self.criteria) + 1}", d.name, old, new,
                                             positive))

    def invented(self, pool: Sequence[GraphFact], d: DeliverableSpec, part: str, what: str) -> None:
        """Negative, set coverage: an entry of ``part`` states none of the source items (``pool``: every
        item the sources hold, not only the ones the positives ask for, so a complete list is no violation).
        """
        kinds = {f.kind for f in pool}
        self._add(
            polarity=Polarity.NEGATIVE,
            kind=CriterionKind.STRUCTURE,
            weight=1.0,
            requirement=f"{d.name} lists, under {part!r}, {what} that none of the source documents states",
            target_deliverable=d.name,
            target_location=part,
            expected=part,
            verification=(
                f"Violation when a row or list entry of {part!r} in {d.name} states none of the anchored "
                f"source items (compared by content words, not wording)."
            ),
            anchors=[f.fact_id for f in pool],
            check="invented",
            fact_kind=next(iter(kinds)) if len(kinds) == 1 else None,
        )

    def _layouts(self) -> None:
        """A layout criterion for each part a deliverable declares that has none yet; all the parts of a
        deliverable weigh ``LAYOUT_SHARE`` of its items (of the mean deliverable's when it holds none)."""
        weights = [self._item_weight(d) for d in self.deliverables]
        held = [w for w in weights if w]
        for d, w in zip(self.deliverables, weights, strict=True):
            parts = list(dict.fromkeys(
                [*d.required_sheets, *d.required_sections, *d.required_columns, *d.required_keys]))
            if not parts:
                continue
            w = w or (sum(held) / len(held) if held else 1.0)
            each = max(MIN_LAYOUT_WEIGHT, round(LAYOUT_SHARE * w / len(parts), 3))
            mine = [c for c in self.criteria if c.target_deliverable == d.name]
            have = {c.expected for c in mine if c.check == "layout"}
            items = [c for c in mine if c.check == "item"] or [c for c in self.criteria if c.check == "item"]
            anchors = [a for c in items for a in c.anchors][:3]
            for part in parts:
                if part in have:
                    continue
                what = ("column" if part in d.required_columns else "key" if part in d.required_keys
                        else "sheet" if part in d.required_sheets else "part")
                self._add(
                    polarity=Polarity.POSITIVE,
                    kind=CriterionKind.STRUCTURE,
                    weight=each,
                    requirement=f"{d.name} has a {what} named {part!r}",
                    target_deliverable=d.name,
                    expected=part,
                    verification=(
                        f"Open {d.name}; look for a {_WHERE[what]} named {part!r} (case, spacing, "
                        f"punctuation and order aside)."
                    ),
                    anchors=anchors,
                    check="layout",
                )

    def spec(self, statement: str, reason: str) -> TaskSpec:
        self._layouts()
        # Each negative weighs at least NEGATIVE_SHARE of the positives the spec ends up with (a stale
        # criterion added before the citation and layout ones was weighed against fewer).
        positive = sum(c.weight for c in self.criteria if c.polarity is Polarity.POSITIVE)
        floor = round(max(0.5, NEGATIVE_SHARE * positive + 1.0), 3)
        self.criteria = [
            c.model_copy(update={"weight": max(c.weight, floor)}) if c.polarity is Polarity.NEGATIVE else c
            for c in self.criteria
        ]
        return TaskSpec(
            spec_id=self.spec_id,
            base_id=self.base_id,
            version=self.version,
            workspace_id=self.workspace_id,
            seed_id=self.seed_id,
            statement=statement,
            statement_hash=statement_hash(statement),
            deliverables=self.deliverables,
            criteria=self.criteria,
            compiler=COMPILER,
            family=self.family,
            family_reason=reason,
        )


_WHERE = {"column": "column in the table's header row", "key": "key in each JSON record",
          "sheet": "sheet", "part": "heading, slide title or JSON top-level key"}


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_KINDS = {"md": "a Markdown report", "docx": "a Word document", "pptx": "a PowerPoint deck"}


def layout_words(d: DeliverableSpec) -> str:
    """The layout a deliverable declares, as the statement says it (the judge checks the same declaration)."""
    fmt = d.format.lower()
    if fmt == "json":
        record = ", ".join(f'"{k}": ...' for k in d.required_keys)
        shape = f"[{{{record}}}]" if record else "[...]"
        top = d.required_sections[0] if d.required_sections else ""
        return f"a JSON file {{\"{top}\": {shape}}}" if top else f"a JSON file {shape}"
    columns = f"the columns {_listed(d.required_columns)}" if d.required_columns else ""
    if fmt in ("xlsx", "xlsm"):
        sheets = d.required_sheets
        text = "a workbook"
        if len(sheets) == 1:
            text += f" with a sheet named {sheets[0]}"
        elif sheets:
            text += f" with the sheets {_listed(sheets)}"
        return f"{text}{':' if sheets else ' with'} {columns}" if columns else text
    if fmt == "csv":
        return f"a CSV with {columns}" if columns else "a CSV"
    text = _KINDS.get(fmt, "a file")
    parts = d.required_sections
    if parts:
        text += f" with {'slides titled' if fmt == 'pptx' else 'the sections'} {_listed(parts)}"
    return f"{text}, and a table with {columns}" if columns else text


def request(
    *,
    occupation: str | None,
    context: str,
    ask: str,
    items: Sequence[str],
    deliverables: Sequence[tuple[DeliverableSpec, str]],
    constraints: Sequence[str],
) -> str:
    """A request as a colleague would write it: goal, audience, what to cover, the files to hand back."""
    who = f"As our {occupation.lower()}, " if occupation else ""
    opening = f"{who}{ask}" if who else ask[:1].upper() + ask[1:]
    lines = [f"Hi — {context}", "", opening]
    if items:
        lines += ["", "Please make sure it covers:"] + [f"- {i}" for i in items]
    lines += ["", "What I need back in the output folder:"]
    lines += [f"- {d.name}: {purpose}" for d, purpose in deliverables]
    if constraints:
        lines += ["", *constraints]
    return "\n".join(lines)


def two_file_criteria(spec: TaskSpec, file_of: dict[str, str]) -> list[str]:
    """The criteria that need two files read (``file_of``: fact id -> its file), by what they check, not by
    where their anchors happen to lie:
    - a stale negative (the earlier version's value against the current one);
    - a citation that names a second file beside an item (the other file stating it, the version it replaces,
      the edition before it), never the per-item citation of items that come from different files;
    - an item whose own anchors lie in two files (a figure recomputed from parts in two files).
    Layout criteria (their anchors are examples) and set-coverage negatives never count."""
    items = {a for c in spec.criteria if c.check == "item" for a in c.anchors}
    out = []
    for c in spec.criteria:
        files = {file_of[a] for a in c.anchors if a in file_of}
        if len(files) < 2 or c.check in ("layout", "invented"):
            continue
        # A per-item citation of items from two files names each file; one naming a single file beside items
        # of two files is the second file's (an edition or version the first is filed beside).
        if c.check == "cites" and all(a in items for a in c.anchors) and ";" in (c.expected or ""):
            continue
        out.append(c.criterion_id)
    return out


def _with_item(spec: TaskSpec, item: CriterionSpec, fact: GraphFact) -> tuple[list[CriterionSpec], str]:
    """The spec's criteria and statement with ``fact`` asked for as one more item like ``item``; the
    deliverable's cites criterion checks its citation too, weighing its share more."""
    label = short(label_of(fact), 160)  # the whole name: its opening words find the item
    # The family's own cites criterion of the deliverable: the first (a two-file one comes after it).
    cites = next((c.criterion_id for c in spec.criteria
                  if c.check == "cites" and c.target_deliverable == item.target_deliverable), None)
    criteria = [
        c.model_copy(update={"anchors": [*c.anchors, fact.fact_id],
                             "weight": round(c.weight + CITES_SHARE * item.weight, 3)})
        if c.criterion_id == cites and fact.fact_id not in c.anchors else c
        for c in spec.criteria
    ]
    added = item.model_copy(update={
        "criterion_id": f"{spec.spec_id}/c{len(spec.criteria) + 1}",
        "requirement": f"{item.target_deliverable} also reports {label} ({short(fact.value, 50)})",
        "expected": fact.normalized if fact.kind != "quantity" else fact.value,
        "expected_value": fact.value_num,
        "computation": "copy" if fact.value_num is not None else None,
        "anchors": [fact.fact_id],
        "fact_kind": fact.kind,
        "label": label_of(fact),
    })
    statement = spec.statement.rstrip() + f"\n\nAlso report {label} from {base_name(fact.path)}."
    return [*criteria, added], statement


def _respec(spec: TaskSpec, criteria: list[CriterionSpec], statement: str) -> TaskSpec:
    return spec.model_copy(update={"criteria": criteria, "statement": statement,
                                   "statement_hash": statement_hash(statement)})


def ask_second_file(
    spec: TaskSpec, item: CriterionSpec, first: GraphFact, second: GraphFact, new_item: bool = False
) -> TaskSpec:
    """The spec with a criterion that needs two files: the deliverable names ``second``'s file beside the
    item anchored to ``first`` (both current files state it: a compare edge). With ``new_item`` the item is
    added first. The statement asks, in words any worker can follow, for every file that states an item."""
    criteria, statement = (
        _with_item(spec, item, first) if new_item else (list(spec.criteria), spec.statement))
    d = item.target_deliverable
    files = [base_name(first.path), base_name(second.path)]
    criteria.append(CriterionSpec(
        criterion_id=f"{spec.spec_id}/c{len(criteria) + 1}",
        polarity=Polarity.POSITIVE,
        kind=CriterionKind.CITATION,
        weight=1.0,
        requirement=f"{d} names both files that state {short(label_of(first), 60)}: {' and '.join(files)}",
        target_deliverable=d,
        expected="; ".join(files),
        verification=(
            f"Open {d} and look for both file names (score: share found); the second file states the same "
            f"item, so a worker who read the folder names it."
        ),
        anchors=[first.fact_id, second.fact_id],
        check="cites",
    ))
    statement = statement.rstrip() + (
        "\n\nWhere another file of the folder states the same item, name that file beside it too.")
    return _respec(spec, criteria, statement)


def warn_superseded(
    spec: TaskSpec, item: CriterionSpec, current: GraphFact, old: GraphFact, new_item: bool = False
) -> TaskSpec:
    """The spec with a negative criterion that needs two files: reporting ``old`` (stated differently by a
    file a later version supersedes, or a confuser) as the current ``current``. With ``new_item`` the current
    item is added first. The statement says to rely on the current version, without naming the trap."""
    criteria, statement = (
        _with_item(spec, item, current) if new_item else (list(spec.criteria), spec.statement))
    positive = sum(c.weight for c in criteria if c.polarity is Polarity.POSITIVE)
    criteria.append(stale_criterion(f"{spec.spec_id}/c{len(criteria) + 1}", item.target_deliverable, old,
                                    current, positive))
    statement = statement.rstrip() + (
        "\n\nSome files of the folder are earlier versions: where two versions differ, use the current one.")
    return _respec(spec, criteria, statement)
