"""Rubrics as a trl reward function (GRPO signature), computed from exported rubric JSON without Neo4j.

``load_rubric_reward(path)`` returns ``rubric_reward(completions, *, spec_id, **kwargs) -> list[float]``:
GRPOTrainer passes every dataset column except ``prompt`` as a keyword list, so a prompt set with a
``spec_id`` column (``graphforge export rubrics`` writes one) pairs each completion with its rubric.

The score is the paper's Q, ``(Σ_{R+} w·a − Σ_{R−} λ·v) / Σ_{R+} w``, over the criteria that can be
verified deterministically from the completion text (assistant messages plus tool-call arguments, so
file contents the agent wrote count): numeric expected values within the criterion's relative
tolerance, expected text, required sections and sheets. Criteria with nothing checkable (qualitative
ones) are left out of both sums and reported by ``score_completion``. A completion that never names a
required deliverable scores 0, as missing deliverables count as losses in the paper's evaluation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphforge.errors import ExportError, SourceFormatError
from graphforge.figures.numbers import find_figures, matches_value
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity, TaskSpec

RewardFunc = Callable[..., list[float]]


class CriterionScore(BaseModel):
    criterion_id: str
    polarity: str
    weight: float
    score: float | None  # None: not verifiable from text
    how: str


class RewardBreakdown(BaseModel):
    spec_id: str
    reward: float
    deliverables_named: bool
    missing_deliverables: list[str]
    criteria: list[CriterionScore]


def completion_text(completion: Any) -> str:
    """Everything the policy produced: plain text, or assistant contents and decoded tool-call arguments."""
    if isinstance(completion, str):
        return completion
    parts: list[str] = []
    for message in completion or ():
        if message.get("role", "assistant") != "assistant":
            continue
        if message.get("content"):
            parts.append(str(message["content"]))
        for call in message.get("tool_calls") or ():
            args = (call.get("function") or {}).get("arguments")
            parts.extend(_strings(_decode(args)))
    return "\n".join(parts)


def _decode(args: Any) -> Any:
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return args
    return args


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield repr(value)


def numbers_in(text: str) -> list[float]:
    """Every figure in the text, read by the package's one parser (:mod:`graphforge.figures.numbers`):
    "(12)" and "–12" are negative, "EUR 1.2 million" is 1,200,000, "1.234.567,89" one figure; "12.5%"
    also yields 0.125."""
    found: list[float] = []
    for figure in find_figures(text):
        found.append(figure.value)
        if figure.unit == "%":
            found.append(figure.value / 100)
    return found


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def value_present(expected: float, tolerance: float, numbers: Sequence[float]) -> bool:
    """The judge's comparison (:func:`graphforge.figures.numbers.matches_value`) against every figure."""
    return any(matches_value(x, expected, tolerance) for x in numbers)


def score_criterion(c: CriterionSpec, spec: TaskSpec, text: str, numbers: Sequence[float]) -> CriterionScore:
    """a_k in [0, 1] for a positive criterion, v_j in {0, 1} for a negative one, or None."""
    base = {"criterion_id": c.criterion_id, "polarity": c.polarity.value, "weight": c.weight}
    if c.expected_value is not None:
        hit = value_present(c.expected_value, c.tolerance, numbers)
        return CriterionScore(
            **base,
            score=float(hit),
            how=f"value {c.expected_value} ±{c.tolerance:.3%} {'found' if hit else 'absent'}",
        )
    if c.expected:
        hit = _normal(c.expected) in _normal(text)
        return CriterionScore(
            **base, score=float(hit), how=f"text {c.expected!r} {'found' if hit else 'absent'}"
        )
    deliverable = next((d for d in spec.deliverables if d.name == c.target_deliverable), None)
    if c.kind is CriterionKind.STRUCTURE and c.polarity is Polarity.POSITIVE and deliverable is not None:
        names = deliverable.required_sections + deliverable.required_sheets
        if names:
            present = [n for n in names if _normal(n) in _normal(text)]
            return CriterionScore(
                **base,
                score=len(present) / len(names),
                how=f"{len(present)}/{len(names)} required sections/sheets named",
            )
    return CriterionScore(**base, score=None, how="not verifiable from text (needs a judge)")


def score_completion(spec: TaskSpec, completion: Any, require_deliverables: bool = True) -> RewardBreakdown:
    """Q of one completion against one rubric, with per-criterion reasons."""
    text = completion_text(completion)
    numbers = numbers_in(text)
    lowered = text.lower()
    missing = [d.name for d in spec.deliverables if d.name.lower() not in lowered]
    scores = [score_criterion(c, spec, text, numbers) for c in spec.criteria]
    pos = [s for s in scores if s.polarity == "positive" and s.score is not None]
    neg = [s for s in scores if s.polarity == "negative" and s.score is not None]
    total = sum(s.weight for s in pos)
    q = (
        0.0
        if total <= 0
        else (sum(s.weight * (s.score or 0.0) for s in pos) - sum(s.weight * (s.score or 0.0) for s in neg))
        / total
    )
    if require_deliverables and missing:
        q = 0.0
    return RewardBreakdown(
        spec_id=spec.spec_id,
        reward=q,
        deliverables_named=not missing,
        missing_deliverables=missing,
        criteria=scores,
    )


def load_rubrics(path: Path) -> dict[str, TaskSpec]:
    """Rubrics written by ``graphforge export rubrics`` (one TaskSpec JSON per line)."""
    specs: dict[str, TaskSpec] = {}
    try:
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):  # noqa: B007 - named in the error below
                if line.strip():
                    spec = TaskSpec.model_validate_json(line)
                    specs[spec.spec_id] = spec
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read rubrics: {exc.strerror}") from exc
    except ValueError as exc:
        raise SourceFormatError(path, f"line {number}: not a rubric: {exc}") from exc
    return specs


def load_rubric_reward(path: Path | str, *, require_deliverables: bool = True) -> RewardFunc:
    """A GRPO reward function over the rubrics in ``path`` (trl logs it under its ``__name__``)."""
    specs = load_rubrics(Path(path))

    def rubric_reward(completions: Sequence[Any], *, spec_id: Sequence[str], **kwargs: Any) -> list[float]:
        """Rubric Q of each completion against the rubric of its spec."""
        if len(spec_id) != len(completions):
            raise ExportError(f"rubric_reward got {len(completions)} completions but {len(spec_id)} spec ids")
        rewards = []
        for completion, sid in zip(completions, spec_id, strict=True):
            spec = specs.get(sid)
            if spec is None:
                raise ExportError(f"rubric_reward: no rubric for spec {sid!r} in {path}")
            rewards.append(score_completion(spec, completion, require_deliverables).reward)
        return rewards

    return rubric_reward
