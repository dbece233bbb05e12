"""Export rubrics (reward side) and GRPO prompts (agent side) so the same specs serve RL without Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import ExportError
from graphforge.export.writer import FileEntry, git_commit, sha256_file, write_json
from graphforge.graphdb import cypher
from graphforge.models.base import stable_hash
from graphforge.review.verdicts import review_states, reviewed_spec

STREAM_CURRENT_SPECS = cypher.load("export/stream_current_specs")


class SpecId(BaseModel):
    spec_id: str


class ExportRubricsParams(BaseModel):
    """Options of the export_rubrics stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: Path
    only_admitted: bool = Field(False, description="Only specs with at least one admitted trajectory.")
    reviewed_only: bool = Field(False, description="Only specs a person accepted in human review (a "
                                                   "rejected spec is never exported).")


class RubricsManifest(BaseModel):
    schema_version: int = 1
    export_id: str
    kind: str = "rubrics"
    files: list[FileEntry]
    specs: int
    criteria: int
    spec_ids: list[str]
    reviewed_only: bool = False
    excluded_by_review: dict[str, str] = {}  # spec_id -> why human review keeps it out
    criteria_rejected: int = 0  # criteria dropped because a reviewer rejected them
    criteria_edited: int = 0  # criteria whose requirement is a reviewer's edited text
    git_commit: str
    usage: str = (
        "from graphforge.export.reward import load_rubric_reward; "
        "reward = load_rubric_reward('rubrics.jsonl'); GRPOTrainer(reward_funcs=[reward], "
        "train_dataset=load_dataset('json', data_files='grpo_prompts.jsonl')['train'], ...)"
    )


class ExportRubricsResult(BaseModel):
    """What the export_rubrics stage did."""

    export_id: str
    out_dir: str
    specs: int
    criteria: int
    excluded_by_review: int = 0  # specs left out: rejected in review (or unreviewed, with reviewed_only)
    criteria_rejected: int = 0
    criteria_edited: int = 0
    files: list[FileEntry]
    manifest: FileEntry


def prompt_text(statement: str, files: list[str]) -> str:
    """The agent's view only: the statement and the workspace file names (roles and anchors stay hidden)."""
    listing = "\n".join(f"- {f}" for f in files)
    return f"{statement}\n\nWorkspace files:\n{listing}" if files else statement


def run(ctx: StageContext, params: ExportRubricsParams) -> ExportRubricsResult:
    """Write rubrics.jsonl (full specs, for the reward), grpo_prompts.jsonl (prompt + spec_id), a manifest."""
    # the spec persistence layer (loads a TaskSpec with full fidelity)
    from graphforge.stores import specs as specs_store

    out = params.out_dir
    out.mkdir(parents=True, exist_ok=True)
    ids = [
        r.spec_id for r in ctx.graph.stream(STREAM_CURRENT_SPECS, SpecId, only_admitted=params.only_admitted)
    ]
    reviews = review_states(ctx.graph, ids)
    excluded = {sid: reviews[sid].reason() for sid in ids if sid in reviews and (
        reviews[sid].rejected or (params.reviewed_only and not reviews[sid].reviewed))}
    ids = [sid for sid in ids if sid not in excluded]
    rejected = edited = 0
    rubrics_path, prompts_path = out / "rubrics.jsonl", out / "grpo_prompts.jsonl"
    criteria = 0
    try:
        with (
            rubrics_path.open("w", encoding="utf-8", newline="\n") as rub,
            prompts_path.open("w", encoding="utf-8", newline="\n") as pro,
        ):
            for spec_id in ids:  # one spec in memory at a time
                review = reviews.get(spec_id)
                spec = reviewed_spec(specs_store.load_spec(ctx.graph, spec_id), review)
                if review is not None:
                    rejected += len(review.rejected_criteria)
                    edited += len(review.edited_criteria)
                view = specs_store.agent_view_from_graph(ctx.graph, spec_id)
                criteria += len(spec.criteria)
                rub.write(
                    json.dumps(
                        spec.model_dump(mode="json"),
                        ensure_ascii=False,
                        sort_keys=True,
                        separators=(",", ":"),
                    )
                    + "\n"
                )
                prompt = [{"role": "user", "content": prompt_text(view.statement, view.files)}]
                pro.write(
                    json.dumps(
                        {"prompt": prompt, "spec_id": spec_id}, ensure_ascii=False, separators=(",", ":")
                    )
                    + "\n"
                )
    except OSError as exc:
        raise ExportError(f"{out}: cannot write rubrics: {exc.strerror}") from exc
    files = [
        FileEntry(path=p.name, sha256=sha256_file(p), bytes=p.stat().st_size, rows=len(ids))
        for p in (rubrics_path, prompts_path)
    ]
    export_id = f"rubrics-{stable_hash([f.sha256 for f in files])}"
    manifest = RubricsManifest(
        export_id=export_id,
        files=files,
        specs=len(ids),
        criteria=criteria,
        spec_ids=ids,
        reviewed_only=params.reviewed_only,
        excluded_by_review=excluded,
        criteria_rejected=rejected,
        criteria_edited=edited,
        git_commit=git_commit(),
    )
    entry = write_json(out / "rubrics.manifest.json", manifest)
    return ExportRubricsResult(
        export_id=export_id, out_dir=str(out), specs=len(ids), criteria=criteria,
        excluded_by_review=len(excluded), criteria_rejected=rejected, criteria_edited=edited, files=files,
        manifest=entry,
    )
