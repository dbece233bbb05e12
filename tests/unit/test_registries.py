"""The extension-point registries: discovery, look-up with one clear error, and their Markdown tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from graphforge.errors import ConfigError
from graphforge.models.workspace import FileFormat
from graphforge.parsers import FILE_PARSERS
from graphforge.registry import Registry
from graphforge.specs.families import FAMILIES, FOLDERS_ENV
from graphforge.stages import STAGES, extension_tables
from loaders.trajectories import TRAJECTORY_FORMATS, format_choices, format_names


def test_the_bundled_extensions_are_found_without_a_list() -> None:
    assert {"openai", "codex", "openhands", "claude-code", "swe-agent", "tau-bench"} == set(format_names())
    assert format_choices().startswith("auto | swe-agent")  # sniffing order: the most specific first
    assert set(format_names(evaluable=True)) == {"openai", "codex", "openhands", "claude-code"}
    # Without a seed the family of lowest rank wins: the order DEFAULT_ORDER used to hold.
    assert FAMILIES.names()[:3] == ["review_workbook", "figure_reconciliation", "version_change_memo"]
    assert len(FAMILIES) >= 10 and all(FAMILIES.origin(n) == f"graphforge.specs.families.{n}"
                                       for n in FAMILIES.names())
    assert {p.format for p in FILE_PARSERS} == set(FileFormat) - {FileFormat.UNKNOWN}
    assert {"compile_specs", "judge_trajectories", "import_trajectories"} <= set(STAGES.names())
    compile_specs = STAGES.get("compile_specs")
    assert compile_specs.params.__name__ == "CompileSpecsParams"
    assert compile_specs.summary.startswith("Stage 5")


def test_an_unknown_name_is_one_error_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown trajectory format 'nope'; known: swe-agent, codex"):
        TRAJECTORY_FORMATS.get("nope")


@dataclass(frozen=True)
class _Thing:
    name: str


def test_two_extensions_of_one_name_are_refused_with_both_origins(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "thing.py").write_text(
            "from tests.unit.test_registries import _Thing\nTHING = _Thing('same')\n", encoding="utf-8")
    registry = Registry("thing", _Thing, lambda t: t.name, attribute="THING",
                        folders=lambda: [tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ConfigError, match="thing 'same' is defined twice"):
        registry.names()


def test_a_family_folder_from_the_environment_is_read_on_refresh(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "extra_family.py").write_text(
        "from graphforge.specs.families import Family\n"
        "FAMILY = Family(name='extra_family', title='an extra', patterns=(), inputs=(), formats=('md',),\n"
        "                build=lambda inp: None, rank=1)\n", encoding="utf-8")
    monkeypatch.setenv(FOLDERS_ENV, str(tmp_path))
    FAMILIES.refresh()
    try:
        assert FAMILIES.names()[0] == "extra_family" and FAMILIES.origin("extra_family").endswith(".py")
    finally:
        monkeypatch.delenv(FOLDERS_ENV)
        FAMILIES.refresh()
    assert "extra_family" not in FAMILIES


def test_the_docs_tables_have_one_row_per_entry() -> None:
    text = extension_tables()
    for title, registry in (("File parsers", FILE_PARSERS), ("Trajectory formats", TRAJECTORY_FORMATS),
                            ("Task families", FAMILIES), ("Stages", STAGES)):
        section = text.split(f"### {title}\n\n", 1)[1].split("\n\n", 1)[0]
        rows = section.splitlines()[2:]
        assert [r.split("`")[1] for r in rows] == registry.names(), title
