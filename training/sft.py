"""Supervised fine-tuning on a `graphforge export sft` set with trl's SFTTrainer and Muon + AdamW.

python training/sft.py --config training/configs/sft_paper.yaml --dataset out/export/sft.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `training` importable from the repo root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_parser() -> argparse.ArgumentParser:
    from training.runner import make_parser as base

    return base(
        "SFT on exported GraphForge trajectories (trl SFTTrainer, Muon + AdamW).",
        "training/configs/sft_paper.yaml",
    )


def main(argv: list[str] | None = None) -> int:
    from training.runner import load_config, run

    config = load_config(make_parser().parse_args(argv))
    print(json.dumps(run(config), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
