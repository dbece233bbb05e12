"""Supervised fine-tuning on a `graphforge export sft` set with trl's SFTTrainer and Muon + AdamW.

python training/sft.py --config training/configs/sft_paper.yaml --dataset out/export/sft.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `training` importable from the repo root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


DESCRIPTION = "SFT on exported GraphForge trajectories (trl SFTTrainer, Muon + AdamW)."
DEFAULT_CONFIG = "training/configs/sft_paper.yaml"


def main(argv: list[str] | None = None) -> int:
    # Imported here: the sys.path line above must run first when this file is run as a script.
    from training.runner import main as run_main

    return run_main(DESCRIPTION, DEFAULT_CONFIG, argv)


if __name__ == "__main__":
    sys.exit(main())
