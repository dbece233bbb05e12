"""A small spreadsheet formula evaluator: openpyxl keeps formulas but does not compute them.

Supports numbers, cell and range references (also on other sheets, quoted or not), + - * / ^, unary minus,
parentheses, percent literals and SUM, AVERAGE, MIN, MAX, ABS, ROUND, PRODUCT, COUNT. Anything else is
reported as unsupported and the caller falls back to the value the spreadsheet application cached.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import prod

from graphforge.figures.numbers import parse_number
from graphforge.judge.locations import expand_range, split_ref

_TOKEN_RE = re.compile(
    r"\s*(?:(?P<ref>(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?"
    r"|\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?(?![\w(]))"
    r"|(?P<func>[A-Za-z][A-Za-z0-9.]*)\s*\("
    r"|(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+)"
    r"|(?P<op>[-+*/^(),%]))"
)

FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "SUM": lambda v: float(sum(v)),
    "AVERAGE": lambda v: sum(v) / len(v),
    "MIN": min,
    "MAX": max,
    "ABS": lambda v: abs(v[0]),
    "ROUND": lambda v: round(v[0], int(v[1]) if len(v) > 1 else 0),
    "PRODUCT": lambda v: float(prod(v)),
    "COUNT": lambda v: float(len(v)),
}


class FormulaError(Exception):
    """The formula uses something the evaluator does not support, or refers in a cycle."""


@dataclass
class CellData:
    formula: str | None  # "=SUM(B2:B3)" or None for a constant
    value: object  # the constant, or the cached result of the formula (None when never computed)


@dataclass
class Evaluation:
    value: float | str | None
    source: str  # "constant" | "formula" | "cached" | "empty" | "error"
    error: str = ""
    precedents: set[tuple[str, str]] = field(default_factory=set)  # (sheet, cell) read on the way


def cell_number(value: object) -> float | None:
    """A cell value as a number: numbers as they are, numeric-looking text parsed, else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return parse_number(value)
    return None


class Evaluator:
    """Evaluates cells of one workbook given as {sheet: {A1 ref: CellData}}."""

    def __init__(self, sheets: Mapping[str, Mapping[str, CellData]]) -> None:
        self.sheets = sheets
        self._lower = {name.lower(): name for name in sheets}

    def sheet_name(self, name: str) -> str | None:
        return name if name in self.sheets else self._lower.get(name.lower())

    def evaluate(self, sheet: str, cell: str) -> Evaluation:
        """Evaluate one cell; formulas are computed, falling back to the cached value if unsupported."""
        precedents: set[tuple[str, str]] = set()
        try:
            value = self._cell_value(sheet, cell.upper(), (), precedents)
        except FormulaError as exc:
            data = self._data(sheet, cell.upper())
            cached = data.value if data else None
            if cached is not None:
                return Evaluation(cached if isinstance(cached, str) else cell_number(cached), "cached",
                                  str(exc), precedents)
            return Evaluation(None, "error", str(exc), precedents)
        data = self._data(sheet, cell.upper())
        if data is None or (data.formula is None and data.value is None):
            return Evaluation(None, "empty", "", precedents)
        return Evaluation(value, "formula" if data.formula else "constant", "", precedents)

    def _data(self, sheet: str, cell: str) -> CellData | None:
        name = self.sheet_name(sheet)
        return self.sheets[name].get(cell) if name is not None else None

    def _cell_value(self, sheet: str, cell: str, stack: tuple[tuple[str, str], ...],
                    precedents: set[tuple[str, str]]) -> float | str | None:
        name = self.sheet_name(sheet)
        if name is None:
            raise FormulaError(f"no sheet {sheet!r}")
        key = (name, cell)
        if key in stack:
            raise FormulaError(f"circular reference at {name}!{cell}")
        precedents.add(key)
        data = self.sheets[name].get(cell)
        if data is None:
            return None
        if data.formula is None:
            number = cell_number(data.value)
            return number if number is not None else (data.value if isinstance(data.value, str) else None)
        return _Parser(self, name, data.formula, (*stack, key), precedents).parse()


class _Parser:
    """Recursive descent over one formula: expr := term (('+'|'-') term)*, and so on."""

    def __init__(self, ev: Evaluator, sheet: str, formula: str, stack: tuple[tuple[str, str], ...],
                 precedents: set[tuple[str, str]]) -> None:
        self.ev, self.sheet, self.stack, self.precedents = ev, sheet, stack, precedents
        self.tokens = _tokenise(formula.lstrip("="))
        self.pos = 0

    def parse(self) -> float:
        value = self._expr()
        if self.pos != len(self.tokens):
            raise FormulaError(f"unexpected {self.tokens[self.pos][1]!r}")
        return value

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> tuple[str, str]:
        token = self._peek()
        if token is None:
            raise FormulaError("formula ends too early")
        self.pos += 1
        return token

    def _expr(self) -> float:
        value = self._term()
        while self._peek() in (("op", "+"), ("op", "-")):
            op = self._take()[1]
            rhs = self._term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def _term(self) -> float:
        value = self._power()
        while self._peek() in (("op", "*"), ("op", "/")):
            op = self._take()[1]
            rhs = self._power()
            if op == "/" and rhs == 0:
                raise FormulaError("division by zero")
            value = value * rhs if op == "*" else value / rhs
        return value

    def _power(self) -> float:
        value = self._unary()
        if self._peek() == ("op", "^"):
            self._take()
            value = value ** self._power()
        return value

    def _unary(self) -> float:
        if self._peek() in (("op", "-"), ("op", "+")):
            sign = -1.0 if self._take()[1] == "-" else 1.0
            return sign * self._unary()
        value = self._atom()
        if self._peek() == ("op", "%"):
            self._take()
            value /= 100.0
        return value

    def _atom(self) -> float:
        kind, text = self._take()
        if kind == "num":
            return float(text)
        if kind == "ref":
            values = self._ref_values(text)
            if len(values) != 1:
                raise FormulaError(f"range {text} used as a single value")
            return values[0]
        if kind == "func":
            return self._call(text.upper())
        if (kind, text) == ("op", "("):
            value = self._expr()
            if self._take() != ("op", ")"):
                raise FormulaError("unbalanced parentheses")
            return value
        raise FormulaError(f"unexpected {text!r}")

    def _call(self, name: str) -> float:
        fn = FUNCTIONS.get(name)
        if fn is None:
            raise FormulaError(f"unsupported function {name}")
        self._take()  # the "(" the tokeniser emits after every function name
        args: list[float] = []
        if self._peek() == ("op", ")"):
            self._take()
        else:
            while True:
                token = self._peek()
                nxt = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
                if token and token[0] == "ref" and nxt in (("op", ","), ("op", ")")):
                    self._take()
                    args.extend(self._ref_values(token[1], skip_blank=True))
                else:
                    args.append(self._expr())
                sep = self._take()
                if sep == ("op", ")"):
                    break
                if sep != ("op", ","):
                    raise FormulaError(f"unexpected {sep[1]!r} in {name}()")
        if not args and name != "COUNT":
            raise FormulaError(f"{name}() of nothing")
        return float(fn(args))

    def _ref_values(self, ref: str, skip_blank: bool = False) -> list[float]:
        sheet, cells = split_ref(ref)
        values: list[float] = []
        for cell in expand_range(cells):
            raw = self.ev._cell_value(sheet or self.sheet, cell, self.stack, self.precedents)
            number = cell_number(raw) if raw is not None else None
            if number is None:
                if raw is None and skip_blank:
                    continue
                if raw is None:
                    number = 0.0  # a blank cell counts as zero in arithmetic, as in spreadsheets
                else:
                    raise FormulaError(f"{sheet or self.sheet}!{cell} holds text {str(raw)[:30]!r}")
            values.append(number)
        return values


def _tokenise(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m or m.end() == pos:
            raise FormulaError(f"cannot read formula at {text[pos:pos + 12]!r}")
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        if kind == "func":
            tokens.append(("op", "("))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tokens


def references(formula: str) -> list[str]:
    """Every reference token in a formula, as written (for footprints and perturbations)."""
    try:
        return [t for k, t in _tokenise(formula.lstrip("=")) if k == "ref"]
    except FormulaError:
        return []


def functions(formula: str) -> list[str]:
    """Every function name a formula calls, upper-case."""
    return [f.upper() for f in re.findall(r"([A-Za-z][A-Za-z0-9.]*)\s*\(", formula)]
