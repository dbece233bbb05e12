"""Train / held-out splits that keep evaluation honest: by workspace (by occupation where the graph allows).

Every current spec belongs to one workspace. The split puts whole groups on one side: an occupation (the
one the workspace's seed serves) when every workspace has one and there are at least two, else a single
workspace. The groups are shuffled with a committed seed (:data:`SPLIT_SEED`), so the same graph always
gives the same split; held-out groups are taken until about :data:`HELDOUT_SHARE` of the workspaces are
held out (at least one, never all).

:func:`audit_split` is the contamination audit (graphforge.audit) run between the split's training rows and
its held-out tasks: no file of a held-out workspace may be a file of a training workspace (identical bytes)
and no 13-gram of a held-out file or of a held-out task statement (less the compiler's template wording)
may occur in a training row. Exports with
``--split`` write only training rows and refuse to finish unless the audit is clean.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

GET_SPLIT_UNITS = cypher.load("export/get_split_units")
GET_WORKSPACE_FILE_TEXTS = cypher.load("export/get_workspace_file_texts")
GET_WORKSPACE_FILE_HASHES = cypher.load("export/get_workspace_file_hashes")

SPLIT_SEED = 20261204
HELDOUT_SHARE = 0.25
NGRAM_SIZE = 13  # the audit's n (graphforge.audit.ngrams.NGRAM_SIZE)


class Split(BaseModel):
    seed: int
    by: str  # "occupation" | "workspace"
    heldout_share: float
    train_workspaces: list[str]
    heldout_workspaces: list[str]
    train_specs: list[str]
    heldout_specs: list[str]
    occupations: dict[str, str | None] = Field(default_factory=dict)  # workspace -> occupation

    def is_train(self, spec_id: str | None) -> bool:
        return spec_id in set(self.train_specs)


def make_split(graph: Graph, *, share: float = HELDOUT_SHARE, seed: int = SPLIT_SEED) -> Split:
    """Split the current specs by workspace (whole occupations where possible); deterministic for a seed."""
    units = graph.read_dicts(GET_SPLIT_UNITS)
    specs: dict[str, list[str]] = {}
    occupation: dict[str, str | None] = {}
    for u in units:
        ws = str(u["workspace_id"])
        specs.setdefault(ws, []).append(str(u["spec_id"]))
        occupation[ws] = u["occupation"]
    return split_of(specs, occupation, share=share, seed=seed)


def split_of(specs: dict[str, list[str]], occupation: dict[str, str | None], *, share: float = HELDOUT_SHARE,
             seed: int = SPLIT_SEED) -> Split:
    workspaces = sorted(specs)
    known = {occupation.get(w) for w in workspaces}
    by_occupation = None not in known and len(known) >= 2
    groups: dict[str, list[str]] = {}
    for w in workspaces:
        groups.setdefault(str(occupation[w]) if by_occupation else w, []).append(w)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    want = max(1, round(share * len(workspaces))) if len(workspaces) > 1 else 0
    held: list[str] = []
    for key in keys:
        if len(held) >= want or len(held) + len(groups[key]) >= len(workspaces):
            continue
        held += groups[key]
    train = [w for w in workspaces if w not in held]
    return Split(seed=seed, by="occupation" if by_occupation else "workspace", heldout_share=share,
                 train_workspaces=train, heldout_workspaces=sorted(held),
                 train_specs=sorted(s for w in train for s in specs[w]),
                 heldout_specs=sorted(s for w in held for s in specs[w]),
                 occupations={w: occupation.get(w) for w in workspaces})


class SplitAudit(BaseModel):
    clean: bool
    training_rows: int
    heldout_files: int
    heldout_specs: int
    ngram_size: int
    identical_files: list[str]  # held-out file paths whose bytes a training workspace also holds
    overlaps: list[dict[str, Any]]  # (training row, held-out file or statement) pairs sharing n-grams


def row_text(row: dict[str, Any]) -> str:
    """Everything a training row teaches: every message's content and every tool call's arguments."""
    parts = []
    for m in row["messages"]:
        if m.get("content"):
            parts.append(m["content"])
        for c in m.get("tool_calls") or ():
            parts.append(c["function"]["arguments"])
    return "\n".join(parts)


def audit_split(graph: Graph, split: Split, rows: Sequence[dict[str, Any]], *,
                statements: dict[str, str] | None = None, train_statements: Sequence[str] = (),
                ngram_size: int = NGRAM_SIZE) -> SplitAudit:
    """The contamination audit between training rows and the held-out side (files and task statements).

    Files: identical bytes in a training workspace, and any ``ngram_size``-gram (the audit's tokens and
    hashes, graphforge.audit.ngrams) a training row shares with a held-out file's text. Statements: any
    n-gram a training row shares with a held-out task statement, less the compiler's template wording (the
    n-grams the training specs' own statements hold too: "could you put together a few slides with the
    key figures ..."), which every spec of a family shares and which says nothing about the held-out task.
    """
    import numpy as np

    from graphforge.audit.ngrams import TokenHasher, shingle_text

    hasher = TokenHasher()
    held_files = graph.read_dicts(GET_WORKSPACE_FILE_TEXTS, workspace_ids=split.heldout_workspaces)
    train_hashes = {r["sha256"] for r in graph.read_dicts(GET_WORKSPACE_FILE_HASHES,
                                                          workspace_ids=split.train_workspaces)}
    identical = sorted(p for f in held_files if f["sha256"] in train_hashes for p in f["paths"])
    template = np.unique(np.concatenate(
        [shingle_text(t, hasher, ngram_size).shingles for t in train_statements]
        or [np.empty(0, dtype=np.uint64)]))
    held: list[tuple[str, str, Any]] = []
    for f in held_files:
        text = "\n\n".join(t for t in f["texts"] if t)
        held.append(("file", ", ".join(f["paths"]), shingle_text(text, hasher, ngram_size).shingles))
    for sid, text in sorted((statements or {}).items()):
        own = np.setdiff1d(shingle_text(text, hasher, ngram_size).shingles, template, assume_unique=True)
        held.append(("statement", sid, own))
    overlaps: list[dict[str, Any]] = []
    for r in rows:
        mine = shingle_text(row_text(r), hasher, ngram_size).shingles
        for kind, label, theirs in held:
            shared = np.intersect1d(mine, theirs, assume_unique=True)
            if len(shared):
                overlaps.append({"trajectory_id": r.get("trajectory_id"), "heldout": label, "kind": kind,
                                 "shared_ngrams": int(len(shared))})
    return SplitAudit(clean=not identical and not overlaps, training_rows=len(rows),
                      heldout_files=len(held_files), heldout_specs=len(split.heldout_specs),
                      ngram_size=ngram_size, identical_files=identical, overlaps=overlaps)


def finish_split(graph: Graph, split: Split, out_dir: Path, name: str) -> dict[str, Any]:
    """Audit the written training rows against the held-out side; write ``<name>.split.json``.

    An audit that is not clean removes the written rows and raises ExportError (no training on them)."""
    from graphforge.errors import ExportError
    from graphforge.export.verify import read_rows
    from graphforge.export.writer import write_json
    from graphforge.stores import specs as specs_store

    jsonl = out_dir / f"{name}.jsonl"
    rows = read_rows(jsonl) if jsonl.is_file() else []
    statements = {sid: specs_store.load_spec(graph, sid).statement for sid in split.heldout_specs}
    train_statements = [specs_store.load_spec(graph, sid).statement for sid in split.train_specs]
    audit = audit_split(graph, split, rows, statements=statements, train_statements=train_statements)
    record = {"split": split.model_dump(mode="json"), "audit": audit.model_dump(mode="json")}
    write_json(out_dir / f"{name}.split.json", _Record.model_validate(record))
    if not audit.clean:
        for suffix in (".jsonl", ".parquet"):
            (out_dir / f"{name}{suffix}").unlink(missing_ok=True)
        raise ExportError(
            f"the split's contamination audit is not clean: {len(audit.identical_files)} held-out file(s) "
            f"in training workspaces, {len(audit.overlaps)} (training row, held-out text) pair(s) sharing "
            f"{audit.ngram_size}-grams (see {out_dir / f'{name}.split.json'}); the rows were removed")
    return {"by": split.by, "seed": split.seed, "train_workspaces": len(split.train_workspaces),
            "heldout_workspaces": split.heldout_workspaces, "heldout_specs": len(split.heldout_specs),
            "audit_clean": audit.clean, "split_file": str(out_dir / f"{name}.split.json")}


class _Record(BaseModel):
    split: dict[str, Any]
    audit: dict[str, Any]
