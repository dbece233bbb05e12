"""Fact precision against hand labels: a stable sample per workspace and labels keyed by file and locator.

A label file is JSON Lines, one object per judged fact: ``sha256`` (of the file), ``locator`` (the span's),
``kind``, ``value`` (the fact's text), ``statement`` (what the extractor said, as judged), ``correct``
(true/false) and ``rule`` (the labelling rule it followed, see bench/labels/RULES.md). Keys are
content-derived, so labels survive re-ingestion; a label counts only while the extractor still writes the
same statement (a changed metric, entity or period is a new claim to judge). Facts without a current label
are reported as unlabelled, never counted as right.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge import cypher
from graphforge.errors import SourceFormatError
from graphforge.graph import Graph

GET_FACT_SAMPLE = cypher.load("evidence/get_fact_sample")

LabelKey = tuple[str, str, str, str, str]  # sha256, locator, kind, value, statement


class SampledFact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    fact_id: str
    kind: str
    value: str
    statement: str
    value_num: float | None = None
    metric: str | None = None
    entity: str | None = None
    period: str | None = None
    sha256: str
    locator: str
    path: str
    span_text: str

    @property
    def key(self) -> LabelKey:
        return self.sha256, self.locator, self.kind, self.value, self.statement


def _rank(fact: SampledFact) -> str:
    # The fact's identity without its statement: a reworded fact keeps its place in the sample.
    return hashlib.sha256("|".join(fact.key[:4]).encode("utf-8")).hexdigest()


def sample(graph: Graph, workspace_id: str, n: int) -> list[SampledFact]:
    """A stable sample of ``n`` facts, stratified by kind (each kind gets its share, at least a few)."""
    facts = graph.read(GET_FACT_SAMPLE, SampledFact, workspace_id=workspace_id)
    by_kind: dict[str, list[SampledFact]] = {}
    for f in sorted(facts, key=_rank):
        by_kind.setdefault(f.kind, []).append(f)
    out: list[SampledFact] = []
    quota = max(5, n // max(1, len(by_kind)))
    for kind in sorted(by_kind):
        out += by_kind[kind][:quota]
    taken = {f.fact_id for f in out}  # a set: membership on a list of models is quadratic
    rest = [f for f in sorted(facts, key=_rank) if f.fact_id not in taken]
    return (out + rest)[: max(n, len(out))]


@dataclass(frozen=True)
class Precision:
    labelled: int
    correct: int
    unlabelled: int

    @property
    def value(self) -> float | None:
        return self.correct / self.labelled if self.labelled else None


def read_labels(path: Path) -> dict[LabelKey, bool]:
    labels: dict[LabelKey, bool] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (row["sha256"], row["locator"], row["kind"], row["value"], row["statement"])
            labels[key] = bool(row["correct"])
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceFormatError(path, f"line {number}: not a label ({exc})") from exc
    return labels


def precision(
    facts: Iterable[SampledFact],
    labels: dict[LabelKey, bool],
    kinds: Sequence[str] | None = None,
) -> Precision:
    chosen = [f for f in facts if kinds is None or f.kind in kinds]
    judged = [labels[f.key] for f in chosen if f.key in labels]
    return Precision(len(judged), sum(judged), len(chosen) - len(judged))
