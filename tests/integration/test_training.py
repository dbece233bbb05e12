"""Exported rows train a tiny model (trl SFTTrainer + Muon, CPU); the checkpoint reloads; RFT continues it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from graphforge import store  # noqa: E402
from graphforge.context import StageContext  # noqa: E402
from graphforge.graph import Graph  # noqa: E402
from graphforge.models.judge import JudgeArm, Judgment  # noqa: E402
from graphforge.models.trajectory import (  # noqa: E402
    FunctionCall,
    Message,
    ToolCall,
    Trajectory,
    TrajectoryStatus,
)
from graphforge.stages import export_rft, export_sft  # noqa: E402

pytestmark = [pytest.mark.neo4j, pytest.mark.train]

REPO = Path(__file__).resolve().parents[2]
TOOLS: list[dict[str, object]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a workspace file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def _trajectory(i: int, status: TrajectoryStatus, spec: str) -> Trajectory:
    call = ToolCall(
        id=f"c{i}", function=FunctionCall(name="read_file", arguments=json.dumps({"path": f"q{i}.csv"}))
    )
    return Trajectory(
        trajectory_id=f"t{i:02d}",
        spec_id=spec,
        scaffold="oracle",
        model="oracle (rule-based)",
        tools=TOOLS,
        status=status,
        steps=2,
        messages=[
            Message(role="system", content="You are a careful analyst."),
            Message(role="user", content=f"Total the amounts in q{i}.csv and write summary_{i}.md."),
            Message(role="assistant", tool_calls=[call]),
            Message(role="tool", tool_call_id=f"c{i}", name="read_file", content=f"amount\n{i}\n{2 * i}\n"),
            Message(
                role="assistant", content=f"The total is {3 * i}. Wrote summary_{i}.md with total {3 * i}."
            ),
        ],
    )


def _loss(model_dir: Path, row: dict[str, object]) -> float:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True)
    enc = tok.apply_chat_template(
        row["messages"],
        tools=json.loads(str(row["tools"])),
        tokenize=True,
        return_dict=True,
        return_tensors="pt",
        return_assistant_tokens_mask=True,
    )
    ids = enc["input_ids"]
    labels = ids.masked_fill(enc["assistant_masks"] == 0, -100)  # the loss the trainer optimises
    with torch.no_grad():
        return float(model(input_ids=ids, labels=labels).loss)


def test_exported_sft_rows_train_a_tiny_model_and_the_checkpoint_reloads(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    from datasets import load_dataset

    from training import rft, sft

    store.save_trajectories(
        graph, [_trajectory(i, TrajectoryStatus.ADMITTED, f"s{i % 4}@v1") for i in range(1, 9)]
    )
    export = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "export", skip_audit=True))
    assert export.rows == 8

    for name, kind in (("sft.jsonl", "json"), ("sft.parquet", "parquet")):
        ds = load_dataset(kind, data_files=str(tmp_path / "export" / name), split="train")
        assert ds.num_rows == 8 and {"messages", "tools", "trajectory_id"} <= set(ds.column_names)
        assert ds[0]["messages"][2]["tool_calls"][0]["function"]["name"] == "read_file"

    out = tmp_path / "sft-tiny"
    assert (
        sft.main(
            [
                "--config",
                str(REPO / "training/configs/sft_tiny_cpu.yaml"),
                "--dataset",
                str(tmp_path / "export" / "sft.jsonl"),
                "--output-dir",
                str(out),
                "--max-steps",
                "12",
            ]
        )
        == 0
    )
    summary = json.loads((out / "graphforge_train_summary.json").read_text())
    assert summary["steps"] == 12 and summary["optimizer"] == "muon"
    losses = summary["losses"]
    assert losses[-1] < 0.8 * losses[0]  # the loss falls
    assert (out / "model.safetensors").exists() and (out / "tokenizer.json").exists()

    row = json.loads((tmp_path / "export" / "sft.jsonl").read_text().splitlines()[0])
    # The reloaded checkpoint holds the trained weights: it fits a training row better than the init did.
    assert _loss(out, row) < _loss(out / "init", row)

    # RFT continues the SFT checkpoint on one exported arm.
    pool = [_trajectory(i, TrajectoryStatus.JUDGED, f"r{i % 2}@v1") for i in range(10, 18)]
    store.save_trajectories(graph, pool)
    store.save_judgments(
        graph,
        [
            Judgment(
                judgment_id=f"j{t.trajectory_id}",
                trajectory_id=t.trajectory_id,
                spec_id=str(t.spec_id),
                judge="test",
                arm=JudgeArm.ANCHORED,
                q=0.9 + n / 100,
                deliverables_ok=True,
            )
            for n, t in enumerate(pool)
        ],
    )
    rft_export = export_rft.run(
        ctx, export_rft.ExportRftParams(out_dir=tmp_path / "export", arm=JudgeArm.ANCHORED, skip_audit=True)
    )
    assert rft_export.rows == 2
    assert (
        rft.main(
            [
                "--config",
                str(REPO / "training/configs/rft_tiny_cpu.yaml"),
                "--dataset",
                str(tmp_path / "export" / "rft-anchored.jsonl"),
                "--model",
                str(out),
                "--output-dir",
                str(tmp_path / "rft-tiny"),
                "--max-steps",
                "2",
            ]
        )
        == 0
    )
    assert (tmp_path / "rft-tiny" / "model.safetensors").exists()
