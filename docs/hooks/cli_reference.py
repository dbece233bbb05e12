"""MkDocs hook: the CLI reference, generated from the typer app itself (never written by hand).

``docs/cli.md`` holds the marker ``<!-- cli-reference -->``; at build time it is replaced by one section
per command (its help text, usage, arguments and options) read from ``graphforge.cli.main.app``, so a
command added or changed shows up on the next ``mkdocs build``. ``python docs/hooks/cli_reference.py``
prints the same Markdown.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- cli-reference -->"


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(param: Any) -> str:
    """The value's type as a reader writes it: flag, int, float, text, path, a choice, a list of them."""
    if getattr(param, "is_flag", False):
        return "flag"
    annotation = param.type_descriptor.annotation
    shown = _annotation(annotation)
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None or high is not None:
        bounds = [f">= {low}"] if low is not None else []
        bounds += [f"<= {high}"] if high is not None else []
        shown += f" ({', '.join(bounds)})"
    return _cell(shown)


def _annotation(annotation: Any) -> str:
    import enum
    import types
    import typing
    from pathlib import Path

    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _annotation(args[0])
    if origin is list and args:
        return f"{_annotation(args[0])}, repeatable"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " / ".join(str(m.value) for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return "path"
    names = {str: "text", int: "int", float: "float", bool: "bool"}
    if annotation in names:
        return names[annotation]
    return getattr(annotation, "__name__", str(annotation))


def _default(param: Any) -> str:
    if getattr(param, "is_flag", False) or param.required:
        return ""
    default = param.default
    if default is None or default == "" or callable(default):
        return ""
    return f"`{_cell(default.value if hasattr(default, 'value') else default)}`"


def _commands(group: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for name in sorted(group.commands):
        command = group.commands[name]
        sub = getattr(command, "commands", None)
        if sub:
            out.append(((*path, name), command))
            out += _commands(command, (*path, name))
        else:
            out.append(((*path, name), command))
    return out


def render() -> str:
    """Markdown for every command of ``graphforge``: groups first, each with its commands."""
    import typer.main

    from graphforge.cli.main import app

    root = typer.main.get_command(app)
    lines = ["Every command below takes `--help`, and (where it prints a result) `--json` for one JSON "
             "object on stdout. `--verbose`, anywhere on the line, shows the traceback of an error.", ""]
    groups = [(name, cmd) for name, cmd in sorted(root.commands.items()) if getattr(cmd, "commands", None)]
    singles = [(name, cmd) for name, cmd in sorted(root.commands.items())
               if not getattr(cmd, "commands", None)]
    lines += ["| command | what it does |", "|---|---|"]
    for path, command in [((n,), c) for n, c in singles] + [p for n, g in groups for p in _commands(g, (n,))]:
        if getattr(command, "commands", None):
            continue
        anchor = "-".join(path)
        lines.append(f"| [`graphforge {' '.join(path)}`](#{anchor}) | {_cell(_first_line(command.help))} |")
    lines.append("")
    for name, command in singles:
        lines += _section((name,), command, 2)
    for name, group in groups:
        lines += [f"## graphforge {name}", "", _cell(group.help or ""), ""]
        for path, command in _commands(group, (name,)):
            if not getattr(command, "commands", None):
                lines += _section(path, command, 3)
    return "\n".join(lines) + "\n"


def _first_line(text: str | None) -> str:
    return (text or "").strip().split("\n\n")[0]


def _section(path: tuple[str, ...], command: Any, level: int) -> list[str]:
    anchor = "-".join(path)
    args = [p for p in command.params if type(p).__name__.endswith("Argument")]
    opts = [p for p in command.params if not type(p).__name__.endswith("Argument")]
    usage = " ".join(["graphforge", *path, *(p.name.upper() if p.required else f"[{p.name.upper()}]"
                                            for p in args), "[OPTIONS]" if opts else ""]).strip()
    lines = [f"{'#' * level} graphforge {' '.join(path)} {{#{anchor}}}", "",
             _cell(command.help or ""), "", "```text", usage, "```", ""]
    if args or opts:
        lines += ["| argument / option | type | default | description |", "|---|---|---|---|"]
        for p in args:
            lines.append(f"| `{p.name.upper()}`{' (required)' if p.required else ''} | {_type(p)} | "
                         f"{_default(p)} | {_cell(p.help or '')} |")
        for p in opts:
            names = ", ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            lines.append(f"| {names}{' (required)' if p.required else ''} | {_type(p)} | {_default(p)} | "
                         f"{_cell(p.help or '')} |")
        lines.append("")
    return lines


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """MkDocs event: expand the marker on the page that holds it."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())


if __name__ == "__main__":
    print(render())
