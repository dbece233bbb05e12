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

from graphforge.errors import SourceFormatError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

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


# The committed seed of the labelling sample: every workspace's sample is a uniform random draw that anyone
# can redraw. Change it only to draw a fresh sample (the labels already kept still count where they match).
SAMPLE_SEED = "graphforge-labels-2026-12"


def _rank(fact: SampledFact, seed: str = SAMPLE_SEED) -> str:
    # A seeded uniform order over the fact's identity without its statement: a reworded fact keeps its place.
    return hashlib.sha256("|".join((seed, *fact.key[:4])).encode("utf-8")).hexdigest()


def sample(graph: Graph, workspace_id: str, n: int, seed: str = SAMPLE_SEED) -> list[SampledFact]:
    """A uniform random sample of ``n`` facts of the workspace, drawn with the committed ``seed``.

    Uniform, not stratified: precision on it estimates the precision of the workspace's facts as they are
    (a kind with many facts weighs as much as it does in the graph). Precision per kind reads the same sample.
    """
    facts = graph.read(GET_FACT_SAMPLE, SampledFact, workspace_id=workspace_id)
    return sorted(facts, key=lambda f: _rank(f, seed))[:n]


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
