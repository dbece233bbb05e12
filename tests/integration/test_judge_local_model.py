"""The judge path against a real local model (SmolLM2-135M-Instruct served by llama-cpp-python through
`graphforge llm`): robustness, not quality.

A 135M model grades badly; what must hold regardless: no crash; a group of candidates is either judged or
refused as a whole with the reason (``VerdictUnavailable``, never a score); the anchored arm never scores a
criterion above its deterministic verifier (nor a violation below it), so a wrong figure is never admitted;
the unanchored arm runs the same model without anchors; a re-run is answered from the cache (0 new calls).
Three criteria of the sample spec (a value, a qualitative one, a negative one) keep it to a few CPU calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.judge.core import judge_attempt, judge_candidates
from graphforge.judge.llm_verifier import VerdictUnavailable
from graphforge.llm import LLMCallRecord, chat_model
from graphforge.models.judge import JudgeArm
from graphforge.oracle import InjectKind, run_oracle
from graphforge.settings import GraphforgeSettings
from tests.unit._judge_sample import sample_view

pytestmark = [pytest.mark.local_llm, pytest.mark.timeout(1800)]  # a 2-core CPU may serve it slowly


def test_the_judge_path_runs_against_the_real_local_model(
        local_llm_settings: GraphforgeSettings, tmp_path: Path) -> None:
    full = sample_view()
    keep = {"c1", "c7", "c8"}  # value (formula), qualitative, negative value
    spec = full.spec.model_copy(update={"criteria": [c for c in full.spec.criteria
                                                     if c.criterion_id.rsplit("/", 1)[-1] in keep]})
    view = full.model_copy(update={"spec": spec})
    runs = []
    for seed, inject in enumerate(([], [InjectKind.WRONG_NUMBER])):
        t = run_oracle(full, full.paths, tmp_path / f"r{seed}", inject=list(inject), seed=seed).trajectory
        runs.append((t.trajectory_id, {d.name: Path(d.path) for d in t.deliverables}))
    wrong_id = runs[1][0]
    llm = chat_model(local_llm_settings, temperature=0.0)
    assert llm is not None

    outcomes: dict[JudgeArm, list[LLMCallRecord]] = {}
    for arm in (JudgeArm.ANCHORED, JudgeArm.UNANCHORED):
        ledger: list[LLMCallRecord] = []
        outcomes[arm] = ledger
        try:
            judged = judge_candidates(view, runs, arm, llm=llm, ledger=ledger)
        except VerdictUnavailable as exc:  # the weak model's answer never validated: a reason, no score
            assert exc.criterion_ids and exc.reason
            print(f"{arm.value}: no verdict ({exc})")
            continue
        assert [j.trajectory_id for j, _ in judged] == [tid for tid, _ in runs]
        for (judgment, _), (tid, files) in zip(judged, runs, strict=True):
            assert all(0 <= r.score <= 1 and r.evidence for r in judgment.ratings)
            if arm is JudgeArm.ANCHORED:
                # The gate: never more favourable than the deterministic verifiers.
                deterministic, _ = judge_attempt(view, files, arm, trajectory_id=tid)
                det = {r.criterion_id: r for r in deterministic.ratings}
                for r in judgment.ratings:
                    if r.criterion_id.endswith("/c7"):
                        continue  # qualitative: the proxy only says the section has substance
                    bound = det[r.criterion_id].score
                    assert (r.score <= bound) if r.polarity == "positive" else (r.score >= bound), r
                assert judgment.q <= deterministic.q + 1e-9
                if tid == wrong_id:
                    assert judgment.q < 0.9  # the wrong figure is never above the admission threshold
        print(f"{arm.value}: {[round(j.q, 3) for j, _ in judged]}, {len(ledger)} calls")
    assert sum(len(v) for v in outcomes.values()) >= 1

    # A re-run asks the model nothing new: every answer, valid or not, is replayed from the cache.
    for arm, first in outcomes.items():
        again: list[LLMCallRecord] = []
        try:
            judge_candidates(view, runs, arm, llm=llm, ledger=again)
        except VerdictUnavailable:
            pass
        assert len(again) == len(first) and all(r.cached for r in again), arm
