"""Cross-file DEPENDS_ON edges between facts: compare, reconcile and interpret (rules, any extractor's facts).

The same (metric, entity, period) read in two files gives one edge per file pair: ``compare`` when the two
values agree within the rounding of the less precise one ("EUR 9.1 million" agrees with 9,115 thousand),
``reconcile`` when they differ. Only table facts take part in ``reconcile``: a disagreeing prose reading is
more often a misread sentence than a real discrepancy. Inside one file, a sentence restating a table figure
``interpret``s it. Edge direction: from the file whose path sorts later to the earlier, so re-runs agree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations

from graphforge.evidence.base import WorkspaceSpan
from graphforge.figures.numbers import metric_key, parse_figure
from graphforge.models.evidence import DependencyKind, DependsOnRow, FactKind, FactRow

_TABLE_LOCATORS = ("sheet=", "row=", "table=")


def _slack(fact: FactRow) -> float:
    figure = parse_figure(fact.value)
    return 0.0 if figure is None else figure.precision * fact.scale


def agree(a: FactRow, b: FactRow) -> bool:
    """True when two numeric facts state the same figure within the rounding of the less precise one."""
    if a.value_num is None or b.value_num is None:
        return a.value.strip() == b.value.strip()
    return abs(a.value_num - b.value_num) <= max(_slack(a), _slack(b)) + 1e-9


def _is_table(fact: FactRow, spans: Mapping[str, WorkspaceSpan]) -> bool:
    span = spans[fact.span_id]
    return (
        span.locator.startswith(_TABLE_LOCATORS)
        or "\t" in span.text
        or fact.value.replace(",", "").replace(".", "").lstrip("-(").rstrip(")").isdigit()
    )


def cross_file_edges(facts: Sequence[FactRow], spans: Sequence[WorkspaceSpan]) -> list[DependsOnRow]:
    """compare / reconcile edges across files and interpret edges inside a file."""
    by_span = {s.span_id: s for s in spans}
    groups: dict[tuple[str, str, str], list[FactRow]] = defaultdict(list)
    for fact in facts:
        if fact.kind is FactKind.QUANTITY and fact.period and fact.metric and fact.span_id in by_span:
            groups[(metric_key(fact.metric), metric_key(fact.entity or ""), fact.period)].append(fact)
    edges: dict[tuple[str, str, str], DependsOnRow] = {}
    for key, members in sorted(groups.items()):
        per_file: dict[str, list[FactRow]] = defaultdict(list)
        for fact in sorted(
            members, key=lambda f: (by_span[f.span_id].path, by_span[f.span_id].ordinal, f.fact_id)
        ):
            per_file[by_span[fact.span_id].path].append(fact)
        canonical: dict[str, FactRow] = {}
        for path, file_facts in per_file.items():
            tables = [f for f in file_facts if _is_table(f, by_span)]
            canonical[path] = (tables or file_facts)[0]
            table_ids = {f.fact_id for f in tables}  # a set: membership on the models made linking quadratic
            for prose in (f for f in file_facts if f.fact_id not in table_ids):
                for table in tables:
                    if agree(prose, table):
                        edges[(prose.fact_id, table.fact_id, "interpret")] = DependsOnRow(
                            src_fact_id=prose.fact_id,
                            dst_fact_id=table.fact_id,
                            kind=DependencyKind.INTERPRET,
                            note=f"the text restates the table figure {table.value}",
                        )
                        break
        for (path_a, a), (path_b, b) in combinations(sorted(canonical.items()), 2):
            if a.fact_id == b.fact_id:  # one file under two names (an exact duplicate)
                continue
            same = agree(a, b)
            if not same and not (_is_table(a, by_span) and _is_table(b, by_span)):
                continue
            kind = DependencyKind.COMPARE if same else DependencyKind.RECONCILE
            diff = (b.value_num or 0.0) - (a.value_num or 0.0)
            note = f"{' '.join(k for k in key if k)}: {path_b} {b.value} vs {path_a} {a.value}" + (
                "" if same else f" (difference {diff:g})"
            )
            edges[(b.fact_id, a.fact_id, kind.value)] = DependsOnRow(
                src_fact_id=b.fact_id, dst_fact_id=a.fact_id, kind=kind, note=note
            )
    return list(edges.values())
