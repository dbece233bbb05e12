"""A split by workspace: the training rows hold no held-out workspace's file, spec or 13-gram, and the
split's contamination audit says so; the same graph and seed give the same split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.audit.ngrams import tokenise
from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.export.split import GET_WORKSPACE_FILE_TEXTS, make_split, row_text, split_of
from graphforge.models.judge import JudgeArm
from graphforge.stages import (
    admit_trajectories,
    build_evidence,
    compile_specs,
    export_sft,
    judge_trajectories,
    load_workspace,
    rollout_oracle,
)
from graphforge.stores import specs as specs_store
from graphforge.stores import trajectories as store

pytestmark = pytest.mark.neo4j

FLEET = {
    "fleet/fuel_costs_2023.csv": (
        "quarter,depot,fuel_litres,fuel_cost_usd\n"
        "Q1 2023,Northgate,41200,61800\n"
        "Q2 2023,Northgate,43950,67240\n"
        "Q3 2023,Northgate,45010,70215\n"
        "Q4 2023,Northgate,42875,64310\n"
        "Q1 2023,Riverside,28640,42960\n"
        "Q2 2023,Riverside,30115,46075\n"
        "Q3 2023,Riverside,31480,49110\n"
        "Q4 2023,Riverside,29905,44855\n"
    ),
    "fleet/maintenance_tracker.csv": (
        "Action,Owner,Due,Status\n"
        "Replace brake pads on bus 114,Workshop,2024-02-10,Complete\n"
        "Renew depot fire certificate,Facilities,2024-03-01,In progress\n"
        "Audit tyre pressure logs,Fleet safety,2024-03-15,Not started\n"
        "Order winter coolant stock,Procurement,2024-01-20,Blocked\n"
    ),
    "fleet/depot_memo.md": (
        "# Depot operations memo\n\nFuel spending at Northgate rose through the summer quarters while "
        "Riverside stayed flatter; the transport committee wants the yearly totals per depot checked "
        "against the fuel card statements before the spring budget round.\n"
    ),
}


def _fleet(root: Path) -> Path:
    for rel, text in FLEET.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def ngrams(text: str, n: int = 13) -> set[tuple[str, ...]]:
    tokens = tokenise(text)
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def test_split_by_workspace_keeps_every_held_out_file_and_13_gram_out_of_training_rows(
        ctx: StageContext, tmp_path: Path) -> None:
    sample = generate_sample_workspace(tmp_path / "sample")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=sample.root, manifest=sample.manifest, workspace_id="finance", jobs=1, use_llm_roles=False))
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=_fleet(tmp_path / "fleet"), workspace_id="fleet", jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    compiled = compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template",
                                                                       all_families=True))
    by_ws: dict[str, list[str]] = {}
    for s in compiled.specs:
        by_ws.setdefault(specs_store.load_spec(ctx.graph, s.spec_id).workspace_id, []).append(s.spec_id)
    assert set(by_ws) == {"finance", "fleet"}, (compiled.supported, compiled.skipped)
    ran = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams())
    # Demonstrations explore before they answer, and are not one fixed sequence across specs.
    shapes = set()
    for t in store.get_trajectories(ctx.graph, [r.trajectory_id for r in ran.rollouts]):
        calls = [(m.content or "", c.function.name) for m in t.messages if m.tool_calls for c in m.tool_calls]
        names = [n for _, n in calls]
        assert names[0] == "list_files" and "read_file" in names
        first_write = min(i for i, n in enumerate(names) if n in ("write_file", "run_python"))
        assert names.index("read_file") < first_write
        assert all(said for said, _ in calls)  # a sentence before every step
        shapes.add(tuple(calls))
    assert len(ran.rollouts) >= 2 and len(shapes) == len(ran.rollouts)
    judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(arm=JudgeArm.ANCHORED,
                                                                           use_llm=False))
    admit_trajectories.run(ctx, admit_trajectories.AdmitTrajectoriesParams())

    split = make_split(ctx.graph)
    assert split == make_split(ctx.graph)  # a committed seed: the same graph gives the same split
    assert split.by == "workspace" and len(split.heldout_workspaces) == 1 and len(split.train_workspaces) == 1
    (held,) = split.heldout_workspaces
    out = tmp_path / "export"
    result = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=out, skip_audit=True, split=True))
    assert result.split is not None and result.split["audit_clean"] is True
    assert result.rows >= 1
    record = json.loads((out / "sft.split.json").read_text())
    assert record["audit"]["clean"] and record["split"]["heldout_workspaces"] == [held]

    rows = [json.loads(line) for line in (out / "sft.jsonl").read_text().splitlines()]
    assert {r["spec_id"] for r in rows} <= set(split.train_specs)
    assert not {r["spec_id"] for r in rows} & set(by_ws[held])
    training = "\n".join(row_text(r) for r in rows)
    held_files = ctx.graph.read_dicts(GET_WORKSPACE_FILE_TEXTS, workspace_ids=[held])
    assert held_files
    grams = ngrams(training)
    for f in held_files:
        for path in f["paths"]:
            assert f'"path": "{path}"' not in training, path  # never read or listed
        assert not ngrams("\n\n".join(t for t in f["texts"] if t)) & grams, f["paths"]


def test_split_takes_whole_occupations_when_every_workspace_has_one() -> None:
    specs = {f"w{i}": [f"s{i}a", f"s{i}b"] for i in range(8)}
    occupation: dict[str, str | None] = {f"w{i}": f"occ-{i % 3}" for i in range(8)}
    split = split_of(specs, occupation)
    assert split.by == "occupation" and split == split_of(specs, occupation)
    held = {occupation[w] for w in split.heldout_workspaces}
    assert not held & {occupation[w] for w in split.train_workspaces}
    assert split.train_workspaces and split.heldout_workspaces
    occupation["w0"] = None  # one workspace without an occupation: split by workspace
    assert split_of(specs, occupation).by == "workspace"
    assert len(split_of(specs, occupation).heldout_workspaces) == 2  # a quarter of eight
