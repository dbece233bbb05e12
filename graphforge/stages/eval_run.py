"""Run evaluation players on a loaded benchmark's tasks and store each result as an Attempt.

Chat players work each task with the built-in agent loop (sandboxed tools) in a fresh copy of the
task's reference files; the oracle plays the benchmark's expert deliverables; imported players bring
trajectories another scaffold produced. Attempts are saved as each finishes, so an interrupted run
resumes where it stopped; a completed attempt is not run again unless ``force``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from graphforge.agent.loop import (
    AgentConfig,
    RolloutOutcome,
    arun_rollout,
    dropped_note,
    run_dir_name,
    told_note,
)
from graphforge.agent.sandbox import SandboxLimits
from graphforge.context import StageContext
from graphforge.errors import ConfigError, GraphforgeError, StageError
from graphforge.eval import attempts as at
from graphforge.eval.players import ORACLE_MODEL, PlayerKind, PlayerSpec, public_endpoint
from graphforge.graphdb import cypher
from graphforge.llm.protocol import completions_url
from graphforge.models.benchmark import FinalWrite
from graphforge.models.trajectory import DeliverableFile, Message, Trajectory

GET_BENCHMARK_TASKS = cypher.load("eval/get_benchmark_tasks")
GET_ATTEMPT_STATES = cypher.load("eval/get_attempt_states")
MERGE_PLAYERS = cypher.load("eval/merge_players")
MERGE_ATTEMPTS = cypher.load("eval/merge_attempts")


class EvalRunParams(BaseModel):
    """Options of the eval_run stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str
    players: list[PlayerSpec] = Field(min_length=1)
    task_ids: list[str] | None = Field(None, description="None: every task of the benchmark.")
    concurrency: int = Field(4, ge=1, le=256,
        description="Attempts at once (HTTP calls are capped by llm_concurrency).")
    max_steps: int = Field(12, ge=1)
    temperature: float | None = None
    max_tokens: int | None = None
    max_read_chars: int = Field(20_000, ge=500,
        description="read_file page size (a fine-tuned player sees the pages its demonstrations had).")
    tool_timeout_s: float = Field(60.0, gt=0)
    memory_mb: int = Field(1024, ge=64)
    benchmark_dir: Path | None = Field(None,
        description="None: the folder recorded when the benchmark was loaded.")
    force: bool = Field(False, description="Run completed attempts again.")
    final_write: FinalWrite = Field(FinalWrite.OFF, description="A chat player that "
        "ends without a deliverable its task names (the record's `deliverables`) is told to write it and "
        "given one turn whose call is forced to write it, by tool_choice or by llama.cpp's grammar (for "
        "models served with the text tool-call template); the names are kept on the attempt (told_to_write).")
    final_write_tokens: int | None = Field(None, ge=1, description="The forced write's reply budget, whose "
        "grammar holds the written string to as many characters (None: max_tokens).")
    held_turns: bool = Field(False, description="Hold every turn of a chat player to prose and at most "
        "one well-formed call whose read_file path is one of the task's files, by llama.cpp's grammar (for "
        "models served with the text tool-call template).")


class BenchmarkTaskView(BaseModel):
    task_key: str
    task_id: str
    prompt: str
    deliverable_text: str | None
    deliverables: list[str] = []  # the file names the task asks for, when its record names them
    source_dir: str
    files: list[str]
    gold: list[str]


class AttemptSummary(BaseModel):
    attempt_id: str
    player: str
    task_id: str
    status: str
    stop_reason: str
    deliverables: list[str]
    steps: int
    tokens: int
    told_to_write: list[str] = Field(default_factory=list)  # deliverables it was told to write at the end
    tool_calls: dict[str, int] = Field(default_factory=dict)  # by tool; "(unreadable)": calls not parsed


class EvalRunResult(BaseModel):
    """What the eval_run stage did."""

    benchmark: str
    tasks: int
    players: list[str]
    skipped: list[str]  # completed before (resumed run)
    attempts: list[AttemptSummary]
    completed: int
    errors: int
    with_output: int
    llm_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


def run(ctx: StageContext, params: EvalRunParams) -> EvalRunResult:
    """Run each player on each benchmark task (chat players with the agent loop, the oracle, imported
    runs) and store every result as an Attempt; completed attempts are kept on re-runs."""
    tasks = ctx.graph.read(
        GET_BENCHMARK_TASKS, BenchmarkTaskView, benchmark=params.benchmark, task_ids=params.task_ids
    )
    if not tasks:
        raise StageError(
            "eval run",
            f"benchmark {params.benchmark!r} has no tasks in the graph"
            + (f" with ids {params.task_ids}" if params.task_ids else "")
            + "; load it first with `graphforge load benchmark`",
        )
    folder = params.benchmark_dir or Path(tasks[0].source_dir)
    if not folder.is_dir():
        raise StageError(
            "eval run", f"benchmark folder {folder} does not exist on this machine; pass --benchmark-dir"
        )
    models = {p.name: _chat_model(ctx, p) for p in params.players if p.kind is PlayerKind.CHAT}
    ctx.graph.write(MERGE_PLAYERS, [_player_row(p, models.get(p.name)) for p in params.players])

    ids = [at.attempt_id(t.task_key, p.name) for t in tasks for p in params.players]
    states = {
        str(r["attempt_id"]): str(r["status"])
        for r in ctx.graph.read_dicts(GET_ATTEMPT_STATES, attempt_ids=ids)
    }
    todo = [
        (t, p)
        for t in tasks
        for p in params.players
        if params.force or states.get(at.attempt_id(t.task_key, p.name)) != at.AttemptStatus.COMPLETED
    ]
    skipped = sorted(set(ids) - {at.attempt_id(t.task_key, p.name) for t, p in todo})
    runs_root = ctx.settings.home / "eval" / "attempts"
    imported = {p.name: _imported(p) for p in params.players if p.kind is PlayerKind.IMPORT}

    rows: list[at.AttemptRow] = []
    chat_jobs = []
    for task, player in todo:
        run_dir = runs_root / run_dir_name(at.attempt_id(task.task_key, player.name))
        if player.kind is PlayerKind.ORACLE:
            rows.append(_oracle_attempt(params.benchmark, task, player, folder, run_dir))
        elif player.kind is PlayerKind.IMPORT:
            rows.append(_imported_attempt(params.benchmark, task, player, imported[player.name], run_dir))
        else:
            chat_jobs.append((task, player, run_dir))
    if rows:
        ctx.graph.write(MERGE_ATTEMPTS, rows)
    config = AgentConfig(
        max_steps=params.max_steps,
        temperature=params.temperature,
        max_tokens=params.max_tokens,
        max_read_chars=params.max_read_chars,
        limits=SandboxLimits(wall_s=params.tool_timeout_s, memory_mb=params.memory_mb),
        final_write=params.final_write,
        final_write_tokens=params.final_write_tokens,
        held_turns=params.held_turns,
    )
    if chat_jobs:
        rows += asyncio.run(
            _run_chat(ctx, params.benchmark, chat_jobs, models, folder, config, params.concurrency)
        )
    return EvalRunResult(
        benchmark=params.benchmark,
        tasks=len(tasks),
        players=[p.name for p in params.players],
        skipped=skipped,
        attempts=[
            AttemptSummary(
                attempt_id=r.attempt_id,
                player=r.player,
                task_id=r.task_id,
                status=r.status,
                stop_reason=r.stop_reason,
                steps=r.steps,
                tokens=r.prompt_tokens + r.completion_tokens,
                deliverables=[d.name for d in _deliverables(r)],
                told_to_write=r.told_to_write,
                tool_calls=at.tool_call_counts(r.messages_json),
            )
            for r in rows
        ],
        completed=sum(r.status == at.AttemptStatus.COMPLETED for r in rows),
        errors=sum(r.status == at.AttemptStatus.ERROR for r in rows),
        with_output=sum(r.has_output for r in rows),
        llm_calls=sum(r.llm_calls for r in rows),
        cached_calls=sum(r.cached_calls for r in rows),
        prompt_tokens=sum(r.prompt_tokens for r in rows),
        completion_tokens=sum(r.completion_tokens for r in rows),
        cost_usd=round(sum(r.cost_usd for r in rows), 8),
    )


def _deliverables(row: at.AttemptRow) -> list[DeliverableFile]:
    return [DeliverableFile.model_validate(d) for d in json.loads(row.deliverables_json)]


# -- chat players ---------------------------------------------------------------------------------------


def _api_key(ctx: StageContext, player: PlayerSpec) -> SecretStr | None:
    """The player's key: its own environment variable, else the configured key for the same endpoint only
    (the configured key is never sent to another host)."""
    if player.api_key_env:
        value = os.environ.get(player.api_key_env)
        if not value:
            raise ConfigError(
                f"--api-key-env {player.name}: environment variable {player.api_key_env} is unset"
            )
        return SecretStr(value)
    settings = ctx.settings
    if (
        settings.llm_base_url
        and player.base_url
        and completions_url(settings.llm_base_url) == completions_url(player.base_url)
    ):
        return settings.llm_api_key
    return None


def served_model(base_url: str, api_key: SecretStr | None, timeout_s: float = 10.0) -> str:
    """The first model id an OpenAI-compatible endpoint lists under /models."""
    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key.get_secret_value()}"} if api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s)
        data = response.json().get("data") or []
        return str(data[0]["id"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ConfigError(
            f"cannot ask {public_endpoint(url)} which model it serves ({type(exc).__name__}); "
            "name it with --served-model NAME=ID"
        ) from exc


def _chat_model(ctx: StageContext, player: PlayerSpec) -> at.PromptedChatModel:
    settings = ctx.settings
    if player.local:
        from graphforge.llm.server import local_model_info

        info = local_model_info(settings)  # a one-line error when `graphforge llm start` has not run
        return at.PromptedChatModel(
            base_url=info.base_url,
            model=info.model,
            api_key=SecretStr(info.api_key),
            max_tokens=settings.llm_max_tokens or info.max_tokens,
            timeout_s=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
            concurrency=settings.llm_concurrency,
            cache_dir=settings.home / "llm-cache",
            system_prompt=player.system_prompt,
        )
    if player.base_url is None:
        raise ConfigError(f"player {player.name!r}: a chat player needs a base URL (or the local model)")
    key = _api_key(ctx, player)
    model = player.served_model
    if (
        model is None
        and settings.llm_base_url
        and settings.llm_model
        and completions_url(settings.llm_base_url) == completions_url(player.base_url)
    ):
        model = settings.llm_model
    model = model or served_model(player.base_url, key)
    return at.PromptedChatModel(
        base_url=player.base_url,
        model=model,
        api_key=key,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        concurrency=settings.llm_concurrency,
        cost_per_1k_input=settings.llm_cost_per_1k_input,
        cost_per_1k_output=settings.llm_cost_per_1k_output,
        cache_dir=settings.home / "llm-cache",
        system_prompt=player.system_prompt,
    )


async def _run_chat(
    ctx: StageContext,
    benchmark: str,
    jobs: list[tuple[BenchmarkTaskView, PlayerSpec, Path]],
    models: dict[str, at.PromptedChatModel],
    folder: Path,
    config: AgentConfig,
    concurrency: int,
) -> list[at.AttemptRow]:
    gate = asyncio.Semaphore(concurrency)
    agent_json = config.as_json()

    async def one(task: BenchmarkTaskView, player: PlayerSpec, run_dir: Path) -> at.AttemptRow:
        async with gate:
            view = at.task_view(task.task_key, task.prompt, task.files)
            before = dict(_reference_hashes(folder, view.files))
            try:
                outcome = await arun_rollout(
                    models[player.name],
                    view,
                    folder,
                    run_dir,
                    config=config,
                    model_name=models[player.name].model,
                    expected=task.deliverables,
                )
            except (GraphforgeError, OSError) as exc:
                # One attempt that cannot run (sandbox, disk) is recorded with its reason; the others go on.
                problem = f"{type(exc).__name__}: {exc}"
                row = _row(
                    benchmark,
                    task,
                    player,
                    models[player.name].model,
                    [],
                    "",
                    [],
                    status=at.AttemptStatus.ERROR,
                    stop_reason=problem,
                    run_dir=run_dir,
                    source=f"{player.scaffold}: {problem}",
                )
            else:
                row = await asyncio.to_thread(
                    _chat_attempt, benchmark, task, player, outcome, before, run_dir
                )
        row = row.model_copy(update={"agent_json": agent_json})
        # Saved as each finishes: an interrupted run keeps its finished attempts (resumable).
        await asyncio.to_thread(ctx.graph.write, MERGE_ATTEMPTS, [row])
        return row

    return list(await asyncio.gather(*(one(*job) for job in jobs)))


def _reference_hashes(folder: Path, files: list[str]) -> list[tuple[str, str]]:
    out = []
    for rel in files:
        path = folder / rel
        if path.is_file():
            out.append((rel, hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


def _chat_attempt(
    benchmark: str,
    task: BenchmarkTaskView,
    player: PlayerSpec,
    outcome: RolloutOutcome,
    before: dict[str, str],
    run_dir: Path,
) -> at.AttemptRow:
    t = outcome.trajectory
    messages = list(t.messages)
    if player.system_prompt is not None and messages and messages[0].role == "system":
        # The loop records its own system prompt; the request carried the player's (PromptedChatModel).
        messages[0] = messages[0].model_copy(update={"content": player.system_prompt})
    failed = outcome.stop_reason.startswith("llm_error")
    written = at.collect_written(run_dir / "work", before, run_dir / "deliverables")
    final = at.final_text_of(messages)
    # The loop was told no file names (benchmark prompts say what to write), so its "no_deliverables"
    # only means it finished; what was written is known from the working folder.
    stop = "finished" if outcome.stop_reason == "no_deliverables" else outcome.stop_reason
    if stop == "finished" and not written:
        stop = "finished without writing a file"
    stop += told_note(outcome.told_to_write) + dropped_note(outcome.dropped_results)
    return _row(
        benchmark,
        task,
        player,
        t.model,
        written,
        final,
        messages,
        status=at.AttemptStatus.ERROR if failed else at.AttemptStatus.COMPLETED,
        stop_reason=stop,
        steps=t.steps,
        prompt_tokens=t.prompt_tokens,
        completion_tokens=t.completion_tokens,
        cost_usd=t.cost_usd,
        llm_calls=len(outcome.records),
        cached_calls=sum(r.cached for r in outcome.records),
        prompt_hashes=[r.prompt_hash for r in outcome.records],
        run_dir=run_dir,
        source=f"{player.scaffold}: {stop}",
        told_to_write=outcome.told_to_write,
    )


# -- the oracle and imported players -------------------------------------------------------------------


def _oracle_attempt(
    benchmark: str, task: BenchmarkTaskView, player: PlayerSpec, folder: Path, run_dir: Path
) -> at.AttemptRow:
    sources = [(rel, folder / rel) for rel in task.gold if (folder / rel).is_file()]
    missing = [rel for rel in task.gold if not (folder / rel).is_file()]
    text = task.deliverable_text or ""
    if not sources and not text:
        reason = (
            "the benchmark has no expert deliverable for this task"
            if not task.gold
            else f"expert deliverables missing on disk: {', '.join(missing)}"
        )
        return _row(
            benchmark,
            task,
            player,
            ORACLE_MODEL,
            [],
            "",
            [],
            status=at.AttemptStatus.ERROR,
            stop_reason=reason,
            run_dir=run_dir,
            source="benchmark expert deliverables",
        )
    files = at.copy_files(sources, run_dir / "deliverables")
    return _row(
        benchmark,
        task,
        player,
        ORACLE_MODEL,
        files,
        text,
        [],
        status=at.AttemptStatus.COMPLETED,
        stop_reason="expert deliverables" + (f" (missing: {', '.join(missing)})" if missing else ""),
        run_dir=run_dir,
        source="benchmark expert deliverables",
    )


def _imported(player: PlayerSpec) -> dict[str, Trajectory]:
    from loaders.trajectories import read_trajectories

    if player.import_path is None or player.import_format is None:
        raise ConfigError(f"player {player.name!r}: an imported player needs a format and a path")
    read = read_trajectories(player.import_path, player.import_format)
    by_task: dict[str, Trajectory] = {}
    for t in read.trajectories:
        if t.spec_id:
            by_task.setdefault(t.spec_id, t)
    return by_task


def _imported_attempt(
    benchmark: str, task: BenchmarkTaskView, player: PlayerSpec, by_task: dict[str, Trajectory], run_dir: Path
) -> at.AttemptRow:
    t = by_task.get(task.task_key) or by_task.get(task.task_id)
    source = f"import:{player.import_format}:{player.import_path}"
    if t is None:
        return _row(
            benchmark,
            task,
            player,
            "unknown",
            [],
            "",
            [],
            status=at.AttemptStatus.ERROR,
            stop_reason=f"no imported trajectory has spec_id {task.task_id!r}",
            run_dir=run_dir,
            source=source,
        )
    present = [(d.name, Path(d.path)) for d in t.deliverables if Path(d.path).is_file()]
    files = at.copy_files(present, run_dir / "deliverables")
    return _row(
        benchmark,
        task,
        player,
        t.model,
        files,
        at.final_text_of(t.messages),
        list(t.messages),
        status=at.AttemptStatus.COMPLETED,
        stop_reason="imported",
        steps=t.steps,
        prompt_tokens=t.prompt_tokens,
        completion_tokens=t.completion_tokens,
        cost_usd=t.cost_usd,
        run_dir=run_dir,
        source=t.source or source,
    )


def _row(
    benchmark: str,
    task: BenchmarkTaskView,
    player: PlayerSpec,
    model: str,
    files: list[DeliverableFile],
    final_text: str,
    messages: list[Message],
    *,
    status: at.AttemptStatus,
    stop_reason: str,
    run_dir: Path,
    source: str,
    steps: int = 0,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    cost_usd: float = 0.0,
    llm_calls: int = 0,
    cached_calls: int = 0,
    prompt_hashes: list[str] | None = None,
    told_to_write: list[str] | None = None,
) -> at.AttemptRow:
    return at.AttemptRow(
        attempt_id=at.attempt_id(task.task_key, player.name),
        task_key=task.task_key,
        benchmark=benchmark,
        task_id=task.task_id,
        player=player.name,
        scaffold=player.scaffold,
        model=model,
        status=status.value,
        stop_reason=stop_reason[:500],
        steps=steps,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=cost_usd,
        llm_calls=llm_calls,
        cached_calls=cached_calls,
        prompt_hashes=prompt_hashes or [],
        final_text=final_text,
        deliverables_json=json.dumps([f.model_dump() for f in files]),
        messages_json=at.messages_json(messages),
        rendered=at.render(files, final_text),
        has_output=bool(files) or bool(final_text.strip()),
        content_hash=at.content_hash(files, final_text),
        run_dir=str(run_dir),
        source=source[:500],
        told_to_write=told_to_write or [],
    )


def _player_row(player: PlayerSpec, model: at.PromptedChatModel | None) -> at.PlayerRow:
    return at.PlayerRow(
        name=player.name,
        kind=player.kind.value,
        scaffold=player.scaffold,
        model=model.model
        if model is not None
        else ORACLE_MODEL
        if player.kind is PlayerKind.ORACLE
        else f"imported ({player.import_format})",
        endpoint=public_endpoint(model.base_url) if model is not None else None,
        system_prompt=player.system_prompt,
        system_prompt_hash=player.system_prompt_hash,
        source=str(player.import_path) if player.import_path else None,
    )
