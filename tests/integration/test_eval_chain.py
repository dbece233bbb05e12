"""The evaluation chain on a generated benchmark, through the CLI and a real Neo4j:
`eval run` -> `eval compare` -> `eval elo --store` -> `eval winrate --by covered`.

Players: one chat model under two system prompts (the built-in agent loop over real HTTP), and the
oracle (the benchmark's expert deliverables). The judge is a chat endpoint that prefers the response
holding the task's correct total, which the test computes from the benchmark's CSV files itself. A
judge that always prefers the first position is caught by the swap-consistency check.
"""

from __future__ import annotations

import csv
import json
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.demo.sample.benchmark import write_eval_benchmark
from graphforge.graphdb.graph import Graph
from graphforge.stages import eval_compare, load_benchmark
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, text, tool_call

pytestmark = pytest.mark.neo4j
REPO = Path(__file__).resolve().parents[2]

CAREFUL = "You are a careful analyst. Read orders.csv, then write answer.md with the total."
TERSE = "You are terse. Answer in one line without using any tool."
_FENCED = re.compile(r"Response ([12]):\n<<<UNTRUSTED-(\w+)\n(.*?)\nUNTRUSTED-\2>>>", re.DOTALL)


# -- the benchmark, its correct answers and the coverage fixture -------------------------------------------

def correct_totals(root: Path) -> dict[str, str]:
    """Occupation phrase of each task's prompt -> the correct 'Total: X' line, computed from its CSV."""
    out = {}
    for line in (root / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        with (root / record["reference_files"][0]).open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        total = sum(int(r["quantity"]) * float(r["unit_price"]) for r in rows)
        out[f"one of the {record['occupation'].lower()}"] = f"Total: {total:.2f}"
    return out


# Hand-made training graph: which tasks count as covered follows from these rows, written out below.
COVERED = {"occupation": {"ev-01"}, "sector": {"ev-01", "ev-02"}, "dwa": {"ev-01", "ev-04"}}


def _training_graph(graph: Graph) -> None:
    run = graph.driver.execute_query
    run("UNWIND $rows AS r MERGE (s:Sector {code: r.code}) SET s.name = r.name",
        rows=[{"code": "52", "name": "Finance and Insurance"}, {"code": "31", "name": "Manufacturing"},
              {"code": "62", "name": "Health Care and Social Assistance"}])
    occupations = [("13-2011.00", "52", "T1", "D1"), ("43-3031.00", "52", "T2", "D2"),
                   ("13-1023.00", "31", "T3", "D3"), ("29-1141.00", "62", "T4", "D1")]
    run("UNWIND $rows AS r MATCH (s:Sector {code: r[1]}) MERGE (o:Occupation {soc_code: r[0]}) "
        "MERGE (o)-[:IN_SECTOR]->(s) MERGE (d:DWA {dwa_id: r[3]}) MERGE (t:Task {task_id: r[2]}) "
        "MERGE (o)-[:PERFORMS]->(t) MERGE (t)-[:HAS_TYPE]->(d)", rows=[list(o) for o in occupations])
    # seed, occupation, DWA, selected?, trajectory status; the admitted one attempts a revised spec.
    seeds = [("s1", "13-2011.00", "D1", True, "admitted"), ("s2", "43-3031.00", "D2", True, "rejected"),
             ("s3", "13-1023.00", "D3", False, "admitted")]
    run("UNWIND $rows AS r MATCH (o:Occupation {soc_code: r[1]}), (d:DWA {dwa_id: r[2]}) "
        "MERGE (s:Seed {seed_id: r[0]}) SET s.selection_rank = CASE WHEN r[3] THEN 1 ELSE null END "
        "MERGE (s)-[:FOR_OCCUPATION]->(o) MERGE (s)-[:OF_TYPE]->(d) "
        "MERGE (w:Workspace {workspace_id: 'w-' + r[0]}) MERGE (w)-[:FOR_SEED]->(s) "
        "MERGE (spec:TaskSpec {spec_id: 'spec-' + r[0]}) MERGE (spec)-[:COMPILED_FROM]->(w) "
        "MERGE (rev:TaskSpec {spec_id: 'spec-' + r[0] + '@v2'}) MERGE (rev)-[:REVISED_FROM]->(spec) "
        "MERGE (t:Trajectory {trajectory_id: 'traj-' + r[0]}) SET t.status = r[4] "
        "MERGE (t)-[:ATTEMPTS]->(rev)",
        rows=[list(s) for s in seeds])


@pytest.fixture
def benchmark(tmp_path: Path, ctx: StageContext) -> Path:
    return make_benchmark(tmp_path, ctx)


def make_benchmark(tmp_path: Path, ctx: StageContext) -> Path:
    """The generated benchmark, loaded after the training graph that decides its coverage."""
    root = tmp_path / "bench"
    write_eval_benchmark(root)
    _training_graph(ctx.graph)  # before the benchmark, so its tasks link to these occupations
    result = load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(root=root, name="eval-sample"))
    assert (result.tasks, result.gold, result.occupation_links) == (4, 4, 4)
    return root


# -- chat endpoints ---------------------------------------------------------------------------------

def scripted_candidates(request: RecordedRequest) -> Reply:
    """A weak agent: under CAREFUL it reads the CSV and writes a wrong total; under TERSE, one text line."""
    system = request.messages[0]["content"]
    tools_seen = sum(m["role"] == "tool" for m in request.messages)
    if TERSE in system:
        return text("Total: 5.00")
    path = re.search(r"- (reference_files/\S+)", request.messages[1]["content"])
    assert path is not None
    if tools_seen == 0:
        return tool_call("read_file", {"path": path.group(1)})
    if tools_seen == 1:
        return tool_call("write_file", {"path": "answer.md", "content": "Total: 1.00\n"})
    return text("answer.md is written.")


def content_judge(totals: dict[str, str]) -> Callable[[RecordedRequest], Reply]:
    """Prefers the response that states the task's correct total; a tie when both or neither do."""
    def answer(request: RecordedRequest) -> Reply:
        prompt = request.messages[-1]["content"]
        wanted = next(v for k, v in totals.items() if k in prompt)
        sides = {n: body for n, _, body in _FENCED.findall(prompt)}
        right = [n for n in ("1", "2") if wanted in sides[n]]
        winner = right[0] if len(right) == 1 else "tie"
        return json_answer({"reasons": f"only response {winner} states {wanted}" if winner != "tie"
                            else "neither response is more correct than the other", "winner": winner})
    return answer


def first_position_judge(request: RecordedRequest) -> Reply:
    return json_answer({"reasons": "Response 1 reads better.", "winner": "1"})


@pytest.fixture
def candidates() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        server.responder = scripted_candidates
        yield server


def _run_args(root: Path, server: ScriptedLLMServer, served: str) -> list[str]:
    return ["eval", "run", "--benchmark", "eval-sample", "--benchmark-dir", str(root),
            "--model", f"careful={server.url}", "--model", f"terse={server.url}", "--model", "gold=oracle",
            "--system-prompt", f"careful={CAREFUL}", "--system-prompt", f"terse={TERSE}",
            "--served-model", f"careful={served}", "--served-model", f"terse={served}", "--max-steps", "6",
            "--final-write-tokens", "700", "--json"]


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


def _cypher(graph: Graph, query: str, **params: object) -> list[dict[str, object]]:
    return [r.data() for r in graph.driver.execute_query(query, **params).records]


# -- the chain ------------------------------------------------------------------------------------------

def test_eval_chain_ranks_the_oracle_first_and_reproduces_elo_from_stored_judgments(
        benchmark: Path, ctx: StageContext, candidates: ScriptedLLMServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    served = f"candidate-{uuid.uuid4().hex[:8]}"  # a fresh model name keeps earlier runs' cache entries apart
    assert main(_run_args(benchmark, candidates, served)) == 0
    run = _json(capsys)
    assert (run["completed"], run["errors"], run["skipped"]) == (12, 0, [])
    attempts = _cypher(ctx.graph, "MATCH (a:Attempt)-[:ON_TASK]->(t:BenchmarkTask), (a)-[:BY]->(p:Player) "
                                  "RETURN a.player AS player, t.task_id AS task, a.has_output AS out, "
                                  "a.rendered AS rendered, a.messages_json AS messages, "
                                  "a.agent_json AS agent")
    assert len(attempts) == 12 and all(a["out"] for a in attempts)
    # Each chat attempt records the agent settings it ran with; the oracle's runs none.
    assert {a["agent"] for a in attempts if a["player"] == "gold"} == {""}
    agents = [json.loads(str(a["agent"])) for a in attempts if a["player"] != "gold"]
    assert [{k: agent[k] for k in ("final_write", "final_write_tokens", "held_turns", "max_read_chars",
                                   "max_steps", "max_tokens", "temperature")} for agent in agents] == 8 * [
        {"final_write": "off", "final_write_tokens": 700, "held_turns": False, "max_read_chars": 20_000,
         "max_steps": 6, "max_tokens": None, "temperature": None}]
    assert {agent["limits"]["wall_s"] for agent in agents} == {60.0}  # the sandbox limits too (the default)
    totals = correct_totals(benchmark)
    assert all(any(t in a["rendered"] for t in totals.values()) for a in attempts if a["player"] == "gold")
    # Each chat player's requests carried its own system prompt (and the Attempt records that prompt).
    systems = {r.messages[0]["content"] for r in candidates.chat_requests}
    assert systems == {CAREFUL, TERSE}
    assert {json.loads(str(a["messages"]))[0]["content"] for a in attempts if a["player"] != "gold"} == \
        {CAREFUL, TERSE}
    # Hidden information stays hidden: no agent request carries the expert's file or answer.
    assert not any(t in json.dumps(r.body) for r in candidates.chat_requests for t in totals.values())

    # Resumed: nothing left to run, no new request.
    before = len(candidates.chat_requests)
    assert main(_run_args(benchmark, candidates, served)) == 0
    assert len(_json(capsys)["skipped"]) == 12 and len(candidates.chat_requests) == before

    comparisons = tmp_path / "comparisons.jsonl"
    judge_model = f"judge-{uuid.uuid4().hex[:8]}"
    with ScriptedLLMServer() as judge:
        judge.responder = content_judge(totals)
        compare = ["eval", "compare", "--benchmark", "eval-sample", "--out", str(comparisons),
                   "--judge", f"content-judge={judge.url}", "--judge-model", judge_model, "--json"]
        assert main(compare) == 0
        result = _json(capsys)
        assert (result["pairs"], result["judged"], result["reused"], result["unjudged"]) == (12, 12, 0, [])
        assert result["consistency"] == 1.0
        assert len(judge.chat_requests) == 24  # every pair asked in both orders
        first_bytes = comparisons.read_bytes()
        # Again, with a judge that would fail every call: the file comes back from the stored judgments.
        judge.responder = lambda request: Reply(status=400, error="judge must not be asked again")
        comparisons.unlink()
        assert main(compare) == 0
        again = _json(capsys)
        assert (again["judged"], again["reused"], again["llm_calls"]) == (0, 12, 0)
        assert comparisons.read_bytes() == first_bytes

    stored = _cypher(ctx.graph, "MATCH (j:PairJudgment {judge: 'content-judge'}) RETURN j.winner AS winner, "
                                "j.reasons_ab AS ra, j.reasons_ba AS rb, j.prompt_hash_ab AS ha, "
                                "j.prompt_hash_ba AS hb, j.consistent AS consistent, j.player_a AS a, "
                                "j.player_b AS b, j.task_key AS task")
    assert len(stored) == 12
    assert all(j["ra"] and j["rb"] and j["ha"] and j["hb"] and j["ha"] != j["hb"] for j in stored)
    rows = [json.loads(line) for line in first_bytes.decode().splitlines()]
    assert sorted((r["task_id"], r["model_a"], r["model_b"], r["winner"]) for r in rows) == sorted(
        (str(j["task"]).split(":")[1], j["a"], j["b"], j["winner"]) for j in stored)
    # The oracle holds every correct total: it wins every pair it is in.
    assert all(r["winner"] == ("a" if r["model_a"] == "gold" else "b") for r in rows
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
        assert set(split["covered_tasks"]) == expected, level
        groups = {r["group"]: r["comparisons"] for r in split["winrate"]["rows"]}
        assert groups == {"overall": 4, "covered=true": len(expected), "covered=false": 4 - len(expected)}


def test_a_judge_that_always_prefers_the_first_position_fails_the_comparison(
        benchmark: Path, ctx: StageContext, candidates: ScriptedLLMServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    served = f"candidate-{uuid.uuid4().hex[:8]}"
    assert main(_run_args(benchmark, candidates, served)) == 0
    capsys.readouterr()
    out = tmp_path / "biased.jsonl"
    with ScriptedLLMServer() as judge:
        judge.responder = first_position_judge
        settings = ctx.settings.model_copy(update={"home": tmp_path / "home"})  # a cache of its own
        params = eval_compare.EvalCompareParams(
            benchmark="eval-sample", out=out,
            judge=eval_compare.JudgeSpec(name="biased", base_url=judge.url, served_model="biased-judge"))
        with pytest.raises(eval_compare.PositionBiasError) as caught:
            eval_compare.run(StageContext(settings=settings, graph=ctx.graph, run_id="t"), params)
        result = caught.value.result
        assert (result.judged, result.consistency, result.first_position_rate) == (12, 0.0, 1.0)
        assert result.ties == 12  # no verdict survives the swap
        # The CLI says so on one line and exits 1.
        assert main(["eval", "compare", "--benchmark", "eval-sample", "--out", str(out), "--judge",
                     f"biased={judge.url}", "--judge-model", "biased-judge"]) == 1
        assert "position-swap consistency 0.00" in capsys.readouterr().err
    flagged = _cypher(ctx.graph, "MATCH (j:PairJudgment {judge: 'biased'}) RETURN j.consistent AS c")
    assert len(flagged) == 12 and not any(j["c"] for j in flagged)


def test_imported_runs_play_against_the_oracle_and_tasks_without_a_run_are_reported(
        benchmark: Path, ctx: StageContext, tmp_path: Path) -> None:
    from graphforge.eval.players import build_players
    from graphforge.stages import eval_run

    logs = tmp_path / "codex-like"
    logs.mkdir()
    totals = correct_totals(benchmark)
    right = next(iter(totals.values()))  # ev-01's correct total (its occupation is listed first)
    (logs / "ev01.md").write_text(f"{right}\n", encoding="utf-8")
    (logs / "ev02.md").write_text("Total: 2.00\n", encoding="utf-8")
    records = [{"id": f"run-{sid}", "spec_id": sid, "model": "teacher-x", "deliverables": [name],
                "messages": [{"role": "user", "content": "task"}, {"role": "assistant", "content": "Done."}]}
               for sid, name in (("ev-01", "ev01.md"), ("ev-02", "ev02.md"))]
    (logs / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    players = build_players(["teacher=import:openai:" + str(logs / "runs.jsonl"), "gold=oracle"],
                            import_formats=["openai"])
    settings = ctx.settings.model_copy(update={"home": tmp_path / "home"})
    local = StageContext(settings=settings, graph=ctx.graph, run_id="t")
    result = eval_run.run(local, eval_run.EvalRunParams(benchmark="eval-sample", players=players,
                                                        benchmark_dir=benchmark))
    status = {(a.player, a.task_id): (a.status, a.stop_reason) for a in result.attempts}
    assert status[("teacher", "ev-03")] == ("error", "no imported trajectory has spec_id 'ev-03'")
    assert status[("teacher", "ev-01")][0] == status[("gold", "ev-04")][0] == "completed"
    assert (result.completed, result.errors) == (6, 2)

    with ScriptedLLMServer() as judge:
        judge.responder = content_judge(totals)
        out = tmp_path / "cmp.csv"
        compared = eval_compare.run(local, eval_compare.EvalCompareParams(
            benchmark="eval-sample", out=out,
            judge=eval_compare.JudgeSpec(name="content", base_url=judge.url, served_model="j")))
    assert (compared.pairs, compared.judged, compared.consistency) == (2, 2, 1.0)
    assert compared.not_compared == ["ev-03: teacher", "ev-04: teacher"]
    rows = sorted(out.read_text(encoding="utf-8").splitlines()[1:])
    # ev-01: both state the right total (a tie); ev-02: only the expert does.
    assert [r.split(",")[:4] for r in rows] == [["ev-01", "gold", "teacher", "tie"],
                                                 ["ev-02", "gold", "teacher", "a"]]


def test_failed_attempts_are_retried_on_resume_and_completed_ones_are_kept(
        benchmark: Path, ctx: StageContext, candidates: ScriptedLLMServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    def terse_refused(request: RecordedRequest) -> Reply:
        if TERSE in request.messages[0]["content"]:
            return Reply(status=400, error="model overloaded: request refused")
        return scripted_candidates(request)

    candidates.responder = terse_refused
    served = f"candidate-{uuid.uuid4().hex[:8]}"
    assert main(_run_args(benchmark, candidates, served)) == 0
    first = _json(capsys)
    errors = sorted(a["task_id"] for a in first["attempts"] if a["status"] == "error")  # type: ignore[index]
    assert (first["completed"], first["errors"], errors) == (8, 4, ["ev-01", "ev-02", "ev-03", "ev-04"])
    assert all("HTTP 400" in a["stop_reason"] for a in first["attempts"] if a["status"] == "error")  # type: ignore[index]
    candidates.responder = scripted_candidates
    asked = len(candidates.chat_requests)
    assert main(_run_args(benchmark, candidates, served)) == 0
    second = _json(capsys)
    assert (len(second["skipped"]), second["completed"], second["errors"]) == (8, 4, 0)
    assert {a["player"] for a in second["attempts"]} == {"terse"}  # type: ignore[index]
    assert len(candidates.chat_requests) - asked == 4  # one answer per terse attempt, nothing else re-run
