"""A short, distinct display caption on every node, for Neo4j Browser (the GraphForge style shows
``{caption}``).

Browser draws a node's caption inside its circle, where about two dozen characters fit; the properties a
style would otherwise show (a file name, a requirement, a locator) start alike across nodes, so Browser's
cut made every file read "Awesom…" and every span "element…". A caption says what the node is in its
first words and keeps what tells nodes apart:

- file, workspace, deliverable names are shortened from the middle (the start and the extension stay);
  a file name that two files share gets its folder;
- a spec is its family and version, a criterion its number, kind and the first words of its requirement;
- a span is its locator without the scheme word, shortened from the middle (the last part stays);
- a fact is its metric and value, or the first words of its statement; trajectories, judgments, ratings
  and the taxonomy say status, score, player or title.

``caption`` is pure; ``set_captions`` reads the nodes and writes ``n.caption`` (idempotent).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row

STREAM_CAPTION_SOURCES = cypher.load("captions/stream_caption_sources")
GET_SHARED_FILE_NAMES = cypher.load("captions/get_shared_file_names")
SET_CAPTIONS = cypher.load("captions/set_captions")

NAME_CHARS = 24  # a name shortened from the middle
WORDS_CHARS = 30  # a text cut after its first words


def middle(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` shortened from the middle to ``limit`` characters: its start and end stay."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2 + 1
    head = limit - 1 - tail
    return text[:head].rstrip() + "…" + text[-tail:].lstrip()


def wrapped_middle(text: str, head: int = 11, tail: int = 12) -> str:
    """A file-like name shortened from the middle with a space after the ellipsis, so Browser (which
    breaks a caption only at spaces) shows its start on one line and its end, extension included, on the
    next: 'brightwater_ledger_2024.xlsx' reads 'brightwater… _2024.xlsx'."""
    text = " ".join(str(text).split())
    if len(text) <= 14:
        return text
    if " " in text:  # words: the first and the last ones, whole
        if len(text) <= head + tail + 1:
            return text
        words = text.split()
        start, end = [words.pop(0)], [words.pop()] if len(words) > 0 else []
        while words and len(" ".join(start + [words[0]])) <= head + 2:
            start.append(words.pop(0))
        while words and len(" ".join([words[-1]] + end)) <= tail + 2:
            end.insert(0, words.pop())
        return " ".join(start) + (" … " if words else " ") + " ".join(end)
    if len(text) <= head + tail:  # whole, with a break after a separator near the middle
        cuts = [i + 1 for i, ch in enumerate(text[:-1]) if ch in "_-." and 4 <= i + 1 <= len(text) - 4]
        if cuts:
            cut = min(cuts, key=lambda i: abs(i - len(text) / 2))
            return text[:cut] + " " + text[cut:]
        return text[:len(text) // 2] + "… " + text[len(text) // 2:]
    return text[:head].rstrip() + "… " + text[-tail:].lstrip()


def first_words(text: str, limit: int = WORDS_CHARS) -> str:
    """The first words of ``text`` that fit in ``limit`` characters, with an ellipsis when cut."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.-") + "…"


_BARE = re.compile(r"^(sheet|element|cell|range|xpath|path|key)=", re.IGNORECASE)  # the value says enough
_WORD = re.compile(r"^([a-z_]+)=", re.IGNORECASE)  # 'row=2' reads 'row 2'


def locator_caption(locator: str) -> str:
    """A span locator, shortened from the middle (its most specific end stays): 'sheet=Q1!A3:D3' reads
    'Q1!A3:D3', 'row=2' 'row 2', 'page=3;line=4' 'page 3; line 4', 'element=/html/body/div[3]/p[2]'
    'html/body…div[3]/p[2]'."""
    text = str(locator).strip()
    if _BARE.match(text):
        text = _BARE.sub("", text).strip("/ ")
    else:
        text = "; ".join(_WORD.sub(r"\1 ", part.strip()) for part in re.split(r"[;&]", text) if part.strip())
    return middle(text or str(locator))


def _num(value: Any, digits: int = 2) -> str:
    try:
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return str(value)


def _file(props: Mapping[str, Any], path: str | None, shared: set[str]) -> str:
    name = str(props.get("name") or (path or "").rsplit("/", 1)[-1] or props.get("sha256", "")[:12])
    if name in shared and path and "/" in path:  # two files of one name: the folder reads them apart
        parent = path.rsplit("/", 2)[-2]
        return f"{middle(parent, 14)}/ {wrapped_middle(name)}"
    return wrapped_middle(name)


def caption(labels: list[str], props: Mapping[str, Any], path: str | None = None,
            shared_names: set[str] | None = None) -> str:
    """The display caption of one node from its labels and properties (pure)."""
    p = {k: v for k, v in props.items() if v not in (None, "", [])}
    label = next((x for x in labels if x != "Node"), labels[0] if labels else "node")
    if label == "File":
        return _file(p, path, shared_names or set())
    if label == "Span":  # its locator, then its first words (spans of several files read apart)
        where = locator_caption(str(p.get("locator") or p.get("kind") or "span"))
        words = first_words(re.sub(r"[#*|\t]+", " ", str(p.get("text") or "")), 20)
        return f"{where} · {words}" if words else where
    if label == "TaskSpec":
        return middle(f"{p.get('family') or 'spec'} v{p.get('version', '?')}", 28)
    if label == "Criterion":
        kind = p.get("check") or p.get("kind") or "criterion"
        sign = "not " if p.get("polarity") == "negative" else ""
        words = str(p.get("label") or p.get("requirement") or "")
        target = str(p.get("target_deliverable") or "")
        if target and words.startswith(target):  # "out.xlsx gives revenue": the deliverable is its own node
            words = words[len(target):].strip()
        number = str(p.get("criterion_id") or "").rsplit("/", 1)[-1] or f"c{p.get('ordinal', '?')}"
        head = f"{number} {sign}"
        text = words if words.lower().startswith(str(kind).lower()) else f"{kind}: {words}"
        return first_words(head + text, 36)
    if label == "Deliverable":
        return "out: " + wrapped_middle(str(p.get("name", "deliverable")))
    if label == "Fact":
        if p.get("metric") and p.get("value") is not None:
            period = f" {p['period']}" if p.get("period") else ""
            return first_words(f"{p['metric']}{period}: {p['value']}", 34)
        return first_words(str(p.get("statement") or p.get("value") or "fact"))
    if label == "Workspace":
        return wrapped_middle(str(p.get("name") or p.get("workspace_id") or "workspace"))
    if label == "Trajectory":
        who = str(p.get("scaffold") or p.get("model") or "").split(" (")[0]
        return middle(f"{p.get('status', 'trajectory')} · {who}".strip(" ·"))
    if label == "Judgment":
        return f"Q {_num(p.get('q'))} {p.get('arm', '')}".strip()
    if label == "Export":
        return " ".join(str(x) for x in ("export", p.get("kind"), p.get("arm")) if x)
    if label == "Review":
        who = str(p.get("reviewer", "")).split("@")[0]
        return middle(f"{p.get('verdict', 'review')} by {who}" if who else str(p.get("verdict", "review")))
    if label == "RatingRun":
        return first_words(f"Elo fit, anchor {p.get('anchor', '?')}")
    if label == "Rating":
        return first_words(f"Elo {_num(p.get('elo'), 0)} · {p.get('player', '?')}", 30)
    if label == "Seed":
        return middle(f"{p.get('pattern', 'seed')} · {p.get('input_family', '')}".strip(" ·"), 30)
    if label == "Attempt":
        return middle(f"{p.get('player', '?')} on {p.get('task_id', '?')}")
    if label == "PairJudgment":
        return middle(f"pair judged by {p.get('judge', '?')}")
    if label == "Audit":
        return f"audit {str(p.get('audit_id', ''))[:10]}".strip()
    if label == "BenchmarkFile":
        return f"{p.get('format', 'file')} {str(p.get('sha256', ''))[:8]}".strip()
    if label in ("BenchmarkTask",):
        return middle(str(p.get("task_id", "task")))
    for key in ("title", "name", "statement", "demand", "text", "release_id", "task_id", "spec_id", "code"):
        if p.get(key) is not None:
            return first_words(str(p[key]))
    return label


class CaptionSource(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    labels: list[str]
    props: dict[str, Any]
    path: str | None = None


class CaptionRow(Row):
    id: str
    caption: str


def set_captions(graph: Graph, refresh: bool = True) -> int:
    """Write ``caption`` on every node (``refresh=False``: only on nodes without one); returns how many."""
    shared = {str(r["name"]) for r in graph.read_dicts(GET_SHARED_FILE_NAMES)}
    rows = [CaptionRow(id=s.id, caption=caption(s.labels, s.props, s.path, shared))
            for s in graph.stream(STREAM_CAPTION_SOURCES, CaptionSource, refresh=refresh)]
    return graph.write(SET_CAPTIONS, rows) if rows else 0
