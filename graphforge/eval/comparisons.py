"""Pairwise comparison files (JSONL or CSV): read, validate with file and line, aggregate per model pair.

Schema, one comparison per line (JSONL object or CSV row):

    task_id     required  the task both players attempted
    model_a     required  first player's model
    model_b     required  second player's model
    winner      required  a | b | tie   (also accepted: model_a, model_b, draw, "tie (bothbad)")
    scaffold_a  optional  with scaffold_b, a player is the pair "model (scaffold)"
    scaffold_b  optional
    any other   optional  task attributes (e.g. covered=true/false) for win rates split by attribute
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from graphforge.errors import SourceFormatError

REQUIRED = ("task_id", "model_a", "model_b", "winner")
SCAFFOLDS = ("scaffold_a", "scaffold_b")
# Spellings people already have in their files (Chatbot Arena uses model_a / model_b / tie (bothbad)).
WINNER_ALIASES = {"a": "a", "model_a": "a", "b": "b", "model_b": "b", "tie": "tie", "draw": "tie",
                  "tie (bothbad)": "tie"}
# Outcome columns of the aggregated cell layout, from the lower-indexed player's point of view.
WIN, LOSS, TIE = 0, 1, 2
MEMORY = "<memory>"


def player_name(model: str, scaffold: str | None) -> str:
    """A player is a model, or a model under a scaffold written "model (scaffold)"."""
    return f"{model} ({scaffold})" if scaffold else model


@dataclass(frozen=True)
class Comparisons:
    """Validated comparisons: one row per comparison with players, winner in {a, b, tie} and line number."""

    source: str
    frame: pl.DataFrame  # task_id, player_a, player_b, winner, line, then attribute columns (strings)
    attributes: tuple[str, ...]

    @property
    def players(self) -> list[str]:
        return sorted(set(self.frame["player_a"].to_list()) | set(self.frame["player_b"].to_list()))

    def __len__(self) -> int:
        return self.frame.height


@dataclass(frozen=True)
class PairCells:
    """Comparisons aggregated to unordered player pairs (i < j) and outcomes seen from player i.

    counts[p, o] is how many comparisons of pair p ended with outcome o (WIN, LOSS, TIE for player i).
    Bootstrap resamples are multinomial draws over these cells, so nothing is refit per comparison.
    """

    players: list[str]
    i: np.ndarray  # (P,) index of the lower player of each pair
    j: np.ndarray  # (P,) index of the higher player
    counts: np.ndarray  # (P, 3) int64

    @property
    def n_comparisons(self) -> int:
        return int(self.counts.sum())

    def scores(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(wins of player i, ties as half a win; comparisons) per pair, for counts of shape (..., P, 3)."""
        wins = counts[..., WIN] + 0.5 * counts[..., TIE]
        return wins, counts.sum(axis=-1).astype(np.float64)


def read_comparisons(path: Path) -> Comparisons:
    """Read a JSONL (.jsonl, .ndjson) or CSV comparison file; a bad row raises SourceFormatError."""
    if not path.is_file():
        raise SourceFormatError(path, "no such comparison file")
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        frame, lines = _read_jsonl(path)
    elif suffix in {".csv", ".tsv"}:
        frame, lines = _read_csv(path, "\t" if suffix == ".tsv" else ",")
    else:
        raise SourceFormatError(path, f"unknown comparison format {suffix!r}: use .jsonl or .csv")
    return validate(frame, lines, str(path))


def comparisons_from_rows(rows: list[dict[str, object]], source: str = MEMORY) -> Comparisons:
    """Validate comparisons held in memory (line numbers count rows from 1)."""
    frame = pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame(
        {c: pl.Series([], dtype=pl.String) for c in REQUIRED})
    return validate(frame, list(range(1, frame.height + 1)), source)


def _read_jsonl(path: Path) -> tuple[pl.DataFrame, list[int]]:
    data = path.read_bytes()
    # polars skips blank lines, so row k of the frame is the k-th non-blank line of the file.
    lines = [n for n, text in enumerate(data.splitlines(), start=1) if text.strip()]
    if not lines:
        raise SourceFormatError(path, "the file holds no comparisons")
    try:
        frame = pl.read_ndjson(data, infer_schema_length=None)
    except (pl.exceptions.PolarsError, ValueError) as exc:
        raise SourceFormatError(path, _first_bad_json_line(data) or f"not JSON lines: {exc}") from exc
    if frame.height != len(lines):
        raise SourceFormatError(path, _first_bad_json_line(data) or "every line must be one JSON object")
    return frame, lines


def _first_bad_json_line(data: bytes) -> str | None:
    """Find the first line that is not a JSON object, to name it (polars' errors carry no line)."""
    for number, text in enumerate(data.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return f"line {number}: not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})"
        if not isinstance(value, dict):
            return f"line {number}: expected a JSON object, got {type(value).__name__}"
    return None


def _read_csv(path: Path, separator: str) -> tuple[pl.DataFrame, list[int]]:
    try:
        frame = pl.read_csv(path, separator=separator, infer_schema=False)
    except (pl.exceptions.PolarsError, ValueError) as exc:
        raise SourceFormatError(path, f"not a readable CSV file: {exc}") from exc
    # Line 1 is the header; polars keeps blank lines as all-null rows, so row k sits on line k + 2.
    lines = list(range(2, frame.height + 2))
    keep = ~pl.all_horizontal(pl.all().is_null())
    mask = frame.select(keep).to_series()
    return frame.filter(mask), [n for n, k in zip(lines, mask.to_list(), strict=True) if k]


def _text(frame: pl.DataFrame, column: str) -> pl.Series:
    series = frame[column]
    if series.dtype == pl.Boolean:
        return series.map_elements(lambda v: "true" if v else "false", return_dtype=pl.String)
    if series.dtype == pl.String:
        return series.str.strip_chars()
    if series.dtype.is_numeric():
        return series.cast(pl.String)
    if series.dtype == pl.Null:
        return series.cast(pl.String)
    raise SourceFormatError(MEMORY, f"column {column!r} must hold text, numbers or booleans")


def validate(frame: pl.DataFrame, lines: list[int], source: str) -> Comparisons:
    """Check the schema and every row; return normalised comparisons."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise SourceFormatError(source, f"missing column(s) {', '.join(missing)}; a comparison needs "
                                        f"{', '.join(REQUIRED)}")
    if frame.height == 0:
        raise SourceFormatError(source, "the file holds no comparisons")
    try:
        cols = {c: _text(frame, c) for c in frame.columns}
    except SourceFormatError as exc:
        raise SourceFormatError(source, exc.problem) from exc
    line = pl.Series("line", lines, dtype=pl.Int64)
    for column in REQUIRED:
        bad = cols[column].is_null() | (cols[column] == "")
        if bad.any():
            raise SourceFormatError(source, f"line {line.filter(bad)[0]}: {column} is empty")
    winner = cols["winner"].str.to_lowercase().replace_strict(WINNER_ALIASES, default=None)
    if winner.is_null().any():
        at = winner.is_null().arg_true()[0]
        raise SourceFormatError(
            source, f"line {lines[at]}: winner {cols['winner'][at]!r} is not one of a, b, tie"
        )
    scaffold = {c: cols.get(c, pl.Series(c, [None] * frame.height, dtype=pl.String)) for c in SCAFFOLDS}
    player_a = _players(cols["model_a"], scaffold["scaffold_a"])
    player_b = _players(cols["model_b"], scaffold["scaffold_b"])
    same = player_a == player_b
    if same.any():
        at = same.arg_true()[0]
        raise SourceFormatError(source, f"line {lines[at]}: {player_a[at]!r} is compared with itself")
    attributes = tuple(c for c in frame.columns if c not in REQUIRED and c not in SCAFFOLDS)
    out = pl.DataFrame({"task_id": cols["task_id"], "player_a": player_a, "player_b": player_b,
                        "winner": winner, "line": line, **{a: cols[a] for a in attributes}})
    return Comparisons(source=source, frame=out, attributes=attributes)


def _players(models: pl.Series, scaffolds: pl.Series) -> pl.Series:
    empty = scaffolds.is_null() | (scaffolds == "")
    return pl.select(pl.when(pl.lit(empty)).then(pl.lit(models))
                     .otherwise(pl.lit(models) + " (" + pl.lit(scaffolds) + ")")).to_series()


def pair_cells(comparisons: Comparisons) -> PairCells:
    """Aggregate comparisons into (pair, outcome) cell counts; players are indexed in sorted order."""
    players = comparisons.players
    index = {p: k for k, p in enumerate(players)}
    a = np.array([index[p] for p in comparisons.frame["player_a"].to_list()], dtype=np.int64)
    b = np.array([index[p] for p in comparisons.frame["player_b"].to_list()], dtype=np.int64)
    winner = comparisons.frame["winner"].to_numpy()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    # Outcome from the lower player's side: an "a" win is a WIN when a is the lower index.
    a_is_lo = a == lo
    outcome = np.where(winner == "tie", TIE,
                       np.where((winner == "a") == a_is_lo, WIN, LOSS)).astype(np.int64)
    n = len(players)
    key = lo * n + hi
    pairs, pair_of = np.unique(key, return_inverse=True)
    counts = np.zeros((len(pairs), 3), dtype=np.int64)
    np.add.at(counts, (pair_of, outcome), 1)
    return PairCells(players=players, i=pairs // n, j=pairs % n, counts=counts)


def components(cells: PairCells) -> list[list[str]]:
    """Connected components of the comparison graph (players joined when compared), largest first."""
    parent = list(range(len(cells.players)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(cells.i.tolist(), cells.j.tolist(), strict=True):
        parent[root(a)] = root(b)
    groups: dict[int, list[str]] = {}
    for k, name in enumerate(cells.players):
        groups.setdefault(root(k), []).append(name)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))
