"""The built-in agent loop: an OpenAI-compatible chat model working a task through file and Python tools."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from graphforge.agent.sandbox import SandboxLimits
from graphforge.agent.tools import TOOL_SCHEMAS, ToolBox, how_to_write, schemas_writing, writing_tool
from graphforge.errors import LLMError
from graphforge.llm import CallTotals, LLMCallRecord, records_of, to_openai
from graphforge.llm.records import LLMHTTPError
from graphforge.llm.text_tools import call_grammar, turn_grammar
from graphforge.models.benchmark import FinalWrite
from graphforge.models.spec import AgentView
from graphforge.models.trajectory import DeliverableFile, Message, Trajectory, TrajectoryStatus

SCAFFOLD = "graphforge-loop"

SYSTEM_PROMPT = """\
You are a careful analyst working on a task with the files of a workspace. Your working directory holds \
those files; use the tools to list and read them, to compute with Python and to write your deliverables.
Rules:
- Base every number on the files. Read the relevant files before writing anything.
- Write each deliverable at the top level of the working directory under exactly the requested name.
- XLSX and DOCX files must be written with run_python (openpyxl / python-docx); keep formulas where the \
task asks for them.
- When the deliverables are written, reply with a short summary and no tool call to finish."""


@dataclass(frozen=True)
class AgentConfig:
    max_steps: int = 30  # assistant turns before the rollout is stopped
    temperature: float | None = None  # None: the server's default
    max_tokens: int | None = None
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    max_read_chars: int = 20_000
    # The same call this many times in a row, failing each time or answered the same each time, stops the
    # rollout ("repeating"): a model that answers an error, or a page it has read, with the same call will
    # not get further, and the turns left cost time, not information (run 11's tuned player read one page
    # of one file seven times over).
    max_repeats: int = 3
    # Whether and how a rollout that stops without one of its expected deliverables is made to write it
    # (see arun_rollout): not at all, by tool_choice, or by llama.cpp's grammar in the text template's form.
    final_write: FinalWrite = FinalWrite.OFF
    # The forced write's reply budget (None: max_tokens). Its grammar holds the written string to this many
    # characters so that the call closes within the budget (a token holds at least one), so a budget sized
    # for turns of prose cuts a deliverable the length of a demonstration's (closed-loop runs 17b to 20: a
    # 1,024-token budget held every forced write to about 990 characters; the training rows write 2,896).
    final_write_tokens: int | None = None
    # Every turn held by llama.cpp's grammar to prose and at most one well-formed call whose read_file path
    # is one of the task's files (graphforge.llm.text_tools.turn_grammar): for models served with the text
    # tool-call template only (other servers ignore or refuse the grammar field).
    held_turns: bool = False

    def as_json(self) -> str:
        """Every setting, the sandbox limits nested, as the JSON an Attempt keeps (``agent_json``)."""
        return json.dumps(asdict(self), sort_keys=True)


@dataclass
class RolloutOutcome:
    """A finished rollout: the trajectory plus what is not stored on it (call records, stop reason)."""

    trajectory: Trajectory
    records: list[LLMCallRecord]
    stop_reason: str  # "finished" | "max_steps" | "repeating" | "llm_error: ..." | "no_deliverables"
    tool_calls: int
    tool_failures: int
    dropped_results: int = 0  # tool results hidden from the model to fit its context (kept in the trajectory)
    told_to_write: list[str] = field(default_factory=list)  # deliverables it was told to write at the end

    @property
    def totals(self) -> CallTotals:
        return CallTotals.of(self.records)


def trajectory_id(spec_id: str, sample_index: int) -> str:
    """Deterministic id of the k-th built-in-loop rollout of a spec (so re-runs resume, not duplicate)."""
    return f"{spec_id}/loop-{sample_index}"


def run_dir_name(trajectory_id: str) -> str:
    """A file-system-safe folder name for a trajectory id (readable prefix, hash for uniqueness)."""
    safe = re.sub(r"[^A-Za-z0-9._@-]+", "_", trajectory_id).strip("_")[:80]
    return f"{safe}-{hashlib.sha256(trajectory_id.encode()).hexdigest()[:8]}"


def task_prompt(view: AgentView) -> str:
    """The user turn: the statement, the file list and the deliverable names, and nothing else."""
    files = "\n".join(f"- {f}" for f in view.files) or "- (none)"
    wanted = "\n".join(f"- {d}" for d in view.deliverables) or "- (see the task)"
    return f"{view.statement}\n\nWorkspace files:\n{files}\n\nDeliverables to write:\n{wanted}"


def prepare_workdir(workspace_dir: Path, view: AgentView, run_dir: Path) -> Path:
    """A fresh working copy of the files the view lists (only those: nothing else of the workspace leaks)."""
    work = run_dir / "work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    root = workspace_dir.resolve()
    for rel in view.files:
        source = (root / rel).resolve()
        if root not in source.parents or not source.is_file():
            continue  # a listed path outside the workspace, or missing on disk: the agent sees it absent
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return work


def collect_deliverables(work: Path, names: list[str], out: Path) -> list[DeliverableFile]:
    """Copy the named deliverables out of the working directory (top level first, else a unique match)."""
    out.mkdir(parents=True, exist_ok=True)
    found: list[DeliverableFile] = []
    for name in names:
        candidate = work / name
        if not candidate.is_file():
            matches = sorted(p for p in work.rglob(Path(name).name) if p.is_file())
            if len(matches) != 1:
                continue
            candidate = matches[0]
        data = candidate.read_bytes()
        target = out / Path(name).name
        target.write_bytes(data)
        found.append(
            DeliverableFile(
                name=name, path=str(target.resolve()), sha256=hashlib.sha256(data).hexdigest(), size=len(data)
            )
        )
    return found


DROPPED = "[output dropped to fit the model's context; call the tool again to see it]"


def dropped_note(count: int) -> str:
    """What a stop reason says of the tool results dropped to fit the context (nothing when none were)."""
    return f" ({count} tool results dropped to fit the context)" if count else ""


def told_note(names: Sequence[str]) -> str:
    """What a stop reason says of the deliverables the rollout was told to write at its end."""
    return f"; then told to write {', '.join(names)}" if names else ""


def _droppable(messages: list[BaseMessage], dropped: set[int]) -> int | None:
    """The oldest tool result still shown, except those answering the last reply (the model needs those)."""
    last_reply = max((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), default=-1)
    older = enumerate(messages[:last_reply])
    return next((i for i, m in older if isinstance(m, ToolMessage) and i not in dropped), None)


def _shown(messages: list[BaseMessage], dropped: set[int]) -> list[BaseMessage]:
    """The conversation as the model is sent it: dropped tool results replaced by a one-line note."""
    return [ToolMessage(DROPPED, tool_call_id=m.tool_call_id) if isinstance(m, ToolMessage) and i in dropped
            else m for i, m in enumerate(messages)]


def _invalid_call_note(bad: Mapping[str, Any]) -> str:
    """What the model is told of a call it wrote that could not be read: which tool (when known) and why."""
    if bad.get("name"):
        return f"ERROR: arguments of {bad['name']} are not valid JSON: {bad.get('error')}"
    return (f"ERROR: a tool call could not be read ({bad.get('error')}); write each call as one JSON object "
            '{"name": ..., "arguments": {...}} with every string closed')


def final_write_note(name: str, statement: str = "") -> str:
    """The user turn that tells a rollout which ended without a deliverable to write it now.

    The task's own line about the deliverable (the first line of the statement that names it and says more
    than the name: its layout, sections, sheets) is quoted, so the model that writes it sees what it must
    hold right where it writes, not only many turns back or, past its context, nowhere.
    """
    named = re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w-])")  # not inside another file's name
    asked = next((line.strip() for line in statement.splitlines()
                  if named.search(line) and line.strip(" -*:\t") != name), "")
    quoted = f' The task asks: "{asked[:400]}"' if asked else ""
    return (f"{name} is not written yet.{quoted} Write it now with {how_to_write(name)}, "
            "from what you have read.")


def _message(m: BaseMessage) -> Message:
    return Message.model_validate({k: v for k, v in to_openai(m).items() if v is not None or k == "content"})


async def arun_rollout(
    llm: BaseChatModel,
    view: AgentView,
    workspace_dir: Path,
    run_dir: Path,
    *,
    sample_index: int = 0,
    config: AgentConfig | None = None,
    model_name: str | None = None,
    expected: Sequence[str] = (),
) -> RolloutOutcome:
    """Run one rollout of ``view`` with ``llm``; the deliverables land in ``run_dir / "deliverables"``.

    The sample index is sent as the request seed: it makes the K samples of one spec differ on
    servers that honour seeds, and keeps each sample's cache entries apart.

    ``expected`` names deliverables a rollout must not end without when ``config.final_write`` is on:
    when it stops (finished, out of turns, repeating) with one of them unwritten, it is told so in a user
    turn and given one more turn whose call is forced - write_file with the path fixed to that name, or
    run_python for XLSX, DOCX and PPTX - by ``tool_choice`` or by a grammar. The turns count as steps and
    the names are kept in ``told_to_write``.
    """
    config = config or AgentConfig()
    tid = trajectory_id(view.spec_id, sample_index)
    work = prepare_workdir(workspace_dir, view, run_dir)
    tools = ToolBox(work, limits=config.limits, max_read_chars=config.max_read_chars,
                    deliverables=tuple(view.deliverables))
    # "auto" said explicitly: OpenAI's default when tools are offered, but llama-cpp-python's server
    # reads a missing tool_choice as "none" and renders the prompt without the tools.
    bound = llm.bind_tools(TOOL_SCHEMAS, tool_choice="auto")
    params: dict[str, Any] = {"seed": sample_index}
    if config.temperature is not None:
        params["temperature"] = config.temperature
    if config.max_tokens is not None:
        params["max_tokens"] = config.max_tokens
    messages: list[BaseMessage] = [SystemMessage(SYSTEM_PROMPT), HumanMessage(task_prompt(view))]
    records: list[LLMCallRecord] = []
    steps, stop = 0, "max_steps"
    last: tuple[str, str, bool, str | None] | None = None  # the last call: name, arguments, ok, its result
    repeats = 0
    first_pages: set[str] = set()  # files whose first page a read_file call returned
    # A conversation past the served context is refused (HTTP 400): the oldest tool results are then sent
    # as a one-line note, one more per refusal, as long as older ones remain. The trajectory keeps them all.
    dropped: set[int] = set()

    async def ask(model: Any, **extra: Any) -> AIMessage | None:
        """One reply; a conversation past the served context is resent with its oldest result dropped."""
        nonlocal stop
        while True:
            try:
                reply = await model.ainvoke(_shown(messages, dropped), **{**params, **extra})
            except LLMError as exc:
                overflow = isinstance(exc, LLMHTTPError) and exc.context_overflow
                oldest = _droppable(messages, dropped) if overflow else None
                if oldest is not None:
                    dropped.add(oldest)
                    continue
                stop = f"llm_error: {exc}"
                return None
            if not isinstance(reply, AIMessage):
                raise LLMError(f"the chat model answered with a {type(reply).__name__}, not an AIMessage")
            records.extend(records_of(reply))
            messages.append(reply)
            return reply

    async def carry_out(reply: AIMessage) -> None:
        """Run the reply's calls and answer each, unreadable ones with why; track repeats."""
        nonlocal last, repeats
        for call in reply.tool_calls:
            # Tools block (subprocesses, parsing): keep the event loop free for the other rollouts.
            result, ok = await asyncio.to_thread(tools.call, call["name"], call["args"])
            messages.append(ToolMessage(result, tool_call_id=call.get("id") or ""))
            if ok and call["name"] == "read_file" and not call["args"].get("offset"):
                first_pages.add(str(call["args"].get("path")))  # a held turn reads it again past this page
            # A failure repeats whatever its message; a success only with the same result.
            args = json.dumps(call["args"], sort_keys=True, default=str)
            this = (call["name"], args, ok, result if ok else None)
            repeats = repeats + 1 if this == last else 1
            last = this
        for bad in reply.invalid_tool_calls:
            tools.calls += 1
            tools.failures += 1
            messages.append(ToolMessage(_invalid_call_note(bad), tool_call_id=bad.get("id") or ""))

    while steps < config.max_steps:
        held = {"grammar": turn_grammar(view.files, config.max_tokens, first_pages)
                } if config.held_turns else {}
        reply = await ask(bound, **held)
        if reply is None:
            break
        steps += 1
        if not reply.tool_calls and not reply.invalid_tool_calls:
            stop = "finished"
            break
        await carry_out(reply)
        if config.max_repeats and repeats >= config.max_repeats:
            stop = "repeating"
            break
    told: list[str] = []
    budget = config.final_write_tokens or config.max_tokens
    sized = {"max_tokens": budget} if budget is not None else {}
    for name in expected if config.final_write is not FinalWrite.OFF else ():
        if stop.startswith("llm_error") or (work / name).is_file():
            continue
        told.append(name)
        messages.append(HumanMessage(final_write_note(name, view.statement)))
        tool = writing_tool(name)
        if config.final_write is FinalWrite.GRAMMAR:
            fixed, free = ({"path": name}, "content") if tool == "write_file" else ({}, "code")
            as_json = tool == "write_file" and PurePosixPath(name).suffix.lower() == ".json"
            reply = await ask(bound, grammar=call_grammar(tool, fixed, free, budget, as_json), **sized)
        else:
            reply = await ask(llm.bind_tools(schemas_writing(name), tool_choice=tool), **sized)
        if reply is None:
            break
        steps += 1
        await carry_out(reply)
    deliverables = collect_deliverables(work, view.deliverables, run_dir / "deliverables")
    status = TrajectoryStatus.MATERIALISED if deliverables else TrajectoryStatus.FAILED
    if not deliverables and stop == "finished":
        stop = "no_deliverables"
    totals = CallTotals.of(records)
    model = model_name or (records[-1].model if records else str(getattr(llm, "model", "unknown")))
    trajectory = Trajectory(
        trajectory_id=tid,
        spec_id=view.spec_id,
        scaffold=SCAFFOLD,
        model=model,
        messages=[_message(m) for m in messages],
        tools=list(TOOL_SCHEMAS),
        steps=steps,
        prompt_tokens=totals.input_tokens,
        completion_tokens=totals.output_tokens,
        cost_usd=totals.cost_usd,
        deliverables=deliverables,
        status=status,
        source=f"{SCAFFOLD}: {stop}{told_note(told)}{dropped_note(len(dropped))}"[:500],
    )
    (run_dir / "trajectory.json").write_text(trajectory.model_dump_json(indent=1), encoding="utf-8")
    return RolloutOutcome(trajectory, records, stop, tools.calls, tools.failures, len(dropped), told)


@dataclass(frozen=True)
class RolloutJob:
    """One rollout to run: the k-th sample of a view in its workspace, into its own run folder."""

    view: AgentView
    workspace_dir: Path
    run_dir: Path
    sample_index: int = 0


async def arun_many(
    llm: BaseChatModel,
    jobs: list[RolloutJob],
    *,
    concurrency: int,
    config: AgentConfig | None = None,
    on_done: Callable[[RolloutJob, RolloutOutcome], Awaitable[None]] | None = None,
) -> list[RolloutOutcome]:
    """Run rollouts of any number of specs concurrently, at most ``concurrency`` at once.

    The chat model's own limit (GRAPHFORGE_LLM_CONCURRENCY) still caps the HTTP calls in flight; this
    one caps the rollouts (each holds a working folder and runs tools). ``on_done`` is awaited as each
    rollout finishes (e.g. to store it at once, so an interrupted batch keeps its finished work).
    Outcomes come back in the order of ``jobs``.
    """
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(job: RolloutJob) -> RolloutOutcome:
        async with gate:
            outcome = await arun_rollout(llm, job.view, job.workspace_dir, job.run_dir,
                                         sample_index=job.sample_index, config=config)
        if on_done is not None:
            await on_done(job, outcome)
        return outcome

    return list(await asyncio.gather(*(one(job) for job in jobs)))


def run_rollout(
    llm: BaseChatModel,
    view: AgentView,
    workspace_dir: Path,
    run_dir: Path,
    *,
    sample_index: int = 0,
    config: AgentConfig | None = None,
    expected: Sequence[str] = (),
) -> RolloutOutcome:
    """Synchronous ``arun_rollout`` (one rollout, its own event loop)."""
    return asyncio.run(arun_rollout(llm, view, workspace_dir, run_dir, sample_index=sample_index,
                                    config=config, expected=expected))
