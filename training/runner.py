"""Shared by sft.py and rft.py: read a YAML config, load an exported set, build the trainer, train, save."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import yaml


def make_parser(description: str, default_config: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", type=Path, default=Path(default_config), help="YAML recipe")
    parser.add_argument("--dataset", type=Path, help="exported .jsonl or .parquet (overrides the config)")
    parser.add_argument("--model", help="model folder or 'tiny' (overrides model_name_or_path)")
    parser.add_argument("--output-dir", type=Path, help="overrides trainer.output_dir")
    parser.add_argument("--max-steps", type=int, help="overrides trainer.max_steps (smoke runs)")
    return parser


def main(description: str, default_config: str, argv: list[str] | None = None) -> int:
    """The whole command line of sft.py and rft.py: parse, read the recipe, train, print the summary."""
    config = load_config(make_parser(description, default_config).parse_args(argv))
    print(json.dumps(run(config), indent=2))
    return 0


def load_config(args: argparse.Namespace) -> dict[str, Any]:
    """The YAML recipe with command-line overrides applied."""
    config: dict[str, Any] = yaml.safe_load(args.config.read_text(encoding="utf-8")) or {}
    trainer = config.setdefault("trainer", {})
    if args.dataset is not None:
        config["dataset"] = str(args.dataset)
    if args.model is not None:
        config["model_name_or_path"] = args.model
    if args.output_dir is not None:
        trainer["output_dir"] = str(args.output_dir)
    if args.max_steps is not None:
        trainer["max_steps"] = args.max_steps
    for key in ("dataset", "model_name_or_path"):
        if not config.get(key):
            raise SystemExit(f"{args.config}: set {key!r} (or pass --{key.split('_')[0]})")
    return config


def load_rows(path: Path) -> Any:
    """An exported set as a datasets.Dataset (JSONL or Parquet, as graphforge export writes them)."""
    from datasets import load_dataset

    kind = "parquet" if path.suffix == ".parquet" else "json"
    return load_dataset(kind, data_files=str(path), split="train")


_PROBE_ARGUMENTS = '{"k": 1}'


def double_encodes_arguments(tokenizer: Any) -> bool:
    """Whether the chat template JSON-encodes tool-call arguments even when they are already JSON text.

    The export keeps arguments as JSON text (the OpenAI wire form, one Arrow schema); templates such as
    Llama 3.1's and Qwen 2.5's apply ``| tojson`` unconditionally and would train on escaped strings.
    """
    probe = [{"role": "user", "content": "x"},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"id": "c", "type": "function", "function": {"name": "f", "arguments": _PROBE_ARGUMENTS}}]}]
    try:
        text = str(tokenizer.apply_chat_template(probe, tokenize=False))
    except Exception:  # a template without tool support: nothing to fix here
        return False
    return _PROBE_ARGUMENTS not in text and '\\"k\\"' in text


def with_argument_objects(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with tool-call arguments parsed into objects and absent (None) fields dropped."""
    out = []
    for m in messages:
        m = {k: v for k, v in m.items() if v is not None}
        if m.get("tool_calls"):
            m["tool_calls"] = [
                {**c, "function": {**c["function"], "arguments": _parsed(c["function"]["arguments"])}}
                for c in m["tool_calls"]
            ]
        out.append(m)
    return out


def _parsed(arguments: Any) -> Any:
    if not isinstance(arguments, str):
        return arguments
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return arguments
    return value if isinstance(value, dict) else arguments


def rendered_with_argument_objects(dataset: Any, tokenizer: Any) -> Any:
    """The conversations rendered to text by the template, with tool-call arguments passed as objects."""

    def render(row: dict[str, Any]) -> dict[str, str]:
        tools = json.loads(row["tools"]) if row.get("tools") else None
        text = tokenizer.apply_chat_template(with_argument_objects(row["messages"]), tools=tools or None,
                                             tokenize=False)
        return {"text": str(text)}

    return dataset.map(render, remove_columns=dataset.column_names)


def accumulation_steps(global_batch: int, per_device: int, world_size: int) -> int:
    """Gradient accumulation that makes per_device × world_size × accumulation == global batch."""
    per_step = per_device * world_size
    if global_batch % per_step:
        raise SystemExit(
            f"global_batch_size {global_batch} is not a multiple of per-device batch {per_device} "
            f"× {world_size} processes"
        )
    return global_batch // per_step


def run(config: dict[str, Any]) -> dict[str, Any]:
    """Train with trl's SFTTrainer (SFT, and RFT on selected trajectories); returns a summary."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from training import muon, tiny

    dataset_path = Path(config["dataset"])
    dataset = load_rows(dataset_path)
    trainer_args = dict(config.get("trainer", {}))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if "global_batch_size" in config:
        trainer_args["gradient_accumulation_steps"] = accumulation_steps(
            int(config["global_batch_size"]), int(trainer_args.get("per_device_train_batch_size", 1)), world
        )
    fields = getattr(SFTConfig, "__dataclass_fields__", {})
    for new, old in (("activation_checkpointing", "gradient_checkpointing"),):
        if new in trainer_args and new not in fields:  # transformers < 5 only knows the old name
            trainer_args[old] = trainer_args.pop(new)
    args = SFTConfig(**trainer_args)

    model_ref = str(config["model_name_or_path"])
    if model_ref == "tiny":
        # Built on the spot from the training rows: a tokenizer trained locally and a config-made Llama.
        rows = (
            [json.loads(line) for line in dataset_path.read_text(encoding="utf-8").splitlines()]
            if dataset_path.suffix != ".parquet"
            else dataset.to_list()
        )
        model_dir = tiny.save_tiny(rows, Path(args.output_dir) / "init", **config.get("tiny", {}))
        model_ref = str(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(
        model_ref, local_files_only=config.get("local_files_only", True)
    )
    model = AutoModelForCausalLM.from_pretrained(
        model_ref, local_files_only=config.get("local_files_only", True), **config.get("model_kwargs", {})
    )

    if double_encodes_arguments(tokenizer):
        if getattr(args, "assistant_only_loss", False):
            raise SystemExit(
                f"{model_ref}: the chat template JSON-encodes tool-call arguments that are already JSON "
                "text, and assistant_only_loss needs trl to template the messages itself; use a template "
                "that prints string arguments verbatim, or train on every token"
            )
        dataset = rendered_with_argument_objects(dataset, tokenizer)

    optimizers: tuple[Any, Any] = (None, None)
    if config.get("optimizer", "muon") == "muon":
        opts = config.get("muon", {})
        optimizers = (
            muon.build_optimizer(
                model,
                lr=args.learning_rate,
                weight_decay=args.weight_decay,
                momentum=float(opts.get("momentum", 0.95)),
                ns_steps=int(opts.get("ns_steps", 5)),
                adjust_lr_fn=str(opts.get("adjust_lr_fn", "match_rms_adamw")),
            ),
            None,
        )  # None: the Trainer builds its cosine/warmup scheduler on our optimizer
    trainer = SFTTrainer(
        model=model, args=args, train_dataset=dataset, processing_class=tokenizer, optimizers=optimizers
    )
    result = trainer.train()
    trainer.save_model(args.output_dir)
    tokenizer.save_pretrained(args.output_dir)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    summary = {
        "output_dir": args.output_dir,
        "steps": result.global_step,
        "train_loss": result.training_loss,
        "losses": losses,
        "rows": len(dataset),
        "optimizer": config.get("optimizer", "muon"),
    }
    Path(args.output_dir, "graphforge_train_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
