"""The demo: every stage of the pipeline on the bundled sample, as an ordered list of named, timed steps.

``STEPS`` is the whole pipeline in order. Each step is one call (a stage's ``run`` or a sample
generator); ``run_demo`` runs them one after another through ``graphforge.pipeline.run_stage``, prints
each step's name and wall time, and keeps what later steps need in a ``DemoState``. Re-running MERGEs
onto the same keys, so a second run changes no counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from rich.console import Console

from graphforge.context import StageContext, open_context
from graphforge.demo.sample import benchmark as sample_benchmark
from graphforge.demo.sample import comparisons as sample_comparisons
from graphforge.demo.sample import taxonomy as sample_taxonomy
from graphforge.demo.sample.broken_files import BrokenFiles, generate_broken_files
from graphforge.demo.sample.workspace import SampleWorkspace, generate_sample_workspace
from graphforge.eval import elo, winrate
from graphforge.graphdb import chores, cypher, server
from graphforge.graphdb.captions import set_captions
from graphforge.models.judge import JudgeArm
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.oracle import InjectKind
from graphforge.pipeline import run_stage
from graphforge.settings import GraphforgeSettings
from graphforge.stages import (
    admit_trajectories,
    audit_contamination,
    build_evidence,
    build_seeds,
    compile_specs,
    eval_ratings,
    export_rft,
    export_rubrics,
    export_sft,
    judge_sensitivity,
    judge_trajectories,
    load_benchmark,
    load_digital,
    load_onet,
    load_vocab,
    load_workspace,
    report_corpus,
    report_coverage,
    revise_specs,
    rollout_oracle,
    select_seeds,
)

T = TypeVar("T")

GET_WORKSPACE_SEED = cypher.load("demo/get_workspace_seed")

# The sample workspace is a finance case: quarterly figures in a PDF, a ledger, a CSV export.
SAMPLE_PATTERNS = ["data analysis and reporting", "data cleaning and reconciliation",
                   "review, audit and compliance checking"]
SAMPLE_FAMILIES = ["spreadsheet", "pdf", "csv"]
BENCHMARK = "gdpval-sample"
# Oracle rollouts per spec: one correct, three with injected errors (K = 4 candidates per query).
INJECTIONS: list[list[InjectKind]] = [[], [InjectKind.WRONG_NUMBER], [InjectKind.CONFUSER],
                                      [InjectKind.MISSING_DELIVERABLE]]


class DemoResult(BaseModel):
    project: str  # the project whose graph the demo wrote ("demo" unless asked otherwise)
    neo4j_version: str
    bolt_uri: str
    browser_url: str | None
    out_dir: str
    seeds_selected: int
    workspace_seed: str | None
    spec_ids: list[str]
    funnel: dict[str, int]
    sensitivity: str  # the deterministic verifiers' table (the only one without a chat model)
    sensitivity_llm: str | None  # the anchored chat-model judge's table, when a chat model is configured
    audit_id: str
    audit_found_overlaps: bool
    exports: dict[str, str]
    reports: dict[str, str]
    elo_top: list[str]
    nodes: int
    relationships: int
    stage_seconds: dict[str, float]
    browser_queries: list[str]


@dataclass
class DemoState:
    """What the steps hand on to later steps (each field is set by the step named beside it)."""

    ctx: StageContext
    out_dir: Path
    say: Callable[[str], None]
    onet_files: dict[str, Path] = field(default_factory=dict)  # taxonomy sample
    selected: select_seeds.SelectSeedsResult | None = None  # select seeds
    coverage: report_coverage.ReportCoverageResult | None = None  # coverage report
    workspace_seed: str | None = None  # pick workspace seed
    sample: SampleWorkspace | None = None  # generate sample workspace
    broken: BrokenFiles | None = None  # generate broken files
    spec_ids: list[str] = field(default_factory=list)  # compile specs
    correct_ids: list[str] = field(default_factory=list)  # oracle rollout (correct)
    admitted: admit_trajectories.AdmitTrajectoriesResult | None = None  # admit
    sensitivity: judge_sensitivity.JudgeSensitivityResult | None = None  # judge sensitivity
    sensitivity_llm: judge_sensitivity.JudgeSensitivityResult | None = None  # judge sensitivity (chat model)
    benchmark_root: Path | None = None  # benchmark sample
    audit: audit_contamination.AuditContaminationResult | None = None  # contamination audit
    sft: export_sft.ExportSftResult | None = None  # export SFT
    comparisons: Path | None = None  # comparison sample
    ratings: elo.EloResult | None = None  # Bradley-Terry Elo
    rating_run_id: str | None = None  # Bradley-Terry Elo (the fit stored in the graph, for Browser's slide)
    win_rates: winrate.WinRateResult | None = None  # win rates
    corpus: report_corpus.ReportCorpusResult | None = None  # corpus report

    @property
    def data(self) -> Path:
        return self.out_dir / "data"

    @property
    def export_dir(self) -> Path:
        return self.out_dir / "export"

    @property
    def eval_dir(self) -> Path:
        return self.out_dir / "reports" / "eval"


@dataclass(frozen=True)
class Step:
    name: str
    fn: Callable[[DemoState], object]


def _set(value: T | None, step: str) -> T:
    """A value an earlier step sets; the step order guarantees it, this names the step if not."""
    if value is None:
        raise RuntimeError(f"demo step order: {step!r} must run first")
    return value


# ---- 1-2. Taxonomy and seeds --------------------------------------------------------------------


def _taxonomy_sample(s: DemoState) -> None:
    s.onet_files = sample_taxonomy.write_sample(s.data / "onet")


def _load_onet(s: DemoState) -> load_onet.LoadOnetResult:
    return load_onet.run(s.ctx, load_onet.LoadOnetParams(
        path=s.onet_files["release"], release_id="sample-1", sectors=s.onet_files["sectors"]))


def _load_digital(s: DemoState) -> load_digital.LoadDigitalResult:
    return load_digital.run(s.ctx, load_digital.LoadDigitalParams(
        mode=load_digital.DigitalMode.LABELS, labels=s.onet_files["labels"]))


def _load_vocab(s: DemoState) -> load_vocab.LoadVocabResult:
    return load_vocab.run(s.ctx, load_vocab.LoadVocabParams())


def _build_seeds(s: DemoState) -> build_seeds.BuildSeedsResult:
    return build_seeds.run(s.ctx, build_seeds.BuildSeedsParams())


def _select_seeds(s: DemoState) -> None:
    s.selected = select_seeds.run(s.ctx, select_seeds.SelectSeedsParams(n=24))


def _coverage_report(s: DemoState) -> None:
    s.coverage = report_coverage.run(
        s.ctx, report_coverage.ReportCoverageParams(out_dir=s.out_dir / "reports" / "coverage"))


# ---- 3. Workspaces: the sample case for the best-fitting seed, and a folder of broken files ------


def _pick_workspace_seed(s: DemoState) -> None:
    rows = s.ctx.graph.read_dicts(GET_WORKSPACE_SEED, patterns=SAMPLE_PATTERNS, families=SAMPLE_FAMILIES)
    s.workspace_seed = str(rows[0]["seed_id"]) if rows else None


def _generate_sample_workspace(s: DemoState) -> None:
    s.sample = generate_sample_workspace(s.data / "workspace")


def _ingest_sample_workspace(s: DemoState) -> load_workspace.LoadWorkspaceResult:
    sample = _set(s.sample, "generate sample workspace")
    return load_workspace.run(s.ctx, load_workspace.LoadWorkspaceParams(
        root=Path(sample.root), seed_id=s.workspace_seed, use_llm_roles=False))


def _generate_broken_files(s: DemoState) -> None:
    s.broken = generate_broken_files(s.data / "broken")


def _ingest_broken_files(s: DemoState) -> load_workspace.LoadWorkspaceResult:
    broken = _set(s.broken, "generate broken files")
    result = load_workspace.run(s.ctx, load_workspace.LoadWorkspaceParams(
        root=Path(broken.root), workspace_id="ws-sample-broken", max_file_bytes=broken.max_file_bytes,
        timeout_s=broken.timeout_s, use_llm_roles=False))
    s.say(f"  {len(result.invalid)} broken files recorded as invalid with their reasons")
    return result


# ---- 4-5. Evidence graph and spec ---------------------------------------------------------------


def _build_evidence(s: DemoState) -> build_evidence.BuildEvidenceResult:
    return build_evidence.run(s.ctx, build_evidence.BuildEvidenceParams())


def _compile_specs(s: DemoState) -> None:
    specs = compile_specs.run(s.ctx, compile_specs.CompileSpecsParams())
    s.spec_ids = [spec.spec_id for spec in specs.specs]


# ---- 6-8. Oracle rollouts, revision, judging with every arm, admission, judge sensitivity -------


def _oracle_rollout(s: DemoState, inject: list[InjectKind]) -> None:
    for spec_id in s.spec_ids:
        out = rollout_oracle.run(s.ctx, rollout_oracle.RolloutOracleParams(spec_id=spec_id, inject=inject))
        if not inject:
            s.correct_ids.append(out.trajectory_id)


def _revise_specs(s: DemoState) -> revise_specs.ReviseSpecsResult:
    return revise_specs.run(s.ctx, revise_specs.ReviseSpecsParams())


def _judge(s: DemoState, arm: JudgeArm) -> judge_trajectories.JudgeTrajectoriesResult:
    return judge_trajectories.run(s.ctx, judge_trajectories.JudgeTrajectoriesParams(arm=arm))


def _admit(s: DemoState) -> None:
    s.admitted = admit_trajectories.run(s.ctx, admit_trajectories.AdmitTrajectoriesParams())


def _judge_sensitivity(s: DemoState) -> None:
    from graphforge.llm import chat_model

    if chat_model(s.ctx.settings) is None:
        s.sensitivity = judge_sensitivity.run(s.ctx, judge_sensitivity.JudgeSensitivityParams())
        return
    # With a chat model: the deterministic verifiers' table, and beside it the anchored chat-model judge's
    # on a sample (each perturbed copy costs one call per criterion, about 40 s each with the bundled local
    # model on two cores): one trajectory, one case per kind.
    # A weak chat model may admit nothing; the study then perturbs the correct oracle rollouts (their
    # deliverables are right by construction), and says so.
    chosen: dict[str, Any] = {}
    note = ""
    if s.admitted is not None and not s.admitted.funnel.admitted:
        chosen = {"trajectory_ids": s.correct_ids, "statuses": [st.value for st in TrajectoryStatus]}
        note = "Nothing was admitted: the study perturbs the correct oracle rollouts instead.\n\n"
    s.sensitivity = judge_sensitivity.run(s.ctx, judge_sensitivity.JudgeSensitivityParams(use_llm=False,
                                                                                          **chosen))
    s.sensitivity_llm = judge_sensitivity.run(s.ctx, judge_sensitivity.JudgeSensitivityParams(
        arms=[JudgeArm.ANCHORED], max_trajectories=1, max_cases_per_kind=1, report="sensitivity-llm",
        **chosen))
    if note:
        s.sensitivity = s.sensitivity.model_copy(update={"table": note + s.sensitivity.table})
        s.sensitivity_llm = s.sensitivity_llm.model_copy(update={"table": note + s.sensitivity_llm.table})


# ---- 9. Contamination audit against the bundled benchmark sample --------------------------------


def _benchmark_sample(s: DemoState) -> None:
    s.benchmark_root = Path(sample_benchmark.write_benchmark_sample(s.data / "benchmark").root)


def _load_benchmark(s: DemoState) -> load_benchmark.LoadBenchmarkResult:
    return load_benchmark.run(s.ctx, load_benchmark.LoadBenchmarkParams(
        root=_set(s.benchmark_root, "benchmark sample"), name=BENCHMARK))


def _contamination_audit(s: DemoState) -> None:
    s.audit = audit_contamination.run(s.ctx, audit_contamination.AuditContaminationParams(
        benchmarks=[BENCHMARK], out_dir=s.out_dir / "reports" / "audit"))


# ---- 10. Exports for the trainer ----------------------------------------------------------------


def _export_sft(s: DemoState) -> None:
    s.sft = export_sft.run(s.ctx, export_sft.ExportSftParams(out_dir=s.export_dir, benchmarks=[BENCHMARK]))


def _export_rft(s: DemoState, arm: JudgeArm) -> export_rft.ExportRftResult:
    return export_rft.run(s.ctx, export_rft.ExportRftParams(out_dir=s.export_dir, arm=arm,
                                                            benchmarks=[BENCHMARK]))


def _export_rubrics(s: DemoState) -> export_rubrics.ExportRubricsResult:
    return export_rubrics.run(s.ctx, export_rubrics.ExportRubricsParams(out_dir=s.export_dir))


# ---- 12. Evaluation and reports -----------------------------------------------------------------


def _comparison_sample(s: DemoState) -> None:
    s.comparisons = sample_comparisons.write_sample(s.data / "comparisons.jsonl")


def _elo(s: DemoState) -> None:
    # Stored in the graph (a RatingRun and a Rating per player), so Browser's Elo slide shows this fit.
    stored = eval_ratings.run(s.ctx, eval_ratings.StoreRatingsParams(elo=elo.EloParams(
        comparisons=_set(s.comparisons, "comparison sample"), anchor=sample_comparisons.SAMPLE_ANCHOR,
        bootstrap=2000, seed=0, out_dir=s.eval_dir)))
    s.ratings, s.rating_run_id = stored.elo, stored.run_id


def _win_rates(s: DemoState) -> winrate.WinRateResult:
    s.win_rates = winrate.run(winrate.WinRateParams(
        comparisons=_set(s.comparisons, "comparison sample"), a="sft-27b (openhands)",
        b="base-27b (openhands)", by="covered", out_dir=s.eval_dir))
    return s.win_rates


def _corpus_report(s: DemoState) -> None:
    s.corpus = report_corpus.run(
        s.ctx, report_corpus.ReportCorpusParams(out_dir=s.out_dir / "reports" / "corpus"))


def _captions(s: DemoState) -> int:
    """A short caption on every node, for Neo4j Browser (the GraphForge style shows it)."""
    return set_captions(s.ctx.graph)


def _label(inject: list[InjectKind]) -> str:
    return ", ".join(k.value for k in inject) or "correct"


STEPS: tuple[Step, ...] = (
    Step("taxonomy sample", _taxonomy_sample),
    Step("load O*NET", _load_onet),
    Step("load DIGITAL labels", _load_digital),
    Step("load vocabularies", _load_vocab),
    Step("build seeds", _build_seeds),
    Step("select seeds", _select_seeds),
    Step("coverage report", _coverage_report),
    Step("pick workspace seed", _pick_workspace_seed),
    Step("generate sample workspace", _generate_sample_workspace),
    Step("ingest sample workspace", _ingest_sample_workspace),
    Step("generate broken files", _generate_broken_files),
    Step("ingest broken files", _ingest_broken_files),
    Step("build evidence", _build_evidence),
    Step("compile specs", _compile_specs),
    *(Step(f"oracle rollout ({_label(i)})", partial(_oracle_rollout, inject=i)) for i in INJECTIONS),
    Step("revise specs", _revise_specs),
    *(Step(f"judge ({arm.value})", partial(_judge, arm=arm))
      for arm in (JudgeArm.ANCHORED, JudgeArm.UNANCHORED, JudgeArm.RANDOM)),
    Step("admit", _admit),
    Step("judge sensitivity", _judge_sensitivity),
    Step("benchmark sample", _benchmark_sample),
    Step("load benchmark", _load_benchmark),
    Step("contamination audit", _contamination_audit),
    Step("export SFT", _export_sft),
    *(Step(f"export RFT ({arm.value})", partial(_export_rft, arm=arm)) for arm in JudgeArm),
    Step("export rubrics", _export_rubrics),
    Step("comparison sample", _comparison_sample),
    Step("Bradley-Terry Elo", _elo),
    Step("win rates", _win_rates),
    Step("corpus report", _corpus_report),
    Step("Browser captions", _captions),
)


def run_demo(settings: GraphforgeSettings | None = None, out_dir: Path = Path("out/demo"),
             console: Console | None = None) -> DemoResult:
    """Run ``STEPS`` in order on generated sample data, printing each step's name and wall time."""
    settings = settings or GraphforgeSettings()
    say = (console or Console(stderr=True)).print
    out_dir = out_dir.resolve()
    timings: dict[str, float] = {}
    with open_context(settings, out_dir=out_dir, start=True) as ctx:
        state = DemoState(ctx=ctx, out_dir=out_dir, say=say)
        for step in STEPS:
            say(f"[bold cyan]▶ {step.name}[/]")
            run_stage(ctx, step.name, partial(step.fn, state), timings)
            say(f"  done in {timings[step.name]:.1f}s")
        say(f"[bold]{len(STEPS)} steps in {sum(timings.values()):.1f}s[/]")
        component = chores.server_component(ctx.graph)
        counts = chores.counts(ctx.graph)

    info = server.resolve(settings, start=False)
    return _result(state, component.version, info, counts, timings)


def _result(s: DemoState, version: str, info: server.ServerInfo, counts: chores.GraphCounts,
            timings: dict[str, float]) -> DemoResult:
    selected = _set(s.selected, "select seeds")
    admitted = _set(s.admitted, "admit")
    sensitivity = _set(s.sensitivity, "judge sensitivity")
    audit = _set(s.audit, "contamination audit")
    ratings = _set(s.ratings, "Bradley-Terry Elo")
    export_dir = s.export_dir
    return DemoResult(
        project=s.ctx.settings.project_name,
        neo4j_version=version, bolt_uri=info.uri, browser_url=info.browser_url, out_dir=str(s.out_dir),
        seeds_selected=selected.selected, workspace_seed=s.workspace_seed, spec_ids=s.spec_ids,
        funnel=admitted.funnel.model_dump(), sensitivity=sensitivity.table,
        sensitivity_llm=s.sensitivity_llm.table if s.sensitivity_llm else None,
        audit_id=audit.audit_id, audit_found_overlaps=audit.found_overlaps,
        exports={"sft": str(export_dir / "sft.jsonl"), "sft_parquet": str(export_dir / "sft.parquet"),
                 "rft_anchored": str(export_dir / "rft-anchored.jsonl"),
                 "rubrics": str(export_dir / "rubrics.jsonl"),
                 "sft_rows": str(_set(s.sft, "export SFT").rows)},
        reports={"coverage": _set(s.coverage, "coverage report").html,
                 "corpus": str(_set(s.corpus, "corpus report").outputs.get("html", "")),
                 "elo": str(ratings.outputs.get("html", "")), "audit": str(audit.report_html or ""),
                 "winrate": str(_set(s.win_rates, "win rates").outputs.get("html", "")),
                 "sensitivity": sensitivity.report_dir},
        elo_top=[f"{r.model}: {r.elo:.1f} [{r.ci_low:.1f}, {r.ci_high:.1f}]" for r in ratings.ratings[:5]],
        nodes=counts.total_nodes, relationships=counts.total_relationships, stage_seconds=timings,
        browser_queries=sorted(str(p.relative_to(p.parents[2])) for p in
                               (cypher.CYPHER_DIR / "browser").glob("*.cypher")),
    )
