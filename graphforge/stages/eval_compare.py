"""Judge the attempts at a benchmark's tasks pairwise, both orders, and write the comparisons file.

Every pair of players on every task is judged by a chat model twice, with the positions swapped; the
pair's outcome is the verdict both orders agree on, else a tie. An attempt with no deliverable loses
to one with a deliverable without a judge call (two empty attempts tie). Each judgment is stored with
both verdicts, reasons and prompt hashes; stored judgments are reused, so a repeated comparison writes
the same comparisons file with no new call. A judge whose verdicts follow the position rather than the
content (swap consistency below ``min_consistency``) fails the stage after its judgments are stored.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import ConfigError, GraphforgeError, JudgeError, StageError
from graphforge.eval import pairwise as pw
from graphforge.eval.players import check_name, public_endpoint
from graphforge.graphdb import cypher
from graphforge.llm import CallTotals, LLMCallRecord, OpenAICompatibleChatModel, aask_structured
from graphforge.models.base import Row

GET_ATTEMPTS_TO_COMPARE = cypher.load("eval/get_attempts_to_compare")
GET_PAIR_JUDGMENTS = cypher.load("eval/get_pair_judgments")
GET_TASK_REFERENCES = cypher.load("eval/get_task_references")
MERGE_PAIR_JUDGMENTS = cypher.load("eval/merge_pair_judgments")
# A verdict is a short JSON object: a cap keeps a rambling judge from holding the endpoint for minutes
# (GRAPHFORGE_LLM_MAX_TOKENS overrides it).
JUDGE_MAX_TOKENS = 512


class JudgeSpec(BaseModel):
    """The chat model that judges: a name (part of every judgment's key) and its endpoint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    base_url: str
    served_model: str
    api_key_env: str | None = None


class EvalCompareParams(BaseModel):
    """Options of the eval_compare stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str
    out: Path = Field(description="The comparisons file (.jsonl or .csv).")
    judge: JudgeSpec | None = Field(None, description="None: the configured chat model (GRAPHFORGE_LLM_*).")
    players: list[str] | None = Field(None, description="None: every player with completed attempts.")
    concurrency: int = Field(4, ge=1, le=256)
    min_consistency: float = Field(0.6, ge=0, le=1)


class AttemptView(BaseModel):
    task_key: str
    task_id: str
    prompt: str
    occupation: str | None
    sector: str | None
    attempt_id: str
    player: str
    content_hash: str
    rendered: str
    has_output: bool


class PairJudgmentRow(Row):
    judgment_id: str
    task_key: str
    judge: str
    judge_model: str
    player_a: str
    player_b: str
    attempt_a: str
    attempt_b: str
    winner: str  # a | b | tie
    consistent: bool | None  # None when decided by rule (no model verdict)
    rule: str | None  # "missing-deliverable" when no judge was asked
    verdict_ab: str | None  # the raw verdict ("1" | "2" | "tie") with a shown first
    verdict_ba: str | None  # ... with b shown first
    reasons_ab: str | None
    reasons_ba: str | None
    prompt_hash_ab: str | None
    prompt_hash_ba: str | None
    prompt_version: str
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


class StoredJudgment(BaseModel):
    judgment_id: str
    winner: str
    verdict_ab: str | None
    verdict_ba: str | None
    consistent: bool | None
    rule: str | None


class EvalCompareResult(BaseModel):
    """What the eval_compare stage did."""

    benchmark: str
    judge: str
    judge_model: str
    players: list[str]
    tasks: int
    pairs: int
    reused: int  # judged before (no call)
    judged: int  # judged now by the model
    by_rule: int  # decided without the model (a side with no deliverable)
    unjudged: list[str]  # "task_id a vs b: reason" (the judge gave no verdict; retried next run)
    not_compared: list[str]  # "task_id: player" without a completed attempt (see `eval run`)
    ties: int
    consistency: float | None  # share of model-judged pairs whose two orders agree
    first_position_rate: float | None  # share of decisive single verdicts that chose position 1
    min_consistency: float
    comparisons: str  # the comparisons file written
    llm_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


class PositionBiasError(JudgeError):
    """The judge's verdicts follow the order of the responses more than their content."""

    def __init__(self, result: EvalCompareResult) -> None:
        first = "n/a" if result.first_position_rate is None else f"{result.first_position_rate:.0%}"
        super().__init__(
            f"position-swap consistency {result.consistency:.2f} is below {result.min_consistency:.2f} "
            f"(the judge chose the first position in {first} of its decisive verdicts): "
            f"its judgments are stored and {result.comparisons} is written, but they should not be trusted"
        )
        self.result = result


def run(ctx: StageContext, params: EvalCompareParams) -> EvalCompareResult:
    """Judge every pair of players' attempts at each task in both orders (missing deliverables decided by
    rule), store the judgments and write the comparisons file."""
    llm, judge_name = _judge_model(ctx, params.judge)
    rows = ctx.graph.read(
        GET_ATTEMPTS_TO_COMPARE, AttemptView, benchmark=params.benchmark, players=params.players
    )
    by_task: dict[str, list[AttemptView]] = {}
    for r in rows:
        by_task.setdefault(r.task_key, []).append(r)
    players = sorted({r.player for r in rows})
    if len(players) < 2:
        raise StageError(
            "eval compare",
            f"benchmark {params.benchmark!r} has completed attempts by "
            f"{len(players)} player(s) ({', '.join(players) or 'none'}); run `eval run` with two or "
            "more players first",
        )
    pairs = []
    for task_key in sorted(by_task):
        for a, b in itertools.combinations(sorted(by_task[task_key], key=lambda x: x.player), 2):
            pairs.append(
                (
                    pw.judgment_id(
                        judge_name, (a.attempt_id, a.content_hash), (b.attempt_id, b.content_hash)
                    ),
                    a,
                    b,
                )
            )
    stored = {
        j.judgment_id: j
        for j in ctx.graph.read(GET_PAIR_JUDGMENTS, StoredJudgment, judgment_ids=[p[0] for p in pairs])
    }
    todo = [p for p in pairs if p[0] not in stored]
    new_rows: list[PairJudgmentRow] = []
    records: list[LLMCallRecord] = []
    unjudged: list[str] = []
    by_rule = [(p, outcome) for p in todo
               if (outcome := pw.rule_outcome(p[1].has_output, p[2].has_output)) is not None]
    for (jid, a, b), outcome in by_rule:
        new_rows.append(_row(jid, a, b, judge_name, llm.model, outcome, None, rule="missing-deliverable"))
    if by_rule:
        ctx.graph.write(MERGE_PAIR_JUDGMENTS, new_rows)
    to_ask = [p for p in todo if pw.rule_outcome(p[1].has_output, p[2].has_output) is None]
    if to_ask:
        references = _references(ctx, sorted({a.task_key for _, a, _ in to_ask}))
        asked = asyncio.run(_judge_all(ctx, llm, judge_name, to_ask, references, params.concurrency))
        for row, recs, problem in asked:
            records.extend(recs)
            if row is not None:
                new_rows.append(row)
            else:
                unjudged.append(problem)
    for row in new_rows:
        stored[row.judgment_id] = StoredJudgment.model_validate(row.model_dump())
    done = [(jid, a, b) for jid, a, b in pairs if jid in stored]
    path = write_comparisons(
        params.out, params.benchmark, judge_name, [(stored[jid], a, b) for jid, a, b in done]
    )
    model_judged = [stored[jid] for jid, *_ in done if stored[jid].rule is None]
    stats = pw.swap_stats(
        [(j.verdict_ab or "tie", j.verdict_ba or "tie", bool(j.consistent)) for j in model_judged]
    )
    totals = CallTotals.of(records)
    result = EvalCompareResult(
        benchmark=params.benchmark,
        judge=judge_name,
        judge_model=llm.model,
        players=players,
        tasks=len(by_task),
        pairs=len(pairs),
        reused=len(pairs) - len(todo),
        judged=sum(r.rule is None for r in new_rows),
        by_rule=len(by_rule),
        not_compared=sorted(
            f"{task[0].task_id}: {p}"
            for task in by_task.values()
            for p in sorted(set(players) - {x.player for x in task})
        ),
        unjudged=sorted(unjudged),
        ties=sum(stored[jid].winner == "tie" for jid, *_ in done),
        consistency=stats.consistency,
        first_position_rate=stats.first_position_rate,
        min_consistency=params.min_consistency,
        comparisons=str(path),
        llm_calls=len(records),
        cached_calls=sum(r.cached for r in records),
        prompt_tokens=totals.input_tokens,
        completion_tokens=totals.output_tokens,
        cost_usd=round(totals.cost_usd, 8),
    )
    if stats.consistency is not None and stats.consistency < params.min_consistency:
        raise PositionBiasError(result)
    return result


def _judge_model(ctx: StageContext, judge: JudgeSpec | None) -> tuple[OpenAICompatibleChatModel, str]:
    import os

    from pydantic import SecretStr

    from graphforge.llm import chat_model

    settings = ctx.settings
    if judge is None:
        llm = chat_model(settings, temperature=0.0, max_tokens=settings.llm_max_tokens or JUDGE_MAX_TOKENS)
        if llm is None:
            raise ConfigError(
                "no judge: pass --judge NAME=URL (with --judge-model) or set GRAPHFORGE_LLM_BASE_URL "
                "and GRAPHFORGE_LLM_MODEL"
            )
        return llm, check_name(settings.llm_model or llm.model, "judge")
    key = None
    if judge.api_key_env:
        value = os.environ.get(judge.api_key_env)
        if not value:
            raise ConfigError(f"--judge-api-key-env: environment variable {judge.api_key_env} is unset")
        key = SecretStr(value)
    elif settings.llm_base_url and settings.llm_base_url.rstrip("/") == judge.base_url.rstrip("/"):
        key = settings.llm_api_key
    llm = OpenAICompatibleChatModel(
        base_url=judge.base_url,
        model=judge.served_model,
        api_key=key,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        concurrency=settings.llm_concurrency,
        cost_per_1k_input=settings.llm_cost_per_1k_input,
        cost_per_1k_output=settings.llm_cost_per_1k_output,
        cache_dir=settings.home / "llm-cache",
        temperature=0.0,
        max_tokens=settings.llm_max_tokens or JUDGE_MAX_TOKENS,
    )
    return llm, check_name(judge.name, "judge")


def _references(ctx: StageContext, task_keys: list[str]) -> dict[str, str]:
    """Each task's reference files as one text (path headers, parsed text), in path order."""
    out: dict[str, list[str]] = {}
    for r in ctx.graph.read_dicts(GET_TASK_REFERENCES, task_keys=task_keys):
        out.setdefault(str(r["task_key"]), []).append(f"=== {r['path']} ===\n{r['text']}")
    return {k: "\n\n".join(v) for k, v in out.items()}


async def _judge_all(
    ctx: StageContext,
    llm: OpenAICompatibleChatModel,
    judge_name: str,
    pairs: list[tuple[str, AttemptView, AttemptView]],
    references: dict[str, str],
    concurrency: int,
) -> list[tuple[PairJudgmentRow | None, list[LLMCallRecord], str]]:
    gate = asyncio.Semaphore(concurrency)
    key = llm.api_key.get_secret_value() if llm.api_key is not None else ""
    secrets = (key,) if key else ()

    async def ask(
        a_first: bool, a: AttemptView, b: AttemptView
    ) -> tuple[pw.PairVerdict, list[LLMCallRecord]]:
        first, second = (a, b) if a_first else (b, a)
        messages = pw.build_messages(
            a.prompt, first.rendered, second.rendered, references.get(a.task_key, ""), secrets
        )
        answer = await aask_structured(llm, pw.PairVerdict, messages)
        return answer.value, answer.records

    async def one(
        jid: str, a: AttemptView, b: AttemptView
    ) -> tuple[PairJudgmentRow | None, list[LLMCallRecord], str]:
        async with gate:
            try:
                (ab, rec_ab), (ba, rec_ba) = await asyncio.gather(ask(True, a, b), ask(False, a, b))
            except GraphforgeError as exc:
                problem = pw.clean_reasons(str(exc), secrets)[:300]
                return None, [], f"{a.task_id} {a.player} vs {b.player}: {problem}"
        row = _row(jid, a, b, judge_name, llm.model, None, (ab, ba, rec_ab, rec_ba), secrets=secrets)
        # Stored as each pair finishes: an interrupted comparison keeps what was judged (resumable).
        await asyncio.to_thread(ctx.graph.write, MERGE_PAIR_JUDGMENTS, [row])
        return row, rec_ab + rec_ba, ""

    return list(await asyncio.gather(*(one(*p) for p in pairs)))


def _row(
    jid: str,
    a: AttemptView,
    b: AttemptView,
    judge: str,
    judge_model: str,
    outcome: str | None,
    asked: tuple[pw.PairVerdict, pw.PairVerdict, list[LLMCallRecord], list[LLMCallRecord]] | None,
    rule: str | None = None,
    secrets: tuple[str, ...] = (),
) -> PairJudgmentRow:
    common = dict(
        judgment_id=jid,
        task_key=a.task_key,
        judge=judge,
        judge_model=judge_model,
        player_a=a.player,
        player_b=b.player,
        attempt_a=a.attempt_id,
        attempt_b=b.attempt_id,
        prompt_version=pw.PROMPT_VERSION,
    )
    if asked is None:
        if outcome is None:
            raise StageError("eval_compare", f"pair {jid}: neither a rule's outcome nor the judge's verdicts")
        return PairJudgmentRow(
            **common,
            winner=outcome,
            consistent=None,
            rule=rule,
            verdict_ab=None,
            verdict_ba=None,
            reasons_ab=None,
            reasons_ba=None,
            prompt_hash_ab=None,
            prompt_hash_ba=None,
            llm_calls=0,
            prompt_tokens=0,
            completion_tokens=0,
        )
    ab, ba, rec_ab, rec_ba = asked
    winner, consistent = pw.combine(
        pw.canonical(ab.winner, a_first=True), pw.canonical(ba.winner, a_first=False)
    )
    records = rec_ab + rec_ba
    return PairJudgmentRow(
        **common,
        winner=winner,
        consistent=consistent,
        rule=None,
        verdict_ab=ab.winner,
        verdict_ba=ba.winner,
        reasons_ab=pw.clean_reasons(ab.reasons, secrets),
        reasons_ba=pw.clean_reasons(ba.reasons, secrets),
        # The first call's hash names the prompt (a repair turn, if any, follows from it).
        prompt_hash_ab=rec_ab[0].prompt_hash if rec_ab else None,
        prompt_hash_ba=rec_ba[0].prompt_hash if rec_ba else None,
        llm_calls=len(records),
        prompt_tokens=sum(r.input_tokens for r in records),
        completion_tokens=sum(r.output_tokens for r in records),
    )


def write_comparisons(
    out: Path, benchmark: str, judge: str, judged: list[tuple[StoredJudgment, AttemptView, AttemptView]]
) -> Path:
    """The comparisons file (the format `eval elo` and `eval winrate` read), rows in a stable order."""
    rows = [
        {
            "task_id": a.task_id,
            "model_a": a.player,
            "model_b": b.player,
            "winner": j.winner,
            "benchmark": benchmark,
            "judge": judge,
            "occupation": a.occupation or "",
            "sector": a.sector or "",
            "decided_by": j.rule or "judge",
            "judgment_id": j.judgment_id,
        }
        for j, a, b in sorted(judged, key=lambda x: (x[1].task_id, x[1].player, x[2].player))
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".csv":
        import polars as pl

        pl.DataFrame(rows, schema=list(rows[0]) if rows else None).write_csv(out)
    else:
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return out


def judge_spec(value: str, served_model: str | None, api_key_env: str | None) -> JudgeSpec:
    """``--judge NAME=URL`` as a JudgeSpec (the served model id is required for a named endpoint)."""
    name, sep, url = value.partition("=")
    if not sep or not url.strip().startswith(("http://", "https://")):
        raise ConfigError(f"--judge takes NAME=URL (an OpenAI-compatible endpoint), got {value!r}")
    if not served_model:
        raise ConfigError(
            f"--judge {name}: name the model the endpoint serves with --judge-model "
            f"({public_endpoint(url.strip())})"
        )
    return JudgeSpec(
        name=check_name(name.strip(), "judge"),
        base_url=url.strip(),
        served_model=served_model,
        api_key_env=api_key_env,
    )
