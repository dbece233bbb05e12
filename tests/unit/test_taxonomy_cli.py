"""Taxonomy CLI choices that must fail before any database is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.cli.main import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"


@pytest.mark.parametrize(
    "args",
    [
        ["load", "digital"],
        ["load", "digital", str(FIXTURE / "digital_labels.csv"), "--all-candidates"],
        ["load", "digital", "--all-candidates", "--classify-with-llm"],
    ],
)
def test_digital_source_must_be_chosen_exactly_once(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 1
    assert "choose exactly one source of DIGITAL labels" in capsys.readouterr().err


def test_taxonomy_sample_command_writes_a_loadable_release(tmp_path: Path) -> None:
    from loaders.onet import read_release

    assert main(["load", "taxonomy-sample", str(tmp_path / "s"), "--xlsx", "--json"]) == 0
    assert read_release(tmp_path / "s").tasks == read_release(tmp_path / "s" / "onet_mini_xlsx", "29.1").tasks
