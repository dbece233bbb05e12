"""Mark tasks DIGITAL: from a labels file, all as candidates, or by the configured chat model.

There is no default: without labels the caller must pick ``all-candidates`` or ``llm`` explicitly,
and the choice is stored on every task (``digital_source``, ``digital_model``).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import ConfigError
from graphforge.graphdb import cypher
from graphforge.models.onet import DigitalLabels, DigitalRow
from loaders.labels import read_digital_labels

MERGE_DIGITAL_LABELS = cypher.load("onet/merge_digital_labels")
GET_TASK_IDS = cypher.load("onet/get_task_ids")
COUNT_DIGITAL_TASKS = cypher.load("onet/count_digital_tasks")

CLASSIFY_PROMPT = (
    "You label O*NET task statements for an AI-agent training project. A task is DIGITAL when a "
    "person could complete it entirely on a computer, working from files (documents, spreadsheets, "
    "PDFs, web pages) and producing files, with no physical presence, physical handling or live "
    "face-to-face interaction. Answer with digital true/false and a one-sentence reason.")


class DigitalMode(StrEnum):
    LABELS = "labels"
    ALL_CANDIDATES = "all-candidates"
    LLM = "llm"


class LoadDigitalParams(BaseModel):
    """Options of the load_digital stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    mode: DigitalMode
    labels: Path | None = Field(None, description="The labels file (CSV/TSV), for mode 'labels'.")
    # Tasks the labels file does not mention: leave unlabelled (None) or mark them not digital.
    unlabelled_as_not_digital: bool = False


class LoadDigitalResult(BaseModel):
    """What the load_digital stage did."""

    mode: DigitalMode
    source: str
    model: str = ""
    tasks: int
    digital: int
    not_digital: int
    unlabelled: int
    labels_for_unknown_tasks: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    llm_cost_usd: float = 0.0


class DigitalVerdict(BaseModel):
    """The chat model's answer for one task statement."""

    digital: bool
    reason: str = ""


class TaskRef(BaseModel):
    task_id: str
    statement: str
    occupation_title: str
    digital: bool | None = None


def label_rows(tasks: Sequence[TaskRef], labels: DigitalLabels, unlabelled_as_not_digital: bool
               ) -> tuple[list[DigitalRow], list[str]]:
    """Rows for the tasks in the graph, and label ids that match no task (pure)."""
    by_id = {lab.task_id: lab.digital for lab in labels.labels}
    source = f"labels:{labels.source}#{labels.content_hash}"
    rows = []
    for task in tasks:
        if task.task_id in by_id:
            rows.append(DigitalRow(task_id=task.task_id, digital=by_id[task.task_id], digital_source=source,
                                   digital_model=""))
        elif unlabelled_as_not_digital:
            rows.append(DigitalRow(task_id=task.task_id, digital=False, digital_source=source + ":unlabelled",
                                   digital_model=""))
    known = {t.task_id for t in tasks}
    return rows, sorted(set(by_id) - known)


def run(ctx: StageContext, params: LoadDigitalParams) -> LoadDigitalResult:
    """Write Task.digital for every task according to ``params.mode``."""
    if (params.mode is DigitalMode.LABELS) != (params.labels is not None):
        raise ConfigError("a labels file goes with mode 'labels', and mode 'labels' needs one")
    # Read and validate the file before touching the graph.
    labels = read_digital_labels(params.labels) if params.labels is not None else None
    tasks = ctx.graph.read(GET_TASK_IDS, TaskRef)
    unknown: list[str] = []
    model_name, calls, cost = "", 0, 0.0
    if params.mode is DigitalMode.LABELS and labels is not None:
        rows, unknown = label_rows(tasks, labels, params.unlabelled_as_not_digital)
        source = labels.source
    elif params.mode is DigitalMode.ALL_CANDIDATES:
        source = "all-candidates"
        rows = [DigitalRow(task_id=t.task_id, digital=True, digital_source=source, digital_model="")
                for t in tasks]
    else:
        rows, model_name, calls, cost = _classify(ctx, tasks)
        source = f"llm:{model_name}"
    ctx.graph.write(MERGE_DIGITAL_LABELS, rows)
    counts = ctx.graph.read_dicts(COUNT_DIGITAL_TASKS)[0]
    return LoadDigitalResult(mode=params.mode, source=source, model=model_name, tasks=counts["tasks"],
                             digital=counts["digital"], not_digital=counts["not_digital"],
                             unlabelled=counts["unlabelled"], labels_for_unknown_tasks=unknown[:50],
                             llm_calls=calls, llm_cost_usd=round(cost, 6))


def _classify(ctx: StageContext, tasks: Sequence[TaskRef]) -> tuple[list[DigitalRow], str, int, float]:
    from graphforge.llm import ask_structured, chat_model

    llm = chat_model(ctx.settings)
    if llm is None:
        raise ConfigError("DIGITAL classification with a chat model needs GRAPHFORGE_LLM_BASE_URL and "
                          "GRAPHFORGE_LLM_MODEL; or pass a labels file, or choose all-candidates explicitly")
    rows: list[DigitalRow] = []
    calls, cost = 0, 0.0
    for task in tasks:
        messages = [SystemMessage(CLASSIFY_PROMPT),
                    HumanMessage(f"Occupation: {task.occupation_title}\nTask statement: {task.statement}")]
        verdict, records = ask_structured(llm, DigitalVerdict, messages)
        calls += len(records)
        cost += sum(r.cost_usd for r in records)
        rows.append(
            DigitalRow(
                task_id=task.task_id,
                digital=verdict.digital,
                digital_source=f"llm:{llm.model}",
                digital_model=llm.model,
            )
        )
    return rows, llm.model, calls, cost
