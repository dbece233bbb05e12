"""Build candidate seed tuples from DIGITAL tasks; every work demand cites the evidence it rests on.

A seed is (occupation, DWA task type, work demand, execution pattern, input family, evidence).
Demands come from the configured chat model, or from the task statement itself (rule-based, and
stored as such). Demands their evidence does not support are dropped and counted, never padded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import ConfigError
from graphforge.graphdb import cypher
from graphforge.llm.records import StructuredOutputError
from graphforge.models.base import stable_hash
from graphforge.models.seeds import EvidenceRow, SeedRow, TaskContext, Vocabulary
from graphforge.vocab import load_vocabulary, write_vocabulary

if TYPE_CHECKING:
    from graphforge.llm import LLMCallRecord, OpenAICompatibleChatModel

GET_DIGITAL_TASKS = cypher.load("seeds/get_digital_tasks")
MERGE_EVIDENCE = cypher.load("seeds/merge_evidence")
MERGE_SEEDS = cypher.load("seeds/merge_seeds")
DELETE_STALE_SEEDS = cypher.load("seeds/delete_stale_seeds")
DELETE_ORPHAN_EVIDENCE = cypher.load("seeds/delete_orphan_evidence")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and the of for to in on at by with from into or as is are be their its this that "
                  "these those any all each such other using use via per".split())


class DemandBackend(StrEnum):
    AUTO = "auto"  # the chat model when configured, else rule-based
    RULE_BASED = "rule-based"
    LLM = "llm"


class BuildSeedsParams(BaseModel):
    """Options of the build_seeds stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    backend: DemandBackend = DemandBackend.AUTO
    vocab: Path | None = Field(None, description="None: the bundled vocabulary.")
    # Share of a demand's content words that must occur in its evidence for it to count as supported.
    min_support: float = Field(0.6, gt=0, le=1)
    max_demands_per_task: int = Field(3, ge=1)
    replace: bool = Field(True,
        description="Delete seeds this build no longer produces (unless a workspace uses them).")
    # With the chat model: a task whose answer gives no valid, supported demand gets the rule-based
    # demands instead (demand_source "rule-based", counted and explained in the result), as file roles
    # fall back to the path rules. False: such a task gets no seed.
    fallback: bool = True


class BuildSeedsResult(BaseModel):
    """What the build_seeds stage did."""

    backend: str
    vocab_version: str
    tasks_seen: int
    tasks_without_task_type: int
    tasks_unclassified: int  # no execution pattern matched (rule-based) or the model proposed none
    demands_proposed: int
    demands_dropped_unsupported: int
    demands_dropped_invalid: int  # pattern, input family or task type outside the vocabulary / task
    seeds_written: int
    seeds_by_pattern: dict[str, int]
    stale_seeds_deleted: int
    llm_calls: int = 0
    llm_cost_usd: float = 0.0
    # Tasks whose chat-model answer did not validate even after the repair turn: no seeds, with why.
    llm_answers_invalid: int = 0
    llm_invalid_examples: list[str] = Field(default_factory=list)
    # Tasks that got the rule-based demands because the model's gave no seed (invalid answer, or every
    # demand outside the vocabulary or unsupported by the statement), with the first few reasons.
    llm_fallbacks: int = 0
    llm_fallback_examples: list[str] = Field(default_factory=list)


class Proposal(BaseModel):
    """One proposed work demand for a task, before the support check."""

    dwa_id: str
    demand: str
    pattern: str
    input_family: str
    evidence_quote: str


class ProposedDemand(BaseModel):
    dwa_id: str = Field(description="one of the task's DWA ids")
    demand: str = Field(description="the concrete work demand, one sentence")
    pattern: str = Field(description="one execution pattern name from the list")
    input_family: str = Field(description="one input-file family name from the list")
    evidence_quote: str = Field(description="the exact words of the task statement that support the demand")


class DemandAnswer(BaseModel):
    demands: list[ProposedDemand]


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def normalize_demand(text: str) -> str:
    """Lower case, punctuation dropped, spaces collapsed: the key for the repeated-demand cap."""
    return " ".join(words(text))


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_stems(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in _STOP and len(w) > 2}


def support_score(demand: str, evidence: str) -> float:
    """Share of the demand's content words (lightly stemmed) that occur in the evidence text."""
    needed = content_stems(demand)
    if not needed:
        return 0.0
    return len(needed & content_stems(evidence)) / len(needed)


def is_supported(proposal: Proposal, evidence: str, min_support: float) -> bool:
    """A demand is supported when its quote is verbatim evidence and the evidence covers its words."""
    quote = normalize_demand(proposal.evidence_quote)
    if not quote or quote not in normalize_demand(evidence):
        return False
    return support_score(proposal.demand, evidence) >= min_support


def _hits(text: str, keywords: Sequence[str]) -> int:
    # Keywords are stems matched at a word start ("analy" matches "analyze" and "analysis").
    return sum(1 for k in keywords if re.search(r"\b" + re.escape(k.lower()), text))


def classify_pattern(task: TaskContext, dwa: dict[str, str], vocab: Vocabulary) -> str | None:
    """Best execution pattern: statement hits weigh 2, DWA/IWA title hits 1; vocab order breaks ties."""
    statement = task.statement.lower()
    titles = f"{dwa.get('title', '')} {dwa.get('iwa_title', '')}".lower()
    best, best_score = None, 0
    for pattern in vocab.execution_patterns:
        score = 2 * _hits(statement, pattern.keywords) + _hits(titles, pattern.keywords)
        if score > best_score:
            best, best_score = pattern.name, score
    return best


def classify_input(task: TaskContext, dwa: dict[str, str], pattern: str, vocab: Vocabulary) -> str:
    """Input family the statement names, else the pattern's first default input family."""
    text = f"{task.statement} {dwa.get('title', '')}".lower()
    best, best_score = None, 0
    for family in vocab.input_families:
        score = _hits(text, family.keywords)
        if score > best_score:
            best, best_score = family.name, score
    if best is not None:
        return best
    defaults = next(p.default_inputs for p in vocab.execution_patterns if p.name == pattern)
    return defaults[0] if defaults else vocab.input_families[0].name


def rule_based_proposals(task: TaskContext, vocab: Vocabulary) -> list[Proposal]:
    """One demand per task type: the task statement itself, citing the whole statement."""
    demand = task.statement.strip().rstrip(".")
    out = []
    for dwa in task.dwas:
        pattern = classify_pattern(task, dwa, vocab)
        if pattern is None:
            continue
        out.append(
            Proposal(
                dwa_id=dwa["dwa_id"],
                demand=demand,
                pattern=pattern,
                input_family=classify_input(task, dwa, pattern, vocab),
                evidence_quote=task.statement,
            )
        )
    return out


def evidence_for(task: TaskContext, release_note: str = "O*NET Task Statements") -> EvidenceRow:
    return EvidenceRow(
        evidence_id=stable_hash("task_statement", task.task_id, task.statement),
        kind="task_statement",
        text=task.statement,
        source=f"{release_note}, Task ID {task.task_id}",
        task_id=task.task_id,
    )


def seed_rows(task: TaskContext, proposals: Sequence[Proposal], evidence: EvidenceRow, vocab: Vocabulary,
              min_support: float, source: str, model: str) -> tuple[list[SeedRow], int, int]:
    """Validated seed rows, plus counts of unsupported and invalid proposals (pure)."""
    patterns = {p.name for p in vocab.execution_patterns}
    families = {f.name for f in vocab.input_families}
    task_dwas = {d["dwa_id"] for d in task.dwas}
    rows: dict[str, SeedRow] = {}
    unsupported = invalid = 0
    for p in proposals:
        if p.pattern not in patterns or p.input_family not in families or p.dwa_id not in task_dwas:
            invalid += 1
            continue
        if not is_supported(p, evidence.text, min_support):
            unsupported += 1
            continue
        normalized = normalize_demand(p.demand)
        seed_id = stable_hash(task.task_id, p.dwa_id, p.pattern, p.input_family, normalized)
        rows[seed_id] = SeedRow(
            seed_id=seed_id,
            task_id=task.task_id,
            soc_code=task.soc_code,
            dwa_id=p.dwa_id,
            pattern=p.pattern,
            input_family=p.input_family,
            demand=p.demand.strip(),
            demand_normalized=normalized,
            demand_source=source,
            demand_model=model,
            evidence_id=evidence.evidence_id,
            evidence_quote=p.evidence_quote.strip(),
        )
    return list(rows.values()), unsupported, invalid


def run(ctx: StageContext, params: BuildSeedsParams) -> BuildSeedsResult:
    """Propose demands for every DIGITAL task, keep the supported ones, MERGE seeds and evidence."""
    vocab = load_vocabulary(params.vocab)
    write_vocabulary(ctx.graph, vocab)
    tasks = ctx.graph.read(GET_DIGITAL_TASKS, TaskContext)
    llm = _chat_model(ctx, params.backend)
    source = "llm" if llm is not None else "rule-based"
    model_name = llm.model if llm is not None else ""
    seeds: list[SeedRow] = []
    evidence: list[EvidenceRow] = []
    proposed = unsupported = invalid = unclassified = calls = 0
    invalid_answers: list[str] = []
    fallbacks: list[str] = []
    cost = 0.0
    for task in tasks:
        if not task.dwas:
            continue
        ev = evidence_for(task)
        why_not = ""
        if llm is None:
            proposals = rule_based_proposals(task, vocab)
        else:
            try:
                proposals, records = _llm_proposals(llm, task, vocab, params.max_demands_per_task)
            except StructuredOutputError as exc:  # a weak model's answer: recorded with why
                proposals, records = [], exc.records
                invalid_answers.append(f"{task.task_id}: {str(exc)[:200]}")
                why_not = "answer did not validate"
            calls += len(records)
            cost += sum(r.cost_usd for r in records)
        rows, bad_support, bad_vocab = seed_rows(
            task, proposals, ev, vocab, params.min_support, source, model_name
        )
        proposed += len(proposals)
        unsupported += bad_support
        invalid += bad_vocab
        if llm is not None and not rows and params.fallback:
            why_not = why_not or (f"{len(proposals)} demands, {bad_vocab} outside the vocabulary or task, "
                                  f"{bad_support} unsupported by the statement" if proposals else "no demand")
            proposals = rule_based_proposals(task, vocab)
            rows, _, _ = seed_rows(task, proposals, ev, vocab, params.min_support, "rule-based", "")
            if rows:
                fallbacks.append(f"{task.task_id}: {why_not}")
        if not proposals:
            unclassified += 1
            continue
        if rows:
            evidence.append(ev)
            seeds.extend(rows)
    ctx.graph.write(MERGE_EVIDENCE, evidence)
    written = ctx.graph.write(MERGE_SEEDS, seeds)
    stale = 0
    if params.replace:
        stale = int(ctx.graph.execute(DELETE_STALE_SEEDS, keep=[s.seed_id for s in seeds])[0]["written"])
        ctx.graph.execute(DELETE_ORPHAN_EVIDENCE)
    return BuildSeedsResult(
        backend=f"llm:{model_name}" if llm is not None else "rule-based", vocab_version=vocab.version,
        tasks_seen=len(tasks), tasks_without_task_type=sum(1 for t in tasks if not t.dwas),
        tasks_unclassified=unclassified, demands_proposed=proposed, demands_dropped_unsupported=unsupported,
        demands_dropped_invalid=invalid, seeds_written=written,
        seeds_by_pattern=dict(sorted(Counter(s.pattern for s in seeds).items())), stale_seeds_deleted=stale,
        llm_calls=calls, llm_cost_usd=round(cost, 6), llm_answers_invalid=len(invalid_answers),
        llm_invalid_examples=invalid_answers[:5], llm_fallbacks=len(fallbacks),
        llm_fallback_examples=fallbacks[:5])


def _chat_model(ctx: StageContext, backend: DemandBackend) -> OpenAICompatibleChatModel | None:
    if backend is DemandBackend.RULE_BASED:
        return None
    from graphforge.llm import chat_model

    llm = chat_model(ctx.settings)
    if llm is None and backend is DemandBackend.LLM:
        raise ConfigError(
            "seed demands from a chat model need GRAPHFORGE_LLM_BASE_URL and GRAPHFORGE_LLM_MODEL "
            "(or use --backend rule-based)"
        )
    return llm


DEMAND_PROMPT = (
    "You turn one O*NET task statement into concrete work demands for training an office agent that "
    "works from real files. Each demand must be directly supported by the task statement: quote the "
    "exact words that support it. Do not invent companies, events or results. Pick the execution "
    "pattern and the input-file family only from the lists given, and the DWA id only from the task's "
    "DWAs. Propose at most {limit} demands; propose none if the statement supports none.")


def _llm_proposals(llm: OpenAICompatibleChatModel, task: TaskContext, vocab: Vocabulary,
                   limit: int) -> tuple[list[Proposal], list[LLMCallRecord]]:
    from graphforge.llm import ask_structured

    dwas = "\n".join(f"- {d['dwa_id']}: {d['title']}" for d in task.dwas)
    prompt = (f"Occupation: {task.occupation_title} ({task.soc_code})\nTask statement: {task.statement}\n"
              f"DWAs:\n{dwas}\nExecution patterns: {', '.join(p.name for p in vocab.execution_patterns)}\n"
              f"Input-file families: {', '.join(f.name for f in vocab.input_families)}")
    system = DEMAND_PROMPT.replace("{limit}", str(limit))
    answer, records = ask_structured(llm, DemandAnswer, [SystemMessage(system), HumanMessage(prompt)])
    proposals = [Proposal(**d.model_dump()) for d in answer.demands[:limit]]
    return proposals, records
