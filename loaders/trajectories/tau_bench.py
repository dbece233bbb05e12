"""tau-bench and tau2-bench result files.

tau-bench (``results/*.json``) is a JSON array of run results ``{"task_id", "reward", "info", "traj",
"trial"}`` whose ``traj`` is the OpenAI message list of one simulated conversation (policy as the
system message, the simulated user as ``user``). tau2-bench writes one object with ``"simulations"``:
``{"id", "task_id", "trial", "messages", "reward_info", "agent_cost"}``, its tool calls flat
(``{"id", "name", "arguments"}``) and its tool results carrying the call id as ``id``. Rewards are
the benchmark's, not graphforge's judgment, and are not imported.
"""

from __future__ import annotations

from typing import Any

from graphforge.models.trajectory import Trajectory
from loaders.trajectories.base import Issues, ParsedFile, SourceFile, TrajectoryFormatSpec, close
from loaders.trajectories.openai_messages import conversation

SCAFFOLD = "tau-bench"


def is_result(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("traj"), list)


def is_tau2(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("simulations"), list)


def _one(raw: list[Any], ident: str, model: str, cost: float, src: SourceFile, issues: Issues,
         spec_id: str | None, where: str, line: int | None = None) -> Trajectory | None:
    conv = conversation(raw, issues, line)
    return close(conv, issues, unanswered=f"({where}) has no tool result", line=line,
                 empty=f"{where}: no assistant turn; skipped", trajectory_id=f"{SCAFFOLD}:{ident}",
                 spec_id=spec_id, scaffold=SCAFFOLD, model=model, cost_usd=cost,
                 source=f"import:{SCAFFOLD}:{src.name}#{where}")


def _cost(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and value >= 0 else 0.0


def _model(info: Any) -> str:
    """The agent's model where a result records it (tau2: info.agent_info.llm)."""
    if isinstance(info, dict):
        agent = info.get("agent_info")
        if isinstance(agent, dict) and agent.get("llm"):
            return str(agent["llm"])
        if info.get("model"):
            return str(info["model"])
    return "unknown"


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    out: list[Trajectory] = []
    stem = src.name.rsplit(".", 1)[0]
    if src.is_document():
        data = src.document()
        if is_tau2(data):
            model = _model(data.get("info"))
            for i, sim in enumerate(data["simulations"]):
                if not isinstance(sim, dict) or not isinstance(sim.get("messages"), list):
                    issues.add(f"simulation {i} has no 'messages' list; skipped")
                    continue
                ident = str(sim.get("id") or f"{stem}:task{sim.get('task_id')}:trial{sim.get('trial', 0)}")
                t = _one(sim["messages"], ident, model, _cost(sim.get("agent_cost")), src, issues, spec_id,
                         f"simulation {i}")
                if t is not None:
                    out.append(t)
            return ParsedFile(trajectories=out, issues=issues.items)
        records: list[tuple[int | None, Any]] = (
            [(None, r) for r in data] if isinstance(data, list) else [(None, data)]
        )
    else:
        records = list(src.lines(issues))
    for index, (line, record) in enumerate(records):
        where = f"result {index}" if line is None else f"line {line}"
        if not is_result(record):
            issues.add(f"{where} has no 'traj' message list; skipped", line)
            continue
        info = record.get("info")
        total = info.get("total_cost") if isinstance(info, dict) else None
        ident = f"{stem}:task{record.get('task_id')}:trial{record.get('trial', 0)}"
        t = _one(record["traj"], ident, _model(info), _cost(total), src, issues, spec_id, where, line)
        if t is not None:
            out.append(t)
    return ParsedFile(trajectories=out, issues=issues.items)


def is_document(data: Any) -> bool:
    """A tau2 results file, one tau-bench result, or a JSON array of them."""
    if isinstance(data, list):
        first = next((d for d in data if isinstance(d, dict)), None)
        return first is not None and is_result(first)
    return is_tau2(data) or is_result(data)


FORMAT = TrajectoryFormatSpec(
    name="tau-bench",
    title="tau-bench and tau2-bench results",
    suffixes=frozenset({".json", ".jsonl"}),
    parse=parse,
    rank=45,
    document=is_document,
    record=is_result,
    evaluable=False,  # its runs name tau-bench tasks, not graphforge tasks
)
