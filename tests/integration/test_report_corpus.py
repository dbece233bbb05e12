"""Corpus report on a small seeded graph: every statistic equals the one computed from the fixture data."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from graphforge.context import StageContext
from graphforge.graphdb.graph import Graph
from graphforge.stages import report_corpus

pytestmark = pytest.mark.neo4j

SECTORS = {"11": "Management", "13": "Business and Financial", "15": "Computer and Mathematical",
           "23": "Legal"}  # 23 has no occupation: not a sector by the reports' one definition
SECTORS_WITH_OCCUPATIONS = ("11", "13", "15")
PATTERNS = ["data analysis and reporting", "research and source synthesis", "reconciliation",
            "document drafting", "scheduling"]  # scheduling stays unused
FORMATS = ["pdf", "xlsx", "docx", "csv", "html"]
STATUSES = ["admitted", "admitted", "admitted", "rejected", "discarded", "materialised", "failed", "judged"]


def _fixture(seed: int = 5) -> dict[str, list[dict[str, object]]]:
    rng = random.Random(seed)
    occupations = [{"soc_code": f"{s}-10{k}1.00", "sector": s} for s in ("11", "13", "15") for k in range(2)]
    seeds, workspaces, files, specs, trajectories, judgments = [], [], [], [], [], []
    for k in range(9):
        occ = rng.choice(occupations)
        seeds.append(
            {
                "seed_id": f"seed-{k}",
                "soc_code": occ["soc_code"],
                "dwa_id": f"4.A.{rng.randint(1, 5)}",
                "pattern": rng.choice(PATTERNS[:4]),
            }
        )
        workspaces.append({"workspace_id": f"ws-{k}", "seed_id": f"seed-{k}"})
        for fmt in rng.sample(FORMATS, rng.randint(1, 3)):
            files.append({"sha256": f"{k}-{fmt}", "format": fmt.upper() if k % 3 == 0 else fmt,
                          "workspace_id": f"ws-{k}"})
        specs.append({"spec_id": f"spec-{k}", "workspace_id": f"ws-{k}", "revised_from": None,
                      "reused_rollout": None})
        if k % 2 == 0:  # revised: half record reuse; the revised spec has no COMPILED_FROM of its own
            specs.append({"spec_id": f"spec-{k}-r", "workspace_id": None, "revised_from": f"spec-{k}",
                          "reused_rollout": None if k == 8 else k % 4 == 0})
    spec_ids = [s["spec_id"] for s in specs]
    for k in range(30):
        status = rng.choice(STATUSES)
        tokens = 262_144 if k in (3, 11) else rng.randint(50_000, 240_000)
        trajectories.append(
            {
                "trajectory_id": f"traj-{k:02d}",
                "spec_id": rng.choice(spec_ids),
                "status": status,
                "steps": rng.randint(10, 90),
                "tokens": tokens,
            }
        )
        if status in ("admitted", "rejected", "discarded", "judged"):
            judgments.append(
                {
                    "judgment_id": f"j-{k}",
                    "trajectory_id": f"traj-{k:02d}",
                    "arm": "anchored",
                    "q": round(rng.uniform(0.95, 1.0) if status == "admitted" else rng.uniform(-0.2, 1.0), 3),
                }
            )
            if k % 4 == 0:
                judgments.append(
                    {
                        "judgment_id": f"j-{k}-rnd",
                        "trajectory_id": f"traj-{k:02d}",
                        "arm": "random",
                        "q": round(rng.random(), 3),
                    }
                )
    trajectories.append({"trajectory_id": "traj-orphan", "spec_id": None, "status": "admitted", "steps": 12,
                         "tokens": 1000})
    # The revision stage's way of recording reuse: a copy of the rollout on the revised spec (REUSED_FROM).
    trajectories.append({"trajectory_id": "traj-copy", "spec_id": "spec-8-r", "status": "judged", "steps": 12,
                         "tokens": 1000, "reused_from": "traj-orphan"})
    return {
        "occupations": occupations,
        "seeds": seeds,
        "workspaces": workspaces,
        "files": files,
        "specs": specs,
        "trajectories": trajectories,
        "judgments": judgments,
    }


def _load(graph: Graph, data: dict[str, list[dict[str, object]]]) -> None:
    run = graph.driver.execute_query
    run("UNWIND $rows AS r MERGE (s:Sector {code: r.code}) SET s.name = r.title",
        rows=[{"code": c, "title": t} for c, t in SECTORS.items()])
    run("UNWIND $rows AS r MERGE (:ExecutionPattern {name: r})", rows=PATTERNS)
    run("UNWIND range(1, 7) AS k MERGE (:DWA {dwa_id: '4.A.' + k})")
    run("UNWIND $rows AS r MATCH (s:Sector {code: r.sector}) MERGE (o:Occupation {soc_code: r.soc_code}) "
        "MERGE (o)-[:IN_SECTOR]->(s)", rows=data["occupations"])
    run("UNWIND $rows AS r MATCH (o:Occupation {soc_code: r.soc_code}), (d:DWA {dwa_id: r.dwa_id}), "
        "(p:ExecutionPattern {name: r.pattern}) MERGE (s:Seed {seed_id: r.seed_id}) "
        "MERGE (s)-[:FOR_OCCUPATION]->(o) MERGE (s)-[:OF_TYPE]->(d) MERGE (s)-[:USES_PATTERN]->(p)",
        rows=data["seeds"])
    run(
        "UNWIND $rows AS r MATCH (s:Seed {seed_id: r.seed_id}) "
        "MERGE (w:Workspace {workspace_id: r.workspace_id}) MERGE (w)-[:FOR_SEED]->(s)",
        rows=data["workspaces"],
    )
    run("UNWIND $rows AS r MATCH (w:Workspace {workspace_id: r.workspace_id}) "
        "MERGE (f:File {sha256: r.sha256}) SET f.format = r.format MERGE (w)-[:CONTAINS {role: 'core'}]->(f)",
        rows=data["files"])
    run("UNWIND $rows AS r MERGE (t:TaskSpec {spec_id: r.spec_id}) SET t.reused_rollout = r.reused_rollout "
        "WITH t, r OPTIONAL MATCH (w:Workspace {workspace_id: r.workspace_id}) "
        "OPTIONAL MATCH (o:TaskSpec {spec_id: r.revised_from}) "
        "FOREACH (_ IN CASE WHEN w IS NULL THEN [] ELSE [1] END | MERGE (t)-[:COMPILED_FROM]->(w)) "
        "FOREACH (_ IN CASE WHEN o IS NULL THEN [] ELSE [1] END | MERGE (t)-[:REVISED_FROM]->(o))",
        rows=data["specs"])
    run("UNWIND $rows AS r MERGE (t:Trajectory {trajectory_id: r.trajectory_id}) "
        "SET t.status = r.status, t.steps = r.steps, t.tokens = r.tokens "
        "WITH t, r OPTIONAL MATCH (s:TaskSpec {spec_id: r.spec_id}) "
        "FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | MERGE (t)-[:ATTEMPTS]->(s))",
        rows=data["trajectories"])
    run("UNWIND $rows AS r MATCH (t:Trajectory {trajectory_id: r.trajectory_id}), "
        "(o:Trajectory {trajectory_id: r.reused_from}) MERGE (t)-[:REUSED_FROM]->(o)",
        rows=[t for t in data["trajectories"] if t.get("reused_from")])
    run(
        "UNWIND $rows AS r MATCH (t:Trajectory {trajectory_id: r.trajectory_id}) "
        "MERGE (j:Judgment {judgment_id: r.judgment_id}) SET j.q = r.q, j.arm = r.arm "
        "MERGE (j)-[:SCORES]->(t)",
        rows=data["judgments"],
    )


def _expected(
    data: dict[str, list[dict[str, object]]], statuses: set[str], admit_q: float
) -> dict[str, object]:
    specs = {s["spec_id"]: s for s in data["specs"]}
    seeds = {s["seed_id"]: s for s in data["seeds"]}
    ws_seed = {w["workspace_id"]: w["seed_id"] for w in data["workspaces"]}
    sector_of = {o["soc_code"]: o["sector"] for o in data["occupations"]}
    formats_of: dict[str, set[str]] = {}
    for f in data["files"]:
        formats_of.setdefault(str(f["workspace_id"]), set()).add(str(f["format"]).lower())
    corpus = [t for t in data["trajectories"] if t["status"] in statuses]
    facets = []
    for t in corpus:
        spec = specs.get(t["spec_id"]) if t["spec_id"] else None
        while spec is not None and spec["workspace_id"] is None:
            spec = specs[spec["revised_from"]]
        ws = spec["workspace_id"] if spec else None
        seed = seeds[ws_seed[ws]] if ws else None
        facets.append(
            {
                "pattern": seed["pattern"] if seed else None,
                "sector": sector_of[seed["soc_code"]] if seed else None,
                "dwa": seed["dwa_id"] if seed else None,
                "formats": formats_of.get(ws, set()) if ws else set(),
                "steps": t["steps"],
                "tokens": t["tokens"],
            }
        )
    linked = [f for f in facets if f["pattern"]]
    steps = np.array([f["steps"] for f in facets], dtype=float)
    tokens = np.array([f["tokens"] for f in facets], dtype=float)
    judged_ids = {j["trajectory_id"] for j in data["judgments"]}
    best = {}
    for j in data["judgments"]:
        if j["arm"] != "random":
            best[j["trajectory_id"]] = max(best.get(j["trajectory_id"], -9.0), j["q"])
    every = data["trajectories"]
    revised = [s for s in data["specs"] if s["revised_from"]]
    attempts = Counter(t["spec_id"] for t in every)
    copies = Counter(t["spec_id"] for t in every if t.get("reused_from"))

    def reuse(spec: dict[str, object]) -> bool | None:
        if spec["reused_rollout"] is not None:
            return bool(spec["reused_rollout"])
        return True if copies[spec["spec_id"]] else False if attempts[spec["spec_id"]] else None

    reused = sum(1 for s in revised if reuse(s) is True)
    rerun = sum(1 for s in revised if reuse(s) is False)
    return {
        "trajectories": len(corpus),
        "by_pattern": Counter(f["pattern"] or report_corpus.UNLINKED for f in facets),
        "by_sector": Counter(SECTORS[f["sector"]] if f["sector"] else report_corpus.UNLINKED for f in facets),
        "cells": {(SECTORS[f["sector"]], f["pattern"]) for f in linked},
        "task_types": len({f["dwa"] for f in linked}),
        "steps": (steps.mean(), np.median(steps), np.percentile(steps, 95)),
        "tokens": (tokens.mean(), np.median(tokens), np.percentile(tokens, 95)),
        "at_ceiling": int((tokens >= 262_144).sum()),
        "pdf_share": sum(1 for f in facets if "pdf" in f["formats"]) / len(facets),
        "funnel": {"trajectories": len(every),
                   "materialised": sum(1 for t in every if t["status"] != "failed"),
                   "judged": sum(1 for t in every if t["status"] in ("judged", "admitted", "rejected")
                                 or (t["status"] == "discarded" and t["trajectory_id"] in judged_ids)),
                   "passed_q": sum(1 for t in every if t["status"] == "admitted" or (
                       t["status"] == "discarded" and best.get(t["trajectory_id"], -9.0) > admit_q)),
                   "admitted": sum(1 for t in every if t["status"] == "admitted")},
        "anchored_q": [j["q"] for j in data["judgments"] if j["arm"] == "anchored"],
        "revisions": (len(data["specs"]) - len(revised), len(revised), reused, rerun),
        "reuse_rate": reused / (reused + rerun),
    }


@pytest.mark.parametrize("statuses", [["admitted"], None])
def test_corpus_report_statistics_match_the_fixture(ctx: StageContext, tmp_path: Path,
                                                    statuses: list[str] | None) -> None:
    data = _fixture()
    _load(ctx.graph, data)
    params = report_corpus.ReportCorpusParams(out_dir=tmp_path / "r", statuses=statuses)
    result = report_corpus.run(ctx, params)
    want = _expected(data, set(statuses) if statuses else set(STATUSES) | {"admitted"}, params.admit_q)

    assert result.trajectories == want["trajectories"]
    assert {s.name: s.trajectories for s in result.by_pattern} == want["by_pattern"]
    assert {s.name: s.trajectories for s in result.by_sector} == want["by_sector"]  # names, not codes
    assert {(c.sector, c.pattern) for c in result.cells} == want["cells"]
    assert result.cells_realised == len(want["cells"])
    assert result.cells_possible == len(SECTORS_WITH_OCCUPATIONS) * len(PATTERNS)
    assert result.task_types == want["task_types"] and result.task_types_total == 7
    assert result.sectors_total == len(SECTORS_WITH_OCCUPATIONS) and result.patterns_total == len(PATTERNS)
    assert (result.steps.mean, result.steps.median, result.steps.p95) == pytest.approx(want["steps"])
    assert (result.tokens.mean, result.tokens.median, result.tokens.p95) == pytest.approx(want["tokens"])
    assert result.at_token_ceiling == want["at_ceiling"]
    assert result.pdf_share == pytest.approx(want["pdf_share"])
    assert result.funnel.model_dump() == want["funnel"]
    anchored = next(q for q in result.q if q.arm == "anchored")
    assert anchored.judgments == len(want["anchored_q"])
    assert anchored.mean == pytest.approx(float(np.mean(want["anchored_q"])))
    rev = result.revisions
    assert (rev.initial_specs, rev.revised_specs, rev.reused, rev.rerun) == want["revisions"]
    assert result.revision_reuse_rate == pytest.approx(want["reuse_rate"])
    assert result.unlinked == want["by_pattern"].get(report_corpus.UNLINKED, 0)

    html = Path(result.outputs["html"]).read_text(encoding="utf-8")
    assert "Trajectories by execution pattern" in html and "data:image/png;base64" in html
    saved = json.loads(Path(result.outputs["json"]).read_text(encoding="utf-8"))
    assert saved["trajectories"] == want["trajectories"]


def test_corpus_report_on_an_empty_graph_reports_na(ctx: StageContext, tmp_path: Path) -> None:
    result = report_corpus.run(ctx, report_corpus.ReportCorpusParams(out_dir=tmp_path / "r"))
    assert result.trajectories == 0 and result.pdf_share is None and result.revision_reuse_rate is None
    assert result.steps.n == 0 and result.steps.mean is None
    html = Path(result.outputs["html"]).read_text(encoding="utf-8")
    assert "n/a" in html
