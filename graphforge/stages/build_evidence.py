"""Stage 4: build each workspace's evidence graph: Fact nodes FROM_SPAN, DEPENDS_ON edges between facts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.evidence.base import Extraction, RejectedFact, WorkspaceSpan
from graphforge.evidence.doc_links import document_edges
from graphforge.evidence.links import cross_file_edges
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.graphdb import cypher
from graphforge.models.evidence import DependencyKind, DependsOnRow, FactRow
from graphforge.sharding import Shard

GET_WORKSPACES = cypher.load("evidence/get_workspaces")
GET_WORKSPACE_SPANS = cypher.load("evidence/get_workspace_spans")
MERGE_FACTS = cypher.load("evidence/merge_facts")
MERGE_DEPENDENCIES = cypher.load("evidence/merge_dependencies")
DELETE_STALE_FACTS = cypher.load("evidence/delete_stale_facts")
DELETE_STALE_DEPENDENCIES = cypher.load("evidence/delete_stale_dependencies")
COUNT_WORKSPACE_EVIDENCE = cypher.load("evidence/count_workspace_evidence")


class BuildEvidenceParams(BaseModel):
    """Options of the build_evidence stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workspace_id: str | None = Field(None, description="None: every workspace in the graph.")
    # "auto": the chat model when GRAPHFORGE_LLM_BASE_URL is set, else the rule-based extractor.
    extractor: Literal["auto", "rule-based", "llm"] = "auto"
    prune_stale: bool = Field(
        True, description="Drop this extractor's facts and links that a rebuild no longer finds.")
    shard: Shard | None = Field(None,
        description="Only the workspaces whose id hashes into this shard (graphforge.sharding).")
    # Chat-model extractor: a batch the model gives no verified fact for gets the rule-based facts of its
    # spans (labelled rule-based, counted in the result); False leaves such spans without facts.
    llm_fallback: bool = True


class WorkspaceEvidence(BaseModel):
    workspace_id: str
    spans: int
    facts: int
    rejected: int
    edges: dict[str, int]


class BuildEvidenceResult(BaseModel):
    """What the build_evidence stage did."""

    extractor: str
    workspaces: list[WorkspaceEvidence]
    facts_written: int
    edges_written: int
    rejected: int
    rejected_reasons: dict[str, int] = Field(default_factory=dict)
    stale_deleted: int = 0
    rejected_examples: list[RejectedFact] = Field(default_factory=list)
    # Files over the per-file cap on table quantities (setting max_table_facts): path -> rows not read.
    capped: dict[str, int] = Field(default_factory=dict)
    # Chat-model extractor: batches it read no verified fact from, and the rule-based facts taken instead.
    fallback_batches: int = 0
    fallback_facts: int = 0


def unique_spans(spans: Sequence[WorkspaceSpan]) -> list[WorkspaceSpan]:
    """One span per span_id: a file present under two paths is read once (under its first path)."""
    seen: dict[str, WorkspaceSpan] = {}
    for span in spans:
        seen.setdefault(span.span_id, span)
    return list(seen.values())


def build(
    spans: Sequence[WorkspaceSpan], extractor: object | None = None
) -> tuple[Extraction, list[DependsOnRow]]:
    """Facts and every DEPENDS_ON edge for one workspace's spans (pure: no graph access)."""
    spans = unique_spans(spans)
    derive: list[DependsOnRow] = []
    if extractor is None or hasattr(extractor, "extract_with_edges"):  # rule-based and chat-model paths
        extraction, derive = (extractor or RuleBasedExtractor()).extract_with_edges(spans)  # type: ignore[attr-defined]
    else:
        extraction = extractor.extract(spans)  # type: ignore[attr-defined]
    edges = {
        (e.src_fact_id, e.dst_fact_id, e.kind): e
        for e in [*derive, *cross_file_edges(extraction.facts, spans),
                  *document_edges(extraction.facts, spans)]
    }
    return extraction, sorted(edges.values(), key=lambda e: (e.kind, e.src_fact_id, e.dst_fact_id))


def _extractor(ctx: StageContext, choice: str, fallback: bool = True) -> object:
    if choice == "rule-based":
        return RuleBasedExtractor(ctx.settings.max_table_facts)
    from graphforge.evidence import llm

    model = llm.configured_chat_model(ctx.settings)
    if model is None:
        if choice == "llm":
            from graphforge.errors import ConfigError

            raise ConfigError("extractor 'llm' needs GRAPHFORGE_LLM_BASE_URL (and a model)")
        return RuleBasedExtractor(ctx.settings.max_table_facts)
    return llm.LLMExtractor(model, ctx.settings, fallback=fallback)


def run(ctx: StageContext, params: BuildEvidenceParams) -> BuildEvidenceResult:
    """Extract each workspace's facts from its spans and link them (interpret, compare, reconcile,
    derive); stale facts are pruned when asked."""
    extractor = _extractor(ctx, params.extractor, params.llm_fallback)
    name = str(getattr(extractor, "name", "rule-based"))
    ids = [
        str(r["workspace_id"]) for r in ctx.graph.read_dicts(GET_WORKSPACES, workspace_id=params.workspace_id)
    ]
    if params.shard is not None:
        ids = params.shard.select(ids)
    results: list[WorkspaceEvidence] = []
    facts_written = edges_written = stale = 0
    reasons: Counter[str] = Counter()
    examples: list[RejectedFact] = []
    capped: dict[str, int] = {}
    for workspace_id in ids:
        spans = ctx.graph.read(GET_WORKSPACE_SPANS, WorkspaceSpan, workspace_id=workspace_id)
        extraction, edges = build(spans, extractor)
        facts: list[FactRow] = extraction.facts
        facts_written += ctx.graph.write(MERGE_FACTS, facts)
        if params.prune_stale:
            rows = ctx.graph.execute(DELETE_STALE_FACTS, workspace_id=workspace_id, extractor=name,
                                     keep_ids=[f.fact_id for f in facts])
            stale += int(rows[0]["deleted"]) if rows else 0
        edges_written += ctx.graph.write(MERGE_DEPENDENCIES, edges)
        if params.prune_stale:
            ctx.graph.execute(DELETE_STALE_DEPENDENCIES, workspace_id=workspace_id, extractor=name,
                              keep_keys=[f"{e.src_fact_id}|{e.dst_fact_id}|{e.kind.value}" for e in edges])
        reasons.update(r.reason for r in extraction.rejected)
        capped |= extraction.capped
        examples.extend(extraction.rejected[: max(0, 10 - len(examples))])
        counted = ctx.graph.read_dicts(COUNT_WORKSPACE_EVIDENCE, workspace_id=workspace_id)
        row = counted[0] if counted else {}
        results.append(WorkspaceEvidence(
            workspace_id=workspace_id, spans=len(unique_spans(spans)), facts=int(row.get("facts") or 0),
            rejected=len(extraction.rejected),
            edges={k: int(row.get(k) or 0) for k in [k.value for k in DependencyKind]}))
    return BuildEvidenceResult(
        extractor=name,
        workspaces=results,
        facts_written=facts_written,
        edges_written=edges_written,
        rejected=sum(reasons.values()),
        rejected_reasons=dict(reasons),
        stale_deleted=stale,
        rejected_examples=examples,
        fallback_batches=int(getattr(extractor, "fallback_batches", 0)),
        fallback_facts=int(getattr(extractor, "fallback_facts", 0)),
        capped=capped,
    )
