"""The Evaluation guide (docs/evaluation.md) keeps its promises: the README links to it, every link of the
README resolves, and every option the guide names is an option of the command it names in the current CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer

from graphforge.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EVALUATION = ROOT / "docs" / "evaluation.md"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _command(path: list[str]) -> Any:
    cmd: Any = typer.main.get_command(app)  # typer's (vendored) click command tree
    for name in path:
        assert name in getattr(cmd, "commands", {}), f"no command {' '.join(path)}"
        cmd = cmd.commands[name]
    return cmd


def _options(cmd: Any) -> set[str]:
    return {opt for param in cmd.params for opt in (*param.opts, *param.secondary_opts)}


def _sub_path(words: list[str]) -> list[str]:
    """`graphforge eval run ...` or `eval run ...` or `graphforge load benchmark ...` -> the command path."""
    if words and words[0] == "graphforge":
        words = words[1:]
    return words[:2]


def test_every_anchor_link_in_the_readme_resolves() -> None:
    text = README.read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"^#{2,4} (.+)$", text, flags=re.M)}
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links <= anchors, sorted(links - anchors)
    pages = set(re.findall(r"\]\((docs/[^)#]+)", text))
    assert "docs/evaluation.md" in pages, "the README should point to the Evaluation guide"
    missing = sorted(page for page in pages if not (ROOT / page).is_file())
    assert not missing, missing


def test_evaluation_commands_use_only_existing_options() -> None:
    section = EVALUATION.read_text(encoding="utf-8")
    # The example block: each command (continuation lines joined) with its options.
    block = re.search(r"```\n(.*?)```", section, flags=re.S)
    assert block, "the Evaluation section should show the commands"
    commands = [shlex.split(line.split("  #")[0]) for line in block.group(1).replace("\\\n", " ").splitlines()
                if line.strip()]
    assert [_sub_path(c) for c in commands] == [["eval", "sample-benchmark"], ["load", "benchmark"],
                                                ["eval", "run"], ["eval", "compare"], ["eval", "elo"],
                                                ["eval", "winrate"]]
    for words in commands:
        cmd = _command(_sub_path(words))
        used = {w.split("=")[0] for w in words if w.startswith("--")}
        assert used <= _options(cmd), (words[:3], sorted(used - _options(cmd)))
        required = {p.opts[0] for p in cmd.params if p.required and p.param_type_name == "option"}
        assert required <= used, (words[:3], sorted(required - used))
    # The bullets: an option named in a bullet belongs to the first `eval ...` command the bullet names.
    bullets = re.split(r"^- ", section.split("```")[-1], flags=re.M)[1:]
    assert len(bullets) >= 5
    checked = 0
    for bullet in bullets:
        options = set(re.findall(r"`[^`]*?(--[a-z][a-z-]*)", bullet))
        named = re.search(r"`(?:graphforge )?eval ([a-z-]+)", bullet)
        if not options:
            continue
        assert named, f"a bullet names options without its command: {bullet[:80]!r}"
        cmd = _command(["eval", named.group(1)])
        assert options <= _options(cmd), (named.group(1), sorted(options - _options(cmd)))
        checked += len(options)
    assert checked >= 15
