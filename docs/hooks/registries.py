"""MkDocs hook: the tables of what each extension point holds (file parsers, trajectory formats, task
families, stages), rendered from the registries themselves by ``graphforge.stages.extension_tables``.

A page that holds the marker ``<!-- registries -->`` gets the tables in its place at build time, so a
format or family added by a module (or an installed distribution's entry point) is listed on the next
``mkdocs build``. ``python docs/hooks/registries.py`` prints the same Markdown.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- registries -->"


def render() -> str:
    from graphforge.stages import extension_tables

    return extension_tables()


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """MkDocs event: expand the marker on the page that holds it."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())


if __name__ == "__main__":
    print(render())
