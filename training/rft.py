"""Rejection fine-tuning: SFT of the SFT model on one `graphforge export rft --arm ARM` set.

    python training/rft.py --config training/configs/rft_paper.yaml --dataset out/export/rft-anchored.jsonl \
        --model out/sft-model
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
        "Rejection fine-tuning on one exported RFT arm (trl SFTTrainer, Muon + AdamW).",
        "training/configs/rft_paper.yaml",
    )


def main(argv: list[str] | None = None) -> int:
    from training.runner import load_config, run

    config = load_config(make_parser().parse_args(argv))
    print(json.dumps(run(config), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
