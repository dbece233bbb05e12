"""The only module that reads cypher/: every query is a named file, loaded once into a constant.

Other modules do ``MERGE_OCCUPATIONS = cypher.load("onet/merge_occupations")`` at import time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import LiteralString

from graphforge.errors import ConfigError


def resource_dir(name: str) -> Path:
    """Repo-root folder in a checkout, or the copy a wheel carries under graphforge/_data."""
    package = Path(__file__).resolve().parents[1]  # graphforge/ (this module is graphforge/graphdb/cypher.py)
    for candidate in (package.parent / name, package / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"cannot find the {name}/ folder next to the graphforge package")


CYPHER_DIR = resource_dir("cypher")
# Parameters look like $name; strip // comments and string literals first so neither counts.
_PARAM_RE = re.compile(r"\$([A-Za-z_]\w*)")
_COMMENT_RE = re.compile(r"//[^\n]*")
_STRING_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


@dataclass(frozen=True)
class CypherQuery:
    name: str  # "onet/merge_occupations"
    text: LiteralString  # the driver asks for a LiteralString; cast once, here
    params: frozenset[str]  # every $name the query uses

    @property
    def is_batch_write(self) -> bool:
        """A write query that takes its rows as one $rows list (run in batches by Graph.write)."""
        return "rows" in self.params


_LOADED: dict[str, CypherQuery] = {}


def code_of(text: str) -> str:
    """A Cypher text without its // comments, each string literal emptied to ''."""
    return _STRING_RE.sub("''", _COMMENT_RE.sub("", text))


def parameters_of(text: str) -> frozenset[str]:
    """The $parameters a Cypher text uses, ignoring comments and string literals."""
    return frozenset(_PARAM_RE.findall(code_of(text)))


def load(name: str) -> CypherQuery:
    """Load ``cypher/<name>.cypher`` once and return it as a named query."""
    if name in _LOADED:
        return _LOADED[name]
    path = CYPHER_DIR / f"{name}.cypher"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read Cypher query {name!r}: {exc.strerror}") from exc
    # Query text comes only from files in the repository, never from values: that is what makes it
    # a LiteralString for the driver. (mypy treats LiteralString as str, hence no cast.)
    query = CypherQuery(name, text, parameters_of(text))
    _LOADED[name] = query
    return query


def loaded() -> dict[str, CypherQuery]:
    """Every query loaded so far, by name (the catalog test compares it with the files)."""
    return dict(_LOADED)


def all_query_files() -> list[str]:
    """Names of every query file under cypher/, browser queries excluded (they are for people)."""
    return sorted(
        p.relative_to(CYPHER_DIR).with_suffix("").as_posix()
        for p in CYPHER_DIR.rglob("*.cypher")
        if p.relative_to(CYPHER_DIR).parts[0] != "browser"
    )
