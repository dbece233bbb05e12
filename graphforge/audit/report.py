"""The audit report: one self-contained HTML page for people and one JSON file for tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphforge.audit.overlap import OverlapFindings
from graphforge.reports.html import Section, write_report


class OccupationCoverage(BaseModel):
    occupation: str
    soc_code: str | None
    in_taxonomy: bool
    tasks: int
    task_keys: list[str]
    seeds: int

    @property
    def covered(self) -> bool:
        return self.seeds > 0


def write_audit_report(out_dir: Path, audit_id: str, benchmarks: list[str], found_overlaps: bool,
                       findings: OverlapFindings, coverage: list[OccupationCoverage], params: dict[str, Any],
                       top_k: int, min_shared_ngrams: int) -> tuple[Path, Path]:
    """Write ``audit-<id>.html`` and ``audit-<id>.json`` under ``out_dir``; returns both paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"audit-{audit_id}.json"
    payload = {"audit_id": audit_id, "benchmarks": benchmarks, "found_overlaps": found_overlaps,
               "params": params, "findings": findings.model_dump(mode="json"),
               "coverage": [dict(c.model_dump(mode="json"), covered=c.covered) for c in coverage]}
    json_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
                         encoding="utf-8")

    flagged = [p for p in findings.pairs if p.shared_ngrams >= min_shared_ngrams]
    verdict = ("OVERLAPS FOUND: export is refused until they are removed or explicitly accepted."
               if found_overlaps else "No overlap found: no shared file and no shared "
               f"{findings.ngram_size}-gram between training files and benchmark texts.")
    covered = [c for c in coverage if c.covered]
    sections = [
        Section(
            "Summary",
            verdict,
            ("measure", "value"),
            [
                ("training files (valid)", findings.training_files),
                ("broken files (not training data; checked for identical bytes only)",
                 findings.training_invalid),
                ("training tokens", findings.training_tokens),
                ("training files too short for one n-gram", findings.training_too_short),
                ("benchmark files", findings.benchmark_files),
                ("benchmark prompts", findings.benchmark_prompts),
                ("benchmark tokens", findings.benchmark_tokens),
                ("identical files (sha256)", len(findings.hash_overlaps)),
                (
                    f"pairs sharing >= 1 {findings.ngram_size}-gram",
                    sum(1 for p in findings.pairs if p.shared_ngrams),
                ),
                (f"pairs sharing >= {min_shared_ngrams} (flagged)", len(flagged)),
                ("MinHash LSH candidates", findings.minhash_candidates),
                ("benchmark occupations covered by training seeds", f"{len(covered)} of {len(coverage)}"),
            ],
        ),
        Section(
            "File level: identical bytes",
            "" if findings.hash_overlaps else "No training file has the sha256 of a benchmark file.",
            ("sha256", "training paths", "benchmark paths"),
            [
                (h.sha256[:16], ", ".join(h.training_paths), ", ".join(h.benchmark_labels))
                for h in findings.hash_overlaps
            ],
        ),
        Section(
            f"Text level: top {top_k} most similar pairs",
            "" if findings.pairs else f"No pair shares a normalised {findings.ngram_size}-gram.",
            (
                "training file",
                "benchmark text",
                "shared n-grams",
                "containment",
                "jaccard",
                "found by",
                "longest shared passages",
            ),
            [
                (
                    ", ".join(p.training_paths) or p.training_sha256[:16],
                    f"{p.benchmark_kind}: {p.benchmark_label}",
                    p.shared_ngrams,
                    f"{p.containment:.3f}",
                    f"{p.jaccard:.3f}",
                    "+".join(p.found_by),
                    " | ".join(p.passages),
                )
                for p in findings.pairs[:top_k]
            ],
        ),
        Section(
            "Taxonomy level: benchmark occupations",
            "An occupation is covered when at least one training seed is for it.",
            ("occupation", "O*NET-SOC", "in taxonomy", "tasks", "seeds", "covered"),
            [
                (
                    c.occupation,
                    c.soc_code or "",
                    "yes" if c.in_taxonomy else "no",
                    c.tasks,
                    c.seeds,
                    "yes" if c.covered else "no",
                )
                for c in coverage
            ],
        ),
        Section(
            "Parameters",
            "",
            ("parameter", "value"),
            [(k, json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in params.items()]
            + [("lsh bands x rows", f"{findings.lsh_bands} x {findings.lsh_rows}")],
        ),
    ]
    html_path = write_report(out_dir / f"audit-{audit_id}.html", f"Contamination audit {audit_id}", sections,
                             subtitle="Benchmarks: " + ", ".join(benchmarks))
    return html_path, json_path
