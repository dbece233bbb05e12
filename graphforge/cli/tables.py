"""Tables that fit the terminal: cells wrap at words and never break one.

A listing names its columns with what they hold (`Col`). To fit a width, a table shortens paths from the
middle, gives every text column at least its longest word, drops the least important columns when even
that does not fit (the caller prints the footnote `fit_table` returns), and only as a last resort shortens
ids from the middle. Words longer than ``WORD_CAP`` (a file name inside a reason) are shortened from the
middle rather than split. ``--wide`` and ``--json`` always show every column whole.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from rich import box
from rich.console import Console
from rich.table import Table

Kind = Literal["id", "num", "text", "path", "time"]
ELLIPSIS = "…"
WORD_CAP = 24  # a word longer than this is shortened from the middle in a fitted table, not split
PATH_MIN = 24  # a path column is not shortened below this
ID_MIN = 12  # nor an id column, when ids have to be shortened at all


@dataclass(frozen=True)
class Col:
    """One column: the row key, its header, what it holds and how important it is (higher stays longer)."""

    key: str
    header: str = ""
    kind: Kind = "text"
    keep: int = 50  # >= 100: never dropped

    @property
    def title(self) -> str:
        return self.header or self.key.replace("_", " ")


@dataclass(frozen=True)
class Fitted:
    table: Table
    dropped: list[Col]
    shortened: bool  # some value is shown shortened from the middle (… marks where)

    def footnote(self, width: int) -> str | None:
        """The line to print under the table when columns were dropped or values shortened, else None."""
        notes = []
        if self.dropped:
            names = ", ".join(c.title for c in self.dropped)
            notes.append(f"not shown at {width} columns: {names}")
        if self.shortened:
            notes.append("… marks a value shortened in the middle")
        if not notes:
            return None
        return "; ".join(notes) + " (--wide or --json shows everything)"


def cell_text(value: object, kind: Kind = "text") -> str:
    """A row value as table text: lists joined by commas, floats with 3 decimals, times to the minute."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    text = str(value)
    if kind == "time" and len(text) >= 16 and text[10] == "T":
        return text[:10] + " " + text[11:16]  # 2026-12-04T17:07:11.935Z -> 2026-12-04 17:07
    return text


def shorten_middle(text: str, width: int, tail_share: float = 0.5) -> str:
    """``text`` in at most ``width`` characters, cut from the middle (head and tail stay readable);
    ``tail_share`` of what is kept comes from the end (a path keeps more of its end: the file name)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    tail = int((width - 1) * tail_share)
    head = width - 1 - tail
    return text[:head] + ELLIPSIS + text[len(text) - tail:]


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def _shorten_words(text: str, cap: int) -> str:
    """Shorten each word longer than ``cap`` from the middle, keeping the line's spacing."""
    if _longest_word(text) <= cap:
        return text
    return "\n".join(" ".join(shorten_middle(w, cap) for w in line.split(" ")) for line in text.split("\n"))


@lru_cache(maxsize=64)
def overhead(columns: int) -> int:
    """Characters a table of ``columns`` columns adds to its cells' widths (borders and padding)."""
    table = _new_table(False)
    for _ in range(columns):
        table.add_column("x", width=1)
    table.add_row(*["x"] * columns)
    out = io.StringIO()
    Console(file=out, width=10_000, color_system=None).print(table)
    return max(len(line) for line in out.getvalue().splitlines()) - columns


def _new_table(lines: bool, title: str | None = None) -> Table:
    return Table(title=title, title_justify="left", box=box.MINIMAL_HEAVY_HEAD, show_edge=False,
                 pad_edge=False, show_lines=lines)


@dataclass
class _Plan:
    col: Col
    cells: list[str]
    natural: int  # widest cell or header word, unwrapped
    minimum: int  # narrowest width that splits no word (text) or shows the value whole (id, num)

    @classmethod
    def of(cls, col: Col, cells: list[str]) -> _Plan:
        header_word = _longest_word(col.title)
        widest = max([len(line) for c in cells for line in c.split("\n")] + [0])
        natural = max(widest, header_word, 1)
        if col.kind == "text" or col.kind == "time":
            words = max([_longest_word(c) for c in cells] + [0])
            minimum = max(min(words, WORD_CAP), header_word, 1)
        elif col.kind == "path":
            minimum = max(min(widest, PATH_MIN), header_word, 1)
        else:
            minimum = natural
        return cls(col, cells, natural, minimum)


def fit_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[Col], width: int,
              title: str | None = None) -> Fitted:
    """A table of ``rows`` no wider than ``width`` (see the module doc for what gives way, in order)."""
    plans = [_Plan.of(c, [cell_text(r.get(c.key), c.kind) for r in rows]) for c in columns]
    dropped: list[Col] = []

    def too_wide() -> int:
        return sum(p.minimum for p in plans) + overhead(len(plans)) - width

    # Drop the least important columns (the rightmost first among equals) until the minimums fit.
    while too_wide() > 0:
        droppable = [p for p in plans if p.col.keep < 100]
        if not droppable:
            break
        victim = min(reversed(droppable), key=lambda p: p.col.keep)
        plans.remove(victim)
        dropped.append(victim.col)
    dropped.sort(key=lambda c: [col.key for col in columns].index(c.key))
    # Still too wide with only the columns that must stay: shorten ids (then anything) from the middle.
    excess = too_wide()
    for kinds in (("id",), ("id", "num", "text", "time", "path")):
        for plan in sorted(plans, key=lambda p: -p.minimum):
            if excess <= 0:
                break
            if plan.col.kind in kinds:
                give = min(excess, plan.minimum - ID_MIN)
                if give > 0:
                    plan.minimum -= give
                    excess -= give
    widths = _distribute(plans, width - overhead(len(plans)))
    shortened = False
    wraps = False
    table = _new_table(False, title)
    shown: list[list[str]] = []
    for plan, w in zip(plans, widths, strict=True):
        fixed = plan.col.kind in ("id", "num", "path")  # shown on one line, shortened when they must be
        table.add_column(plan.col.title, width=w, overflow="fold")
        column: list[str] = []
        for cell in plan.cells:
            share = 0.65 if plan.col.kind == "path" else 0.5
            text = shorten_middle(cell, w, share) if fixed else _shorten_words(cell, w)
            shortened = shortened or text != cell
            wraps = wraps or len(text) > w
            column.append(text)
        shown.append(column)
    table.show_lines = wraps  # rows of several lines each read better with a rule between them
    for i in range(len(rows)):
        table.add_row(*(column[i] for column in shown))
    return Fitted(table, dropped, shortened)


def _distribute(plans: list[_Plan], room: int) -> list[int]:
    """Each column's width: its minimum, then the room left shared by what each still lacks."""
    widths = [p.minimum for p in plans]
    spare = room - sum(widths)
    while spare > 0:
        wants = [p.natural - w for p, w in zip(plans, widths, strict=True)]
        total = sum(x for x in wants if x > 0)
        if total == 0:
            break
        given = 0
        for i, want in enumerate(wants):
            if want > 0:
                share = min(want, max(1, spare * want // total))
                share = min(share, spare - given)
                widths[i] += share
                given += share
            if given >= spare:
                break
        spare -= given
        if given == 0:
            break
    return widths


def wide_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[Col], title: str | None = None) -> Table:
    """Every column, every value whole, one line per row (--wide, and output that is not a terminal)."""
    table = _new_table(False, title)
    for col in columns:
        table.add_column(col.title, no_wrap=True)
    for row in rows:
        table.add_row(*(cell_text(row.get(c.key), c.kind) for c in columns))
    return table
