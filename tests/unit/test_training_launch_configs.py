"""The accelerate launch configs pass accelerate's own launch validation and give the intended environment."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from training.runner import accumulation_steps, data_parallel_size

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


def _launch_env(name: str) -> tuple[object, dict[str, str]]:
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_multi_gpu_env

    args = launch_command_parser().parse_args(["--config_file", str(CONFIGS / "accelerate" / name), "sft.py"])
    _validate_launch_command(args)
    return args, (prepare_multi_gpu_env(args) if args.use_fsdp else {})


def test_fsdp2_config() -> None:
    args, env = _launch_env("fsdp2.yaml")
    assert env["ACCELERATE_USE_FSDP"] == "true" and env["FSDP_VERSION"] == "2"
    assert env["FSDP_ACTIVATION_CHECKPOINTING"] == "true"
    assert env["FSDP_AUTO_WRAP_POLICY"] == "TRANSFORMER_BASED_WRAP"
    assert args.num_processes == 8  # type: ignore[attr-defined]


def test_the_262k_recipe_splits_each_sequence_over_8_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerate.parallelism_config import ParallelismConfig

    args, env = _launch_env("fsdp2_cp8_262k.yaml")
    assert env["FSDP_VERSION"] == "2" and env["PARALLELISM_CONFIG_CP_SIZE"] == "8"
    for key, value in {**env, "WORLD_SIZE": str(args.num_processes)}.items():  # type: ignore[attr-defined]
        monkeypatch.setenv(key, value)
    parallel = ParallelismConfig()  # built from the environment, as each launched process does
    assert parallel.cp_enabled and parallel.total_size == args.num_processes  # type: ignore[attr-defined]
    # The 8 ranks share one sequence: the paper's global batch of 8 becomes 8 accumulation steps.
    recipe = yaml.safe_load((CONFIGS / "sft_paper_262k.yaml").read_text())
    assert data_parallel_size() == 1
    per_device = recipe["trainer"]["per_device_train_batch_size"]
    assert accumulation_steps(recipe["global_batch_size"], per_device, data_parallel_size()) == 8
    # What context parallelism in transformers/trl requires of the recipe.
    assert recipe["model_kwargs"]["attn_implementation"] == "sdpa" and recipe["trainer"]["packing"] is False
    assert recipe["trainer"]["max_length"] == 262144 and recipe["trainer"]["pad_to_multiple_of"] % 16 == 0


def test_deepspeed_zero3_config() -> None:
    args, _ = _launch_env("deepspeed_zero3.yaml")
    assert args.use_deepspeed and args.zero_stage == 3  # type: ignore[attr-defined]
