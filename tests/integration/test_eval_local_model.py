"""The evaluation chain against the real local model (SmolLM2-135M-Instruct served by llama-cpp-python,
`graphforge llm`): `eval run` -> `eval compare` -> `eval elo --store` -> `eval winrate --by covered`.

Players: the local model under two system prompts, working the generated benchmark's tasks with the
built-in agent loop, and the oracle (the benchmark's expert deliverables). The judge prefers the response
holding the task's correct total, which the test computes from the benchmark's CSV files; the local model
also judges, where only robustness is asked of it (verdicts stored with reasons, or reported missing).
"""

from __future__ import annotations

import dataclasses
import json
import socket
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.llm.server import LocalModelInfo, ManagedLocalModel
from graphforge.settings import GraphforgeSettings
from graphforge.stages import eval_compare
from tests.integration.test_eval_chain import (
    CAREFUL,
    COVERED,
    REPO,
    TERSE,
    _cypher,
    _json,
    _run_args,
    content_judge,
    correct_totals,
    make_benchmark,
    scripted_candidates,
)
from tests.support.llm_server import Reply, ScriptedLLMServer

# A 135M model on shared CPUs takes minutes per judged pair: long limits, and the local_llm mark.
pytestmark = [pytest.mark.neo4j, pytest.mark.local_llm, pytest.mark.timeout(1800)]

KEY_ENV = "GRAPHFORGE_TEST_EVAL_LOCAL_KEY"


@pytest.fixture
def benchmark(tmp_path: Path, ctx: StageContext) -> Path:
    return make_benchmark(tmp_path, ctx)


@pytest.fixture
def candidates() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        server.responder = scripted_candidates
        yield server


@pytest.fixture(scope="module")
def local_model(settings: GraphforgeSettings) -> Iterator[LocalModelInfo]:
    """The managed local model: the one already serving the test home, else started on a free port and
    stopped afterwards. The CLI finds it through the same environment."""
    managed = ManagedLocalModel(settings)
    started = managed.pid() is None
    if started:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        managed = ManagedLocalModel(settings.model_copy(update={"llm_local_port": port}))
        with warnings.catch_warnings():
            # start() drops its Popen handle while the server runs on (ResourceWarning on collection).
            warnings.simplefilter("ignore", ResourceWarning)
            managed.start()  # a missing llama-cpp-python or model file fails here, naming what to install
    info = managed.info()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GRAPHFORGE_LLM_LOCAL_PORT", info.base_url.rsplit(":", 1)[1].split("/")[0])
        env.setenv(KEY_ENV, info.api_key)
        # One llama.cpp server answers one request at a time on a shared CPU: a retried timeout would only
        # queue behind the abandoned request, so wait long, never retry, and ask one thing at a time.
        for name, value in LOCAL_PATIENCE.items():
            env.setenv(f"GRAPHFORGE_{name.upper()}", str(value))
        try:
            yield info
        finally:
            if started:
                managed.stop()


LOCAL_PATIENCE = {"llm_timeout_s": 900.0, "llm_max_retries": 0, "llm_concurrency": 1}


def _local_run_args(root: Path, info: LocalModelInfo) -> list[str]:
    """One local model, two players: `careful` through the managed-model endpoint, `terse` by its URL."""
    return ["eval", "run", "--benchmark", "eval-sample", "--benchmark-dir", str(root),
            "--model", "careful=local", "--model", f"terse={info.base_url}", "--model", "gold=oracle",
            "--system-prompt", f"careful={CAREFUL}", "--system-prompt", f"terse={TERSE}",
            "--served-model", f"terse={info.model}", "--api-key-env", f"terse={KEY_ENV}",
            "--max-steps", "3", "--max-tokens", "256", "--temperature", "0", "--concurrency", "1", "--json"]


def test_local_model_chain_ranks_the_oracle_first_and_reproduces_elo_from_stored_judgments(
        benchmark: Path, ctx: StageContext, local_model: LocalModelInfo, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_local_run_args(benchmark, local_model)) == 0
    run = _json(capsys)
    # A weak model may make the server fail a request (an error attempt, kept with its reason and retried
    # on resume); it may not crash the run, and each player must complete some tasks.
    assert run["completed"] + run["errors"] == 12, run["attempts"]
    done = [a for a in run["attempts"] if a["status"] == "completed"]  # type: ignore[union-attr]
    assert {a["player"] for a in done} == {"careful", "terse", "gold"}, run["attempts"]
    assert all(a["stop_reason"].startswith("llm_error") for a in run["attempts"]  # type: ignore[union-attr]
               if a["status"] == "error")
    attempts = _cypher(ctx.graph, "MATCH (a:Attempt)-[:ON_TASK]->(t:BenchmarkTask), (a)-[:BY]->(p:Player) "
                                  "RETURN a.player AS player, t.task_id AS task, a.has_output AS out, "
                                  "a.rendered AS rendered, a.messages_json AS messages, "
                                  "a.prompt_hashes AS hashes, a.model AS model, a.status AS status")
    assert len(attempts) == 12
    attempts = [a for a in attempts if a["status"] == "completed"]
    # Pairs to judge: the completed attempts of each task, two by two.
    per_task = {t: sum(a["task"] == t for a in attempts) for t in {str(a["task"]) for a in attempts}}
    pairs = sum(n * (n - 1) // 2 for n in per_task.values())
    gold_vs_careful = {str(a["task"]) for a in attempts if a["player"] == "careful"}
    totals = correct_totals(benchmark)
    gold = [a for a in attempts if a["player"] == "gold"]
    assert len(gold) == 4 and all(a["out"] and any(t in a["rendered"] for t in totals.values()) for a in gold)
    chat = [a for a in attempts if a["player"] != "gold"]
    assert {a["model"] for a in chat} == {local_model.model}
    # Each player worked under its own system prompt: recorded on the attempt, and sent (other cache keys).
    assert {a["player"]: json.loads(str(a["messages"]))[0]["content"] for a in chat} == {
        "careful": CAREFUL, "terse": TERSE}
    hashes = {a["player"]: set(a["hashes"]) for a in chat}  # type: ignore[arg-type]
    assert hashes["careful"] and hashes["terse"] and not hashes["careful"] & hashes["terse"]
    # Hidden information stays hidden: no conversation mentions the expert's folder.
    assert not any("deliverable_files" in str(a["messages"]) for a in chat)

    # Resumed: completed attempts are kept; only failed ones run again (none: no model call at all).
    assert main(_local_run_args(benchmark, local_model)) == 0
    again = _json(capsys)
    assert len(again["skipped"]) == run["completed"]
    assert {a["attempt_id"] for a in again["attempts"]} == {  # type: ignore[union-attr]
        a["attempt_id"] for a in run["attempts"] if a["status"] == "error"}  # type: ignore[union-attr]
    if run["errors"] == 0:
        assert again["llm_calls"] == 0

    comparisons = tmp_path / "comparisons.jsonl"
    judge_model = f"judge-{uuid.uuid4().hex[:8]}"
    with ScriptedLLMServer() as judge:
        judge.responder = content_judge(totals)
        compare = ["eval", "compare", "--benchmark", "eval-sample", "--out", str(comparisons),
                   "--judge", f"content-judge={judge.url}", "--judge-model", judge_model, "--json"]
        assert main(compare) == 0
        result = _json(capsys)
        assert (result["pairs"], result["reused"], result["unjudged"]) == (pairs, 0, [])
        # A side without any deliverable loses without a call; every other pair is asked in both orders.
        assert result["judged"] + result["by_rule"] == pairs
        assert len(judge.chat_requests) == 2 * result["judged"]
        assert result["consistency"] in (1.0, None)
        first_bytes = comparisons.read_bytes()
        # Again, with a judge that would fail every call: the file comes back from the stored judgments.
        judge.responder = lambda request: Reply(status=400, error="judge must not be asked again")
        comparisons.unlink()
        assert main(compare) == 0
        again = _json(capsys)
        assert (again["judged"], again["reused"], again["llm_calls"]) == (0, pairs, 0)
        assert comparisons.read_bytes() == first_bytes

    stored = _cypher(ctx.graph, "MATCH (j:PairJudgment {judge: 'content-judge'}) RETURN j.winner AS winner, "
                                "j.reasons_ab AS ra, j.reasons_ba AS rb, j.prompt_hash_ab AS ha, "
                                "j.prompt_hash_ba AS hb, j.consistent AS consistent, j.player_a AS a, "
                                "j.player_b AS b, j.task_key AS task")
    assert len(stored) == pairs
    asked = [j for j in stored if j["consistent"] is not None]
    assert len(asked) == result["judged"]
    assert all(j["ra"] and j["rb"] and j["ha"] and j["hb"] and j["ha"] != j["hb"] for j in asked)
    rows = [json.loads(line) for line in first_bytes.decode().splitlines()]
    assert sorted((r["task_id"], r["model_a"], r["model_b"], r["winner"]) for r in rows) == sorted(
        (str(j["task"]).split(":")[1], j["a"], j["b"], j["winner"]) for j in stored)
    # The oracle holds every correct total: it never loses a pair.
    assert not any(r["winner"] == ("b" if r["model_a"] == "gold" else "a") for r in rows
                   if "gold" in (r["model_a"], r["model_b"]))

    elo_out = tmp_path / "elo"
    assert main(["eval", "elo", str(comparisons), "--anchor", "terse=1667", "--bootstrap", "200",
                 "--out", str(elo_out), "--store", "--json"]) == 0
    stored_fit = _json(capsys)
    ratings = stored_fit["elo"]["ratings"]
    assert ratings[0]["model"] == "gold" and ratings[0]["rank"] == 1
    in_graph = _cypher(ctx.graph, "MATCH (x:Rating)-[:IN_RUN]->(r:RatingRun {run_id: $id}), "
                                  "(x)-[:OF_PLAYER]->(p:Player) RETURN p.name AS player, x.elo AS elo, "
                                  "x.ci_low AS lo, x.ci_high AS hi, x.rank AS rank ORDER BY x.rank",
                       id=stored_fit["run_id"])
    assert [(r["player"], r["elo"], r["lo"], r["hi"]) for r in in_graph] == \
        [(r["model"], r["elo"], r["ci_low"], r["ci_high"]) for r in ratings]
    # The Browser guide's ratings slide shows that fit, best first.
    slide = _cypher(ctx.graph, (REPO / "cypher" / "browser" / "ratings.cypher").read_text(encoding="utf-8"),
                    rating_run_id=stored_fit["run_id"])
    assert [r["player"] for r in slide] == [r["model"] for r in ratings]
    # The Elo file is reproduced from the comparisons regenerated from the graph.
    first_elo = json.loads((elo_out / "elo.json").read_text())
    assert main(["eval", "elo", str(comparisons), "--anchor", "terse=1667", "--bootstrap", "200",
                 "--out", str(tmp_path / "elo2"), "--json"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "elo2" / "elo.json").read_text())["ratings"] == first_elo["ratings"]

    for level, expected in COVERED.items():
        assert main(["eval", "winrate", str(comparisons), "--a", "gold", "--b", "careful", "--by", "covered",
                     "--coverage-level", level, "--bootstrap", "100", "--json"]) == 0
        split = _json(capsys)
        assert set(split["covered_tasks"]) == expected & {t for t, n in per_task.items() if n > 1}, level
        groups = {r["group"]: r["comparisons"] for r in split["winrate"]["rows"]}
        covered = len(expected & gold_vs_careful)
        assert groups == {"overall": len(gold_vs_careful),
                          **({"covered=true": covered} if covered else {}),
                          **({"covered=false": len(gold_vs_careful) - covered}
                             if len(gold_vs_careful) > covered else {})}


def test_the_local_model_as_judge_leaves_every_pair_judged_with_reasons_or_reported(
        benchmark: Path, ctx: StageContext, candidates: ScriptedLLMServer, local_model: LocalModelInfo,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two_tasks = ["--task", "ev-01", "--task", "ev-02", "--json"]  # a small model on two cores is slow
    assert main(_run_args(benchmark, candidates, f"candidate-{uuid.uuid4().hex[:8]}")[:-1] + two_tasks) == 0
    capsys.readouterr()
    params = eval_compare.EvalCompareParams(
        benchmark="eval-sample", out=tmp_path / "local.jsonl", players=["careful", "terse"], concurrency=1,
        judge=eval_compare.JudgeSpec(name="smollm2", base_url=local_model.base_url,
                                     served_model=local_model.model, api_key_env=KEY_ENV))
    try:
        result = eval_compare.run(dataclasses.replace(ctx, settings=ctx.settings.model_copy(
            update=LOCAL_PATIENCE)), params)
    except eval_compare.PositionBiasError as biased:  # a weak judge may well be one: that is reported
        result = biased.result
    assert result.pairs == 2 and result.judged + len(result.unjudged) == 2 and result.by_rule == 0
    stored = _cypher(ctx.graph, "MATCH (j:PairJudgment {judge: 'smollm2'}) RETURN j.verdict_ab AS ab, "
                                "j.verdict_ba AS ba, j.prompt_hash_ab AS ha, j.prompt_hash_ba AS hb, "
                                "j.consistent AS consistent, j.winner AS winner, j.reasons_ab AS ra")
    assert len(stored) == result.judged
    assert all(j["ab"] in ("1", "2", "tie") and j["ba"] in ("1", "2", "tie") and j["ha"] and j["hb"]
               and isinstance(j["ra"], str) for j in stored)
    assert all((j["winner"] == "tie") or j["consistent"] for j in stored)
    if result.judged:
        assert result.consistency == sum(bool(j["consistent"]) for j in stored) / len(stored)
        assert local_model.api_key not in json.dumps(stored)
