"""Stage 5: compile each workspace's evidence graph into an anchored TaskSpec and save it in the graph."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher, specs_store
from graphforge.context import StageContext
from graphforge.models.spec import TaskSpec, statement_hash
from graphforge.specs.checks import leaks, spec_problems
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph, compile_template

GET_WORKSPACE = cypher.load("specs/get_workspace")
GET_WORKSPACE_FACTS = cypher.load("specs/get_workspace_facts")
GET_WORKSPACE_DEPENDENCIES = cypher.load("specs/get_workspace_dependencies")
GET_SPEC_WORKSPACES = cypher.load("evidence/get_workspaces")


class CompileSpecsParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    workspace_id: str | None = None  # None: every workspace
    # "auto": the chat model words the statement when configured (criteria always come from the graph).
    compiler: Literal["auto", "template", "llm"] = "auto"
    version: int = Field(1, ge=1)


class CompiledSpec(BaseModel):
    spec_id: str
    workspace_id: str
    compiler: str
    deliverables: list[str]
    positive: int
    negative: int
    anchors: int
    statement_hash: str


class CompileSpecsResult(BaseModel):
    specs: list[CompiledSpec]
    skipped: dict[str, str] = Field(default_factory=dict)  # workspace_id -> why no spec was written


def gather(ctx: StageContext, workspace_id: str) -> WorkspaceGraph:
    """Everything the compiler reads about one workspace, via the Cypher in cypher/specs/."""
    head = ctx.graph.read_dicts(GET_WORKSPACE, workspace_id=workspace_id)[0]
    facts = ctx.graph.read(GET_WORKSPACE_FACTS, GraphFact, workspace_id=workspace_id)
    edges = ctx.graph.read(GET_WORKSPACE_DEPENDENCIES, GraphEdge, workspace_id=workspace_id)
    return WorkspaceGraph(
        workspace_id=workspace_id,
        name=str(head["name"]),
        seed_id=head["seed_id"],
        files=specs_store.workspace_files(ctx.graph, workspace_id),
        facts=facts,
        edges=edges,
    )


class StatementDraft(BaseModel):
    """The chat model's rewording of a template statement."""

    statement: str


def llm_statement(model: Any, spec: TaskSpec, files: list[str]) -> TaskSpec | None:
    """Let the chat model reword the statement; keep it if it names every deliverable and leaks nothing."""
    from graphforge.llm import StructuredOutputError, ask_structured

    prompt = (
        "Rewrite this task statement for a colleague so it reads naturally. Keep every file name, sheet "
        "name, cell reference, row layout and instruction; add no numbers and no new requirements.\n\n"
        + spec.statement
    )
    try:
        draft, _ = ask_structured(model, StatementDraft, [("human", prompt)])
    except StructuredOutputError:
        return None  # an answer that never validated: the template statement stays
    candidate = spec.model_copy(
        update={
            "statement": draft.statement,
            "statement_hash": statement_hash(draft.statement),
            "compiler": f"llm:{getattr(model, 'model', 'chat-model')}+template",
        }
    )
    view = specs_store.agent_view(candidate, files)
    if spec_problems(candidate) or leaks(view, candidate):
        return None
    return candidate


def run(ctx: StageContext, params: CompileSpecsParams) -> CompileSpecsResult:
    model = None
    if params.compiler != "template":
        from graphforge.llm import chat_model

        model = chat_model(ctx.settings)
        if model is None and params.compiler == "llm":
            from graphforge.errors import ConfigError

            raise ConfigError("compiler 'llm' needs GRAPHFORGE_LLM_BASE_URL (and a model)")
    ids = [
        str(r["workspace_id"])
        for r in ctx.graph.read_dicts(GET_SPEC_WORKSPACES, workspace_id=params.workspace_id)
    ]
    out: list[CompiledSpec] = []
    skipped: dict[str, str] = {}
    for workspace_id in ids:
        graph = gather(ctx, workspace_id)
        spec = compile_template(graph, params.version)
        if spec is None:
            skipped[workspace_id] = "no compare, reconcile or derive edge between trusted files"
            continue
        if model is not None:
            spec = llm_statement(model, spec, graph.files) or spec
        values = {f.fact_id: (f.value, f.scale, f.span_text) for f in graph.facts}
        problems = spec_problems(spec, values) + leaks(specs_store.agent_view(spec, graph.files), spec,
                                                      [f.fact_id for f in graph.facts])
        if problems:
            skipped[workspace_id] = "; ".join(problems[:5])
            continue
        specs_store.save_spec(ctx.graph, spec)
        out.append(
            CompiledSpec(
                spec_id=spec.spec_id,
                workspace_id=workspace_id,
                compiler=spec.compiler,
                deliverables=[d.name for d in spec.deliverables],
                positive=len(spec.positive),
                negative=len(spec.negative),
                anchors=len({a for c in spec.criteria for a in c.anchors}),
                statement_hash=spec.statement_hash,
            )
        )
    return CompileSpecsResult(specs=out, skipped=skipped)
