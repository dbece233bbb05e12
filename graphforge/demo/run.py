"""The demo: every stage of the pipeline on the bundled sample, in order, safe to re-run.

It lives in loaders/ because it reads external formats (an O*NET release, a workspace folder, a
benchmark folder) through the loaders; graphforge itself never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel
from rich.console import Console

from graphforge import cypher, db, server
from graphforge.context import StageContext, open_context
from graphforge.pipeline import run_stage
from graphforge.settings import GraphforgeSettings

T = TypeVar("T")

GET_WORKSPACE_SEED = cypher.load("demo/get_workspace_seed")

# The sample workspace is a finance case: quarterly figures in a PDF, a ledger, a CSV export.
SAMPLE_PATTERNS = ["data analysis and reporting", "data cleaning and reconciliation",
                   "review, audit and compliance checking"]
SAMPLE_FAMILIES = ["spreadsheet", "pdf", "csv"]
BENCHMARK = "gdpval-sample"


class DemoResult(BaseModel):
    neo4j_version: str
    bolt_uri: str
    browser_url: str | None
    out_dir: str
    seeds_selected: int
    workspace_seed: str | None
    spec_ids: list[str]
    funnel: dict[str, int]
    sensitivity: str
    audit_id: str
    audit_found_overlaps: bool
    exports: dict[str, str]
    reports: dict[str, str]
    elo_top: list[str]
    nodes: int
    relationships: int
    stage_seconds: dict[str, float]
    browser_queries: list[str]


def run_demo(settings: GraphforgeSettings | None = None, out_dir: Path = Path("out/demo"),
             console: Console | None = None) -> DemoResult:
    """Run the whole pipeline on generated sample data. Re-running MERGEs onto the same keys."""
    from graphforge.demo.sample import benchmark as sample_benchmark
    from graphforge.demo.sample import comparisons as sample_comparisons
    from graphforge.demo.sample import taxonomy as sample_taxonomy
    from graphforge.demo.sample.workspace import generate_broken_files, generate_sample_workspace
    from graphforge.eval import elo, winrate
    from graphforge.export import rubrics
    from graphforge.models.judge import JudgeArm
    from graphforge.oracle import InjectKind
    from graphforge.stages import (
        admit_trajectories,
        audit_contamination,
        build_evidence,
        build_seeds,
        compile_specs,
        export_rft,
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

    settings = settings or GraphforgeSettings()
    say = (console or Console(stderr=True)).print
    out_dir = out_dir.resolve()
    data = out_dir / "data"
    timings: dict[str, float] = {}
    with open_context(settings, out_dir=out_dir) as ctx:

        def stage(name: str, fn: Callable[[], T]) -> T:
            say(f"[bold cyan]▶ {name}[/]")
            result = run_stage(ctx, name, fn, timings)
            say(f"  done in {timings[name]:.1f}s")
            return result

        # 1-2. Taxonomy and seeds.
        files = stage("taxonomy sample", lambda: sample_taxonomy.write_sample(data / "onet"))
        stage("load O*NET", lambda: load_onet.run(ctx, load_onet.LoadOnetParams(
            path=files["release"], release_id="sample-1", sectors=files["sectors"])))
        stage("load DIGITAL labels", lambda: load_digital.run(ctx, load_digital.LoadDigitalParams(
            mode=load_digital.DigitalMode.LABELS, labels=files["labels"])))
        stage("load vocabularies", lambda: load_vocab.run(ctx, load_vocab.LoadVocabParams()))
        stage("build seeds", lambda: build_seeds.run(ctx, build_seeds.BuildSeedsParams()))
        selected = stage("select seeds", lambda: select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=24)))
        coverage = stage("coverage report", lambda: report_coverage.run(
            ctx, report_coverage.ReportCoverageParams(out_dir=out_dir / "reports" / "coverage")))

        # 3. Workspaces: the sample case for the best-fitting seed, and a folder of broken files.
        seed = _workspace_seed(ctx)
        sample = stage("generate sample workspace", lambda: generate_sample_workspace(data / "workspace"))
        stage("ingest sample workspace", lambda: load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
            root=Path(sample.root), seed_id=seed, use_llm_roles=False)))
        broken = stage("generate broken files", lambda: generate_broken_files(data / "broken"))
        broken_load = stage("ingest broken files", lambda: load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
            root=Path(broken.root), workspace_id="ws-sample-broken", max_file_bytes=broken.max_file_bytes,
            timeout_s=broken.timeout_s, use_llm_roles=False)))
        say(f"  {len(broken_load.invalid)} broken files recorded as invalid with their reasons")

        # 4-5. Evidence graph and spec.
        stage("build evidence", lambda: build_evidence.run(ctx, build_evidence.BuildEvidenceParams()))
        specs = stage("compile specs", lambda: compile_specs.run(ctx, compile_specs.CompileSpecsParams()))
        spec_ids = [s.spec_id for s in specs.specs]

        # 6-8. Oracle rollouts (one correct, three with injected errors: K = 4 candidates per query),
        # revision, judging with every arm, admission, judge sensitivity.
        injections: list[list[InjectKind]] = [[], [InjectKind.WRONG_NUMBER], [InjectKind.CONFUSER],
                                              [InjectKind.MISSING_DELIVERABLE]]
        for spec_id in spec_ids:
            for inject in injections:
                label = ", ".join(k.value for k in inject) or "correct"
                stage(f"oracle rollout ({label})", lambda s=spec_id, i=inject: rollout_oracle.run(
                    ctx, rollout_oracle.RolloutOracleParams(spec_id=s, inject=i)))
        stage("revise specs", lambda: revise_specs.run(ctx, revise_specs.ReviseSpecsParams()))
        for arm in (JudgeArm.ANCHORED, JudgeArm.UNANCHORED, JudgeArm.RANDOM):
            stage(f"judge ({arm.value})", lambda a=arm: judge_trajectories.run(
                ctx, judge_trajectories.JudgeTrajectoriesParams(arm=a)))
        admitted = stage("admit", lambda: admit_trajectories.run(
            ctx, admit_trajectories.AdmitTrajectoriesParams()))
        sensitivity = stage("judge sensitivity", lambda: judge_sensitivity.run(
            ctx, judge_sensitivity.JudgeSensitivityParams()))

        # 9. Contamination audit against the bundled benchmark sample.
        bench = stage("benchmark sample", lambda: sample_benchmark.write_benchmark_sample(data / "benchmark"))
        stage("load benchmark", lambda: load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(
            root=Path(bench.root), name=BENCHMARK)))
        audit = stage("contamination audit", lambda: audit_contamination.run(
            ctx, audit_contamination.AuditContaminationParams(benchmarks=[BENCHMARK],
                                                              out_dir=out_dir / "reports" / "audit")))

        # 10. Exports for the trainer.
        export_dir = out_dir / "export"
        sft = stage("export SFT", lambda: export_sft.run(
            ctx, export_sft.ExportSftParams(out_dir=export_dir, benchmarks=[BENCHMARK])))
        for arm in JudgeArm:
            stage(f"export RFT ({arm.value})", lambda a=arm: export_rft.run(
                ctx, export_rft.ExportRftParams(out_dir=export_dir, arm=a, benchmarks=[BENCHMARK])))
        stage("export rubrics", lambda: rubrics.run(ctx, rubrics.ExportRubricsParams(out_dir=export_dir)))

        # 12. Evaluation and reports.
        eval_dir = out_dir / "reports" / "eval"
        comparisons = stage("comparison sample", lambda: sample_comparisons.write_sample(
            data / "comparisons.jsonl"))
        ratings = stage("Bradley-Terry Elo", lambda: elo.run(elo.EloParams(
            comparisons=comparisons, anchor=sample_comparisons.SAMPLE_ANCHOR, bootstrap=2000, seed=0,
            out_dir=eval_dir)))
        stage("win rates", lambda: winrate.run(winrate.WinRateParams(
            comparisons=comparisons, a="sft-27b (openhands)", b="base-27b (openhands)", by="covered",
            out_dir=eval_dir)))
        corpus = stage("corpus report", lambda: report_corpus.run(
            ctx, report_corpus.ReportCorpusParams(out_dir=out_dir / "reports" / "corpus")))

        component = db.server_component(ctx.graph)
        counts = db.counts(ctx.graph)

    info = server.resolve(settings, start=False)
    return DemoResult(
        neo4j_version=component.version, bolt_uri=info.uri, browser_url=info.browser_url,
        out_dir=str(out_dir),
        seeds_selected=selected.selected, workspace_seed=seed, spec_ids=spec_ids,
        funnel=admitted.funnel.model_dump(), sensitivity=sensitivity.table,
        audit_id=audit.audit_id, audit_found_overlaps=audit.found_overlaps,
        exports={"sft": str(export_dir / "sft.jsonl"), "sft_parquet": str(export_dir / "sft.parquet"),
                 "rft_anchored": str(export_dir / "rft-anchored.jsonl"),
                 "rubrics": str(export_dir / "rubrics.jsonl"), "sft_rows": str(sft.rows)},
        reports={"coverage": coverage.html, "corpus": str(corpus.outputs.get("html", "")),
                 "elo": str(ratings.outputs.get("html", "")), "audit": str(audit.report_html or ""),
                 "sensitivity": sensitivity.report_dir},
        elo_top=[f"{r.model}: {r.elo:.1f} [{r.ci_low:.1f}, {r.ci_high:.1f}]" for r in ratings.ratings[:5]],
        nodes=counts.total_nodes, relationships=counts.total_relationships, stage_seconds=timings,
        browser_queries=sorted(str(p.relative_to(p.parents[2])) for p in
                               (cypher.CYPHER_DIR / "browser").glob("*.cypher")),
    )


def _workspace_seed(ctx: StageContext) -> str | None:
    rows = ctx.graph.read_dicts(GET_WORKSPACE_SEED, patterns=SAMPLE_PATTERNS, families=SAMPLE_FAMILIES)
    return str(rows[0]["seed_id"]) if rows else None
