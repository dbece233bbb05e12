"""Stage 5: compile each workspace's evidence graph into an anchored TaskSpec and save it in the graph."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.evidence.text_facts import normalise_text
from graphforge.graphdb import cypher
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity, TaskSpec, statement_hash
from graphforge.sharding import Shard
from graphforge.specs.checks import DocumentText, leaks, spec_problems
from graphforge.specs.families import Family, FamilyInput, SeedContext, choose, load_families
from graphforge.specs.families._common import named_event
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph
from graphforge.stores import specs as specs_store

GET_WORKSPACE = cypher.load("specs/get_workspace")
GET_WORKSPACE_FACTS = cypher.load("specs/get_workspace_facts")
GET_WORKSPACE_DEPENDENCIES = cypher.load("specs/get_workspace_dependencies")
GET_SPEC_WORKSPACES = cypher.load("evidence/get_workspaces")
GET_SEED_CONTEXT = cypher.load("specs/get_seed_context")
GET_FACTS_BY_ID = cypher.load("specs/get_facts_by_id")
GET_DEPENDENCIES_AMONG = cypher.load("specs/get_dependencies_among")
GET_CORROBORATING_FACTS = cypher.load("specs/get_corroborating_facts")
SET_SUPPORTED_FAMILIES = cypher.load("specs/set_supported_families")
RETIRE_UNPRODUCED_FAMILIES = cypher.load("specs/retire_unproduced_families")


class CompileSpecsParams(BaseModel):
    """Options of the compile_specs stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    workspace_id: str | None = Field(None, description="None: every workspace.")
    # "auto": the chat model words the statement when configured (criteria always come from the graph).
    compiler: Literal["auto", "template", "llm"] = "auto"
    version: int = Field(1, ge=1)
    seed_id: str | None = Field(None, description="Compile for this seed instead of the workspace's own.")
    family: str | None = Field(None, description="Force one task family (graphforge/specs/families/).")
    all_families: bool = Field(False,
        description="One spec per family the evidence supports (else one per workspace).")
    shard: Shard | None = Field(None,
        description="Only the workspaces whose id hashes into this shard (graphforge.sharding).")


class CompiledSpec(BaseModel):
    spec_id: str
    version: int = 1  # a workspace that changed since the last compile gets the next version of its spec
    workspace_id: str
    family: str | None = None
    family_reason: str = ""
    compiler: str
    deliverables: list[str]
    positive: int
    negative: int
    anchors: int
    statement_hash: str


class CompileSpecsResult(BaseModel):
    """What the compile_specs stage did."""

    specs: list[CompiledSpec]
    skipped: dict[str, str] = Field(default_factory=dict)  # workspace_id -> why no spec was written
    supported: dict[str, list[str]] = Field(
        default_factory=dict
    )  # workspace_id -> families its evidence supports
    retired: dict[str, str] = Field(default_factory=dict)  # spec_id -> why it is no longer current
    restored: list[str] = Field(default_factory=list)  # retired specs produced again


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


def _fact_ids(value: Any, out: set[str]) -> None:
    if isinstance(value, str) and value.startswith("fact-"):
        out.add(value)
    elif isinstance(value, list | tuple):
        for v in value:
            _fact_ids(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _fact_ids(v, out)


def gather_for(ctx: StageContext, workspace_id: str, head: dict[str, Any],
               rows: list[list[dict[str, Any]]]) -> WorkspaceGraph:
    """The workspace graph restricted to the facts the family patterns returned and the edges among them."""
    wanted: set[str] = set()
    _fact_ids(rows, wanted)
    ids = sorted(wanted)
    facts = ctx.graph.read(GET_FACTS_BY_ID, GraphFact, workspace_id=workspace_id, fact_ids=ids)
    edges = ctx.graph.read(GET_DEPENDENCIES_AMONG, GraphEdge, fact_ids=ids)
    files = specs_store.workspace_files(ctx.graph, workspace_id)
    return WorkspaceGraph(workspace_id=workspace_id, name=str(head["name"]), seed_id=head["seed_id"],
                          files=files, facts=facts, edges=edges)


class StatementDraft(BaseModel):
    """The chat model's rewording of a template statement."""

    statement: str


def llm_statement(model: Any, spec: TaskSpec, files: list[str],
                  documents: DocumentText | None = None) -> TaskSpec | None:
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
    if spec_problems(candidate) or leaks(view, candidate, documents=documents):
        return None
    return candidate


def in_document_order(rows: list[dict[str, Any]], facts: list[GraphFact]) -> list[dict[str, Any]]:
    """The pattern's rows with each list of fact ids in document order (file path, position, id).

    A Cypher ``collect`` keeps the order the store happened to match in, which changes as the graph is
    written to: a family that keeps the first requirements of a list compiled a different spec from the same
    files once another family's spec was retired and restored (a new version of an unchanged workspace).
    """
    place = {f.fact_id: (0, f.path, f.ordinal) for f in facts}

    def ordered(value: Any) -> Any:
        if isinstance(value, list) and value and all(str(v).startswith("fact-") for v in value):
            return sorted(value, key=lambda v: (*place.get(v, (1, "", 0)), v))  # unknown ids last
        return value

    return [{k: ordered(v) for k, v in row.items()} for row in rows]


def seed_context(ctx: StageContext, seed_id: str | None) -> SeedContext:
    """The seed's occupation, task, execution pattern, input family and demands (empty without a seed)."""
    if not seed_id:
        return SeedContext()
    rows = ctx.graph.read_dicts(GET_SEED_CONTEXT, seed_id=seed_id)
    if not rows:
        from graphforge.errors import ConfigError

        raise ConfigError(f"unknown seed {seed_id!r}: no Seed with that id in the graph")
    r = rows[0]
    return SeedContext(
        seed_id=seed_id,
        occupation=r["occupation"],
        task=r["task"],
        pattern=r["pattern"],
        input_family=r["input_family"],
        demands=tuple(str(d) for d in r["demands"] or ()),
    )


def supported_families(
    ctx: StageContext, workspace_id: str, families: list[Family]
) -> list[tuple[Family, list[dict[str, Any]]]]:
    """The families whose Cypher pattern matches the workspace's evidence graph, with the rows it returned."""
    out = []
    for family in families:
        if family.query is None:
            from graphforge.errors import ConfigError

            raise ConfigError(f"task family {family.name!r} has no Cypher pattern (see load_families)")
        rows = ctx.graph.read_dicts(family.query, workspace_id=workspace_id)
        if rows:
            out.append((family, rows))
    return out


def run(ctx: StageContext, params: CompileSpecsParams) -> CompileSpecsResult:
    """Compile each selected workspace into anchored task specs (one per supported family, or the seed's
    or requested one) and save them as new versions."""
    model = None
    if params.compiler != "template":
        from graphforge.llm import chat_model

        model = chat_model(ctx.settings)
        if model is None and params.compiler == "llm":
            from graphforge.errors import ConfigError

            raise ConfigError("compiler 'llm' needs GRAPHFORGE_LLM_BASE_URL (and a model)")
    families = load_families()  # the registry's, in rank order (graphforge.specs.families.FAMILIES)
    if params.family and params.family not in {f.name for f in families}:
        from graphforge.errors import ConfigError

        raise ConfigError(
            f"unknown task family {params.family!r}; known: {', '.join(f.name for f in families)}"
        )
    ids = [
        str(r["workspace_id"])
        for r in ctx.graph.read_dicts(GET_SPEC_WORKSPACES, workspace_id=params.workspace_id)
    ]
    if params.workspace_id and not ids:
        from graphforge.errors import ConfigError

        raise ConfigError(
            f"unknown workspace {params.workspace_id!r}: load it first (graphforge load workspace)"
        )
    if params.shard is not None:
        ids = params.shard.select(ids)
    out: list[CompiledSpec] = []
    skipped: dict[str, str] = {}
    supported_by: dict[str, list[str]] = {}
    retired: dict[str, str] = {}
    restored: list[str] = []
    for workspace_id in ids:
        head = ctx.graph.read_dicts(GET_WORKSPACE, workspace_id=workspace_id)[0]
        seed = seed_context(ctx, params.seed_id or head["seed_id"])
        supported = supported_families(ctx, workspace_id, families)
        # Only the facts the patterns returned are read: cost follows the patterns, not the workspace size
        # (a budget database of a million figures compiles as fast as a memo).
        graph = gather_for(ctx, workspace_id, head, [rows for _, rows in supported])
        supported = [(f, in_document_order(rows, graph.facts)) for f, rows in supported]
        # The documents' own words: a heading or label they use is no leak when a statement quotes it.
        documents = DocumentText(t for f in graph.facts
                                 for t in (f.span_text, f.entity or "", f.metric or ""))
        supported_by[workspace_id] = [f.name for f, _ in supported]
        ctx.graph.execute(
            SET_SUPPORTED_FAMILIES, workspace_id=workspace_id, families=supported_by[workspace_id]
        )
        if not supported:
            skipped[workspace_id] = "no task family's Cypher pattern matches this workspace's evidence graph"
        compiled = _compile_workspace(ctx, params, families, supported, graph, seed, documents, model,
                                      workspace_id, skipped) if supported else []
        out += compiled
        # Only a compile of every family says which families a workspace no longer has: one asked for a
        # single family (or the seed's) leaves the others as they are.
        if params.all_families and not params.family:
            reasons = {k.split(":", 1)[1]: v for k, v in skipped.items() if k.startswith(workspace_id + ":")}
            for row in ctx.graph.execute(
                RETIRE_UNPRODUCED_FAMILIES, workspace_id=workspace_id,
                families=sorted({c.family for c in compiled if c.family}), reasons=reasons,
                reason="the workspace's evidence no longer supports this family",
            ):
                if row["restored"]:
                    restored.append(str(row["spec_id"]))
                else:
                    retired[str(row["spec_id"])] = str(row["reason"])
    return CompileSpecsResult(specs=out, skipped=skipped, supported=supported_by, retired=retired,
                              restored=restored)


def _compile_workspace(ctx: StageContext, params: CompileSpecsParams, families: list[Family],
                       supported: list[tuple[Family, list[dict[str, Any]]]], graph: WorkspaceGraph,
                       seed: SeedContext, documents: DocumentText, model: Any, workspace_id: str,
                       skipped: dict[str, str]) -> list[CompiledSpec]:
    """The specs of one workspace's chosen families, saved as new versions (``skipped`` gets the why of
    each family that compiled nothing)."""
    out: list[CompiledSpec] = []
    rows_of = {f.name: rows for f, rows in supported}
    if params.family:
        match = [(f, r) for f, r in supported if f.name == params.family]
        if not match:
            skipped[workspace_id] = (
                f"family {params.family!r} is not supported by this workspace's evidence"
            )
            return out
        targets = [(match[0][0], f"family {params.family} requested")]
    elif seed.seed_id and not params.all_families:
        targets = [choose([f for f, _ in supported], families, seed)]
    elif params.all_families:
        targets = [(f, "every family the evidence supports was asked for") for f, _ in supported]
    else:
        first = min((f for f, _ in supported), key=lambda f: (f.rank, f.name))
        targets = [(first, "no seed: the first family in the default order that the evidence supports")]
    for family, reason in targets:
        spec = _compile_one(family, graph, seed, rows_of[family.name], params.version, reason)
        # The seed's family may find nothing worth asking on closer look: fall back to the next one (never
        # for a family the user named: they get that family or the reason it compiled nothing).
        chosen_for_user = len(targets) == 1 and not params.family
        fallbacks = [f for f, _ in supported if f.name != family.name] if chosen_for_user else []
        while spec is None and fallbacks:
            nxt = max(fallbacks, key=lambda f: _affinity_key(f, seed))
            fallbacks.remove(nxt)
            why = (
                f"{reason}; {family.name} compiled nothing from the matched evidence, nearest: {nxt.name}"
            )
            spec, family = _compile_one(nxt, graph, seed, rows_of[nxt.name], params.version, why), nxt
        if spec is None:
            skipped[f"{workspace_id}:{family.name}"] = "the pattern matched but too few usable facts"
            continue
        spec, extra = needs_two_files(ctx, spec, graph)
        if model is not None:
            spec = llm_statement(model, spec, graph.files, documents) or spec
        values = {f.fact_id: (f.value, f.scale, f.span_text) for f in [*graph.facts, *extra]}
        problems = spec_problems(spec, values) + leaks(
            specs_store.agent_view(spec, graph.files), spec, [f.fact_id for f in graph.facts], documents
        )
        if problems:
            skipped[f"{workspace_id}:{family.name}"] = "; ".join(problems[:5])
            continue
        # Never overwritten: a changed workspace gives the next version, an unchanged one writes nothing.
        spec = specs_store.save_version(ctx.graph, spec).spec
        out.append(
            CompiledSpec(
                spec_id=spec.spec_id,
                version=spec.version,
                workspace_id=workspace_id,
                family=spec.family,
                family_reason=spec.family_reason,
                compiler=spec.compiler,
                deliverables=[d.name for d in spec.deliverables],
                positive=len(spec.positive),
                negative=len(spec.negative),
                anchors=len({a for c in spec.criteria for a in c.anchors}),
                statement_hash=spec.statement_hash,
            )
        )
    return out


def needs_two_files(
    ctx: StageContext, spec: TaskSpec, graph: WorkspaceGraph
) -> tuple[TaskSpec, list[GraphFact]]:
    """A spec whose criteria all rest on one file each gets one that needs two, when the folder allows it;
    one that has such a criterion but no stale negative gets the warning below when the folder allows it.
    Among the facts of the spec's own kind and source files that another file states too:
    - another current file states the same (compare): the deliverable names both files beside the item;
    - a file to avoid (superseded by a later version, or a confuser) states it differently (reconcile): a
      negative criterion for reporting that file's value as current.
    An item the spec already asks for is preferred; otherwise the fact becomes one more item. The facts read
    are returned so the spec's checks can recover them."""
    from graphforge.specs.families._common import ask_second_file, two_file_criteria, warn_superseded

    facts = {f.fact_id: f for f in graph.facts}
    # A spec that needs two files already may still lack its warning: a file to avoid (a superseded version,
    # a confuser) that states one of its kind of items differently gets a negative criterion all the same.
    # A records entry registers every file, the superseded ones too: their own values are no stale ones.
    per_file = any("file" in d.required_keys for d in spec.deliverables)
    two_files = bool(two_file_criteria(spec, {i: f.path for i, f in facts.items()}))
    if two_files and (per_file or any(c.check == "stale" for c in spec.negative)):
        return spec, []
    items = [c for c in spec.positive if c.check == "item" and c.anchors and c.anchors[0] in facts]
    # A spec checked cell by cell (a fixed-layout workbook) asks for no item by meaning: one more item goes
    # into its prose deliverable (the memo), like the figures its cells hold.
    base = items[0] if items else _prose_item(spec)
    if base is None:
        return spec, []
    firsts = [facts[c.anchors[0]] for c in items] or [
        facts[a] for c in spec.positive for a in c.anchors if a in facts]
    asked = {c.anchors[0]: c for c in items}
    paths = sorted({f.path for f in firsts})
    anchored = {a for c in spec.criteria for a in c.anchors}
    kinds = sorted({f.kind for f in firsts})
    # A records entry holds one record per file (file, title, date): no row for one more item.
    # Kinds a row of this spec may hold: its own, and for a spec of things to check (requirements, list
    # items), the other kind of thing to check too: a gap analysis of a checklist may ask for a restated rule.
    fits = set(kinds) | (set(_CHECKABLE) if set(kinds) & _CHECKABLE else set())

    def fitting(options: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        # An item the spec asks for already, or one more of a kind it holds that a colleague can name: a
        # records entry gets no requirement row, a checklist no stray date or table cell.
        return [o for o in options
                if (not o[0] or (not per_file and o[-2].kind in fits and _usable_item(o[-2])))
                # with its two-file criterion, a spec needs only a warning, on an item it asks for already
                and (not two_files or (o[1] and not o[0]))]

    # The spec's own kind of fact first; any kind of its source files when none of those has a second file.
    options = fitting(_second_file_options(ctx, graph.workspace_id, paths, kinds, asked, anchored))
    if not options and not any(c.check == "invented" for c in spec.criteria):
        # A set-coverage spec ("invented" negative) may list only its own kind of item.
        options = fitting(_second_file_options(ctx, graph.workspace_id, paths, None, asked, anchored))
    if not options:
        # None of the spec's own files is stated elsewhere: one more item of a kind the spec holds from any
        # current file that another file restates (or an earlier version states differently).
        options = fitting(_second_file_options(ctx, graph.workspace_id, None, sorted(fits), asked, anchored))
    set_coverage = any(c.check == "invented" for c in spec.criteria)
    if not options and not two_files and not per_file and not set_coverage:
        # Nothing of the spec's kinds is stated by two files: one more item of any kind a colleague can
        # name (a named figure or date, a rule, an item, a definition) that two files state, from the spec's
        # own files first. A spec that lists a whole set of its kind gets no stray item of another.
        for paths_wanted in (paths, None):
            found = _second_file_options(ctx, graph.workspace_id, paths_wanted, sorted(_ASKABLE), asked,
                                         anchored)
            options = [o for o in found if _usable_item(o[-2])]
            if options:
                break
    if not options:
        return spec, []
    new_item, warn, *_, first, second = options[0]
    item = asked.get(first.fact_id) or base
    if warn:
        return warn_superseded(spec, item, first, second, new_item=new_item), [first, second]
    return ask_second_file(spec, item, first, second, new_item=new_item), [first, second]


def _prose_item(spec: TaskSpec) -> CriterionSpec | None:
    """An item criterion of the spec's first prose deliverable (Markdown or Word) with nothing asked yet:
    the pattern one more item is asked like."""
    prose = next((d for d in spec.deliverables if d.format in ("md", "docx")), None)
    if prose is None:
        return None
    return CriterionSpec(
        criterion_id="", polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE, weight=1.0, requirement="",
        target_deliverable=prose.name, expected="", tolerance=0.005,
        verification=(f"Open {prose.name} and find the item on a line that names it: the figure in any "
                      "printed form and stated scale, a date naming the same day, or a passage with most of "
                      "the anchored text's content words; the anchored span gives the value."),
        anchors=[], check="item")


_ASKABLE = frozenset({"requirement", "list_item", "definition", "quantity", "date"})
_CHECKABLE = frozenset({"requirement", "list_item"})  # things a worker checks a packet or a plan against


def _usable_item(fact: GraphFact) -> bool:
    """A fact a worker can be asked to report on its own, by a name a colleague would use: a named figure, a
    named date, or a requirement, item or definition of a few words under a real heading. Never a table
    row's cell named by its locator ("the text under 'row=2' that begins 'TRUE'"), a bare code or an id."""
    if fact.kind not in _ASKABLE or "=" in fact.section.split(" > ")[-1]:
        return False  # a section that is a locator: no heading a reader could find the item by
    if fact.kind == "quantity":
        return bool(fact.metric and fact.metric != "value")
    if fact.kind == "date":
        return named_event(fact)
    return len(re.findall(r"[A-Za-z]{2,}", fact.value)) >= 3 and len(fact.value) <= 200


def _second_file_options(
    ctx: StageContext, workspace_id: str, paths: list[str] | None, kinds: list[str] | None,
    asked: dict[str, Any], anchored: set[str],
) -> list[tuple[Any, ...]]:
    """(sort key..., fact, other file's fact) for each usable pair: a current file stating the same, or a
    file to avoid stating it differently; facts the spec asks for first, then agreement, then file order.
    A second fact the spec already anchors (a timeline that asks for the original deadline too) is left
    alone."""
    rows = ctx.graph.read_dicts(GET_CORROBORATING_FACTS, workspace_id=workspace_id, paths=paths, kinds=kinds)
    rows = [r for r in rows if (r["kind"] == "compare") != bool(r["avoid"])]
    if not rows:
        return []
    wanted = sorted({str(r["anchor"]) for r in rows} | {str(r["other"]) for r in rows})
    found = {f.fact_id: f for f in ctx.graph.read(GET_FACTS_BY_ID, GraphFact, workspace_id=workspace_id,
                                                  fact_ids=wanted)}
    options = []
    for r in rows:
        a, b = found.get(str(r["anchor"])), found.get(str(r["other"]))
        if a is None or b is None or a.path == b.path or b.fact_id in anchored:
            continue
        if a.value not in a.span_text or b.value not in b.span_text:
            continue
        if r["kind"] != "compare" and (" ".join(a.value.split()) == " ".join(b.value.split()) or (
                a.kind not in ("date", "quantity")
                and not set(normalise_text(b.value).split()) - set(normalise_text(a.value).split()))):
            continue  # a stale value a worker could not tell from the current one checks nothing
        options.append((a.fact_id not in asked, r["kind"] != "compare", a.path, a.ordinal, a.fact_id, a, b))
    return sorted(options, key=lambda o: o[:5])


def _affinity_key(family: Family, seed: SeedContext) -> tuple[float, str]:
    from graphforge.specs.families import affinity

    return affinity(family, seed), family.name


def _compile_one(
    family: Family,
    graph: WorkspaceGraph,
    seed: SeedContext,
    rows: list[dict[str, Any]],
    version: int,
    reason: str,
) -> TaskSpec | None:
    spec = family.build(FamilyInput(graph=graph, seed=seed, rows=rows, version=version))
    if spec is None:
        return None
    return spec.model_copy(
        update={"family": family.name, "family_reason": reason, "seed_id": seed.seed_id or spec.seed_id}
    )
