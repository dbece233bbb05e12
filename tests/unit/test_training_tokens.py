"""The trained-token check: a run that would train on too few (or no) assistant tokens is refused."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from training.runner import check_token_budget

ARGS = SimpleNamespace(max_length=2048, packing=True, packing_strategy="bfd", assistant_only_loss=True)
AVAILABLE = {"trainable": 740, "tokens": 9000, "longest_row": 9000}


def test_no_trained_token_is_refused_even_in_warn_mode() -> None:
    for mode in ("refuse", "warn"):
        with pytest.raises(SystemExit, match=r"keeps 0 of 740 assistant tokens .*longest row has 9,000"):
            check_token_budget({"on_token_loss": mode}, ARGS, AVAILABLE, 0, Path("sft.jsonl"))


def test_a_share_below_the_minimum_is_refused_or_warned(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="keeps 370 of 740"):
        check_token_budget({}, ARGS, AVAILABLE, 370, Path("sft.jsonl"))
    config = {"on_token_loss": "warn", "min_trained_token_share": 0.6}
    assert check_token_budget(config, ARGS, AVAILABLE, 370, Path("sft.jsonl")) == 0.5
    assert "WARNING: sft.jsonl: max_length 2048 (packing bfd) keeps 370 of 740" in capsys.readouterr().err
    assert check_token_budget({"min_trained_token_share": 0.5}, ARGS, AVAILABLE, 370, Path("x")) == 0.5
