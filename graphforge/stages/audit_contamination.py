"""Audit training workspace files against benchmarks: identical files, shared 13-grams, occupations."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.audit.occupations import link_occupations
from graphforge.audit.overlap import (
    BenchmarkDoc,
    Method,
    OverlapFindings,
    PairFinding,
    TrainingDoc,
    find_overlaps,
)
from graphforge.audit.report import OccupationCoverage, write_audit_report
from graphforge.audit.summary import AuditRow, fingerprint_of, record_audit
from graphforge.context import StageContext
from graphforge.errors import ConfigError
from graphforge.graphdb import cypher
from graphforge.models.base import Row, stable_hash

GET_BENCHMARK_NAMES = cypher.load("audit/get_benchmark_names")
GET_BENCHMARK_FILES = cypher.load("audit/get_benchmark_files")
GET_BENCHMARK_PROMPTS = cypher.load("audit/get_benchmark_prompts")
STREAM_TRAINING_FILES = cypher.load("audit/stream_training_files")
GET_OCCUPATION_COVERAGE = cypher.load("audit/get_occupation_coverage")
MERGE_NEAR_DUPLICATES = cypher.load("audit/merge_near_duplicates")
MERGE_PROMPT_OVERLAPS = cypher.load("audit/merge_prompt_overlaps")


class AuditContaminationParams(BaseModel):
    """Options of the audit_contamination stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmarks: list[str] = Field(min_length=1)
    top_k: int = Field(20, ge=1, description="The paper inspected the top-20 most similar pairs.")
    ngram_size: int = Field(13, ge=1)
    # A pair is an overlap from this many shared n-grams on; one shared 13-gram is already a copied passage.
    min_shared_ngrams: int = Field(1, ge=1)
    method: Method = "both"
    minhash_threshold: float = Field(0.5, gt=0, lt=1)
    num_perm: int = Field(128, ge=8, le=1024)
    include_prompts: bool = True
    out_dir: Path | None = Field(None, description="Default: <ctx.out_dir>/audit.")


class TopPair(BaseModel):
    training_paths: list[str]
    benchmark: str
    shared_ngrams: int
    containment: float
    passages: list[str]


class AuditContaminationResult(BaseModel):
    """What the audit_contamination stage did."""

    audit_id: str
    benchmarks: list[str]
    found_overlaps: bool
    training_files: int
    training_tokens: int
    benchmark_files: int
    benchmark_prompts: int
    hash_overlaps: int
    ngram_overlap_pairs: int  # pairs sharing at least min_shared_ngrams n-grams
    near_duplicate_edges: int
    minhash_candidates: int
    benchmark_occupations: int
    covered_occupations: int
    uncovered_occupations: list[str]
    top_pairs: list[TopPair]
    report_html: str
    report_json: str
    seconds: float
    tokens_per_second: float


class _TrainingRecord(BaseModel):
    sha256: str
    paths: list[str]
    texts: list[str | None]
    valid: bool = True


class NearDuplicateRow(Row):
    kind: str  # "file": the key is a BenchmarkFile sha256; "prompt": a BenchmarkTask task_key
    benchmark_key: str
    training_sha256: str
    score: float  # containment: the share of the benchmark text's n-grams found in the training file
    shared_ngrams: int
    jaccard: float
    identical: bool
    found_by: list[str]
    passages: list[str]


def run(ctx: StageContext, params: AuditContaminationParams) -> AuditContaminationResult:
    """Compare the training workspaces' files with the benchmarks' (identical files, shared n-grams, near
    duplicates, occupations) and write the audit report."""
    started = time.perf_counter()
    graph = ctx.graph
    names = sorted(set(params.benchmarks))
    loaded = {r["name"] for r in graph.read_dicts(GET_BENCHMARK_NAMES, benchmarks=names)}
    if missing := [n for n in names if n not in loaded]:
        raise ConfigError(f"benchmark(s) not loaded: {', '.join(missing)} "
                          "(run `graphforge load benchmark DIR --name NAME` first)")
    link_occupations(graph, names)  # the taxonomy may have been loaded after the benchmark

    files = graph.read_dicts(GET_BENCHMARK_FILES, benchmarks=names)
    docs = [BenchmarkDoc(key=f["sha256"], kind="file", label=", ".join(f["labels"]), text=f["text"],
                         benchmarks=f["benchmarks"]) for f in files]
    if params.include_prompts:
        docs += [BenchmarkDoc(key=p["task_key"], kind="prompt", label=f"{p['benchmark']}/{p['task_id']}",
                              text=p["prompt"] or "", benchmarks=[p["benchmark"]])
                 for p in graph.read_dicts(GET_BENCHMARK_PROMPTS, benchmarks=names)]
    sha_labels = {f["sha256"]: list(f["labels"]) for f in files}
    seen_training: list[str] = []

    def training() -> Iterator[TrainingDoc]:
        for record in graph.stream(STREAM_TRAINING_FILES, _TrainingRecord):
            seen_training.append(record.sha256)
            yield TrainingDoc(sha256=record.sha256, text="\n\n".join(t for t in record.texts if t),
                              paths=record.paths, valid=record.valid)

    findings = find_overlaps(training(), docs, sha_labels, ngram_size=params.ngram_size, method=params.method,
                             minhash_threshold=params.minhash_threshold, num_perm=params.num_perm,
                             top_k=params.top_k)
    coverage = [
        OccupationCoverage(
            occupation=r["occupation"],
            soc_code=r["soc_code"],
            in_taxonomy=r["in_taxonomy"],
            tasks=len(r["task_keys"]),
            task_keys=sorted(r["task_keys"]),
            seeds=r["seeds"],
        )
        for r in graph.read_dicts(GET_OCCUPATION_COVERAGE, benchmarks=names)
    ]

    flagged = overlapping_pairs(findings, params.min_shared_ngrams)
    found = bool(findings.hash_overlaps) or bool(flagged)
    training_fp = fingerprint_of(seen_training)
    settings = params.model_dump(mode="json", exclude={"out_dir", "benchmarks"})
    audit_id = stable_hash(names, training_fp, fingerprint_of([d.key + stable_hash(d.text) for d in docs]),
                           settings)
    identical = {h.sha256 for h in findings.hash_overlaps}
    rows = [_edge_row(p, identical) for p in flagged]
    # Identical files with no text (images, invalid files) still get an edge: the bytes are the overlap.
    rows += [
        NearDuplicateRow(
            kind="file",
            benchmark_key=sha,
            training_sha256=sha,
            score=1.0,
            shared_ngrams=0,
            jaccard=1.0,
            identical=True,
            found_by=["sha256"],
            passages=[],
        )
        for sha in sorted(identical)
        if not any(r.benchmark_key == sha == r.training_sha256 for r in rows)
    ]
    edges = graph.write(MERGE_NEAR_DUPLICATES, [r for r in rows if r.kind == "file"],
                        audit_id=audit_id)
    edges += graph.write(MERGE_PROMPT_OVERLAPS, [r for r in rows if r.kind == "prompt"], audit_id=audit_id)

    out_dir = params.out_dir or ctx.out_dir / "audit"
    html_path, json_path = write_audit_report(out_dir, audit_id, names, found, findings, coverage,
                                              dict(settings, benchmarks=names), params.top_k,
                                              params.min_shared_ngrams)
    covered = [c for c in coverage if c.covered]
    record_audit(graph, AuditRow(
        audit_id=audit_id, benchmarks=names, found_overlaps=found, training_fingerprint=training_fp,
        benchmark_fingerprint=fingerprint_of(list(sha_labels)), training_files=findings.training_files,
        benchmark_files=findings.benchmark_files, benchmark_prompts=findings.benchmark_prompts,
        hash_overlaps=len(findings.hash_overlaps), ngram_overlap_pairs=len(flagged), near_duplicates=edges,
        minhash_candidates=findings.minhash_candidates, benchmark_occupations=len(coverage),
        covered_occupations=len(covered), ngram_size=params.ngram_size,
        min_shared_ngrams=params.min_shared_ngrams, minhash_threshold=params.minhash_threshold,
        num_perm=params.num_perm, training_tokens=findings.training_tokens,
        benchmark_tokens=findings.benchmark_tokens, report_html=str(html_path), report_json=str(json_path),
        run_id=ctx.run_id))
    seconds = time.perf_counter() - started
    return AuditContaminationResult(
        audit_id=audit_id,
        benchmarks=names,
        found_overlaps=found,
        training_files=findings.training_files,
        training_tokens=findings.training_tokens,
        benchmark_files=findings.benchmark_files,
        benchmark_prompts=findings.benchmark_prompts,
        hash_overlaps=len(findings.hash_overlaps),
        ngram_overlap_pairs=len(flagged),
        near_duplicate_edges=edges,
        minhash_candidates=findings.minhash_candidates,
        benchmark_occupations=len(coverage),
        covered_occupations=len(covered),
        uncovered_occupations=sorted(c.occupation for c in coverage if not c.covered),
        top_pairs=[
            TopPair(
                training_paths=p.training_paths,
                benchmark=f"{p.benchmark_kind}: {p.benchmark_label}",
                shared_ngrams=p.shared_ngrams,
                containment=p.containment,
                passages=p.passages,
            )
            for p in findings.pairs[: params.top_k]
        ],
        report_html=str(html_path),
        report_json=str(json_path),
        seconds=round(seconds, 3),
        tokens_per_second=round(findings.training_tokens / seconds, 1) if seconds > 0 else 0.0,
    )


def overlapping_pairs(findings: OverlapFindings, min_shared_ngrams: int) -> list[PairFinding]:
    """Pairs that count as contamination: at least ``min_shared_ngrams`` shared n-grams, or a verified
    MinHash near-duplicate (whole-document similarity above the threshold)."""
    return [p for p in findings.pairs if p.shared_ngrams >= min_shared_ngrams or "minhash" in p.found_by]


def _edge_row(pair: PairFinding, identical: set[str]) -> NearDuplicateRow:
    return NearDuplicateRow(
        kind=pair.benchmark_kind,
        benchmark_key=pair.benchmark_key,
        training_sha256=pair.training_sha256,
        score=pair.containment,
        shared_ngrams=pair.shared_ngrams,
        jaccard=pair.jaccard,
        identical=pair.benchmark_kind == "file"
        and pair.benchmark_key in identical
        and pair.training_sha256 == pair.benchmark_key,
        found_by=pair.found_by,
        passages=pair.passages,
    )
