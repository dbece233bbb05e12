"""The docs stay true to the code: the CLI reference is generated from every registered command and
option, the README stays a short guide, and its walkthrough is the docs page's, line for line.

(`make docs` builds the site with `mkdocs build --strict`; CI runs it and the walkthrough.)
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import typer.main

from graphforge.cli.main import app

REPO = Path(__file__).resolve().parents[2]


def _hook() -> ModuleType:
    path = REPO / "docs" / "hooks" / "cli_reference.py"
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _leaf_commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    found: list[tuple[tuple[str, ...], object]] = []
    for name, command in sorted(getattr(group, "commands", {}).items()):
        if getattr(command, "commands", None):
            found += _leaf_commands(command, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


def test_the_cli_reference_has_every_command_and_every_option() -> None:
    page = _hook().render()
    commands = _leaf_commands(typer.main.get_command(app))
    assert len(commands) > 40  # the walk found the tree
    for path, command in commands:
        heading = f"graphforge {' '.join(path)} {{#{'-'.join(path)}}}"
        assert heading in page, heading
        section = page.split(heading, 1)[1].split("\n#", 1)[0]
        for param in command.params:  # type: ignore[attr-defined]
            shown = param.opts[0] if param.opts[0].startswith("-") else f"`{param.name.upper()}`"
            assert shown in section, f"{path}: {shown}"
    # A marker on the page is replaced by the reference; other pages pass through untouched.
    assert "graphforge project use" in _hook().on_page_markdown("x\n<!-- cli-reference -->\n", None)
    assert _hook().on_page_markdown("no marker", None) == "no marker"


def _walkthrough(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    block = re.search(r"<!-- walkthrough:start -->\n```bash\n(.*?)\n```\n<!-- walkthrough:end -->",
                      text, re.S)
    assert block, f"{path}: no walkthrough block"
    return block.group(1).splitlines()


def test_the_readme_is_a_short_guide_whose_walkthrough_is_the_docs_pages() -> None:
    readme = REPO / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) < 300
    assert _walkthrough(readme) == _walkthrough(REPO / "docs" / "walkthrough.md")
    # Every docs page the README links to exists (the site's own links are checked by mkdocs --strict).
    for target in re.findall(r"\]\((docs/[^)#]+)", readme.read_text(encoding="utf-8")):
        assert (REPO / target).is_file(), target
