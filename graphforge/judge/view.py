"""What the judge knows about a spec: the spec, each criterion's anchors down to span text, the files."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphforge.models.spec import CriterionSpec, TaskSpec


class Anchor(BaseModel):
    """One anchored fact with the span it came from and the file that span sits in (judge-only)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    fact_id: str
    statement: str = ""
    value: str
    value_num: float | None = None
    unit: str | None = None
    scale: float = 1.0  # the table's scale ("in thousands": 1000); value_num = number in value x scale
    metric: str | None = None
    period: str | None = None
    span_id: str = ""
    locator: str = ""
    span_text: str = ""
    sha256: str = ""
    path: str | None = None  # workspace-relative path
    role: str | None = None


class WorkspaceFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    sha256: str = ""
    role: str | None = None  # hidden role ("core", "supporting", "confuser", ...): judge-only
    superseded_by: list[str] = Field(default_factory=list)  # later versions (SUPERSEDES edges), paths


class FigureSource(BaseModel):
    """Another workspace file that states an anchored figure in agreement (a compare edge), and where."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    locator: str = ""


class JudgeView(BaseModel):
    """A spec as the anchored judge sees it. Built from Neo4j by ``graphforge.judge.load_view``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: TaskSpec
    anchors: dict[str, list[Anchor]] = Field(default_factory=dict)  # criterion_id -> anchors, in anchor order
    files: list[WorkspaceFile] = Field(default_factory=list)
    agreeing: dict[str, list[FigureSource]] = Field(default_factory=dict)  # fact_id -> files stating it too

    def anchors_of(self, criterion: CriterionSpec) -> list[Anchor]:
        return self.anchors.get(criterion.criterion_id, [])

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]


def bad_files(view: JudgeView) -> dict[str, str]:
    """Workspace paths a current figure must never be credited to, with why."""
    out: dict[str, str] = {}
    for f in view.files:
        if f.superseded_by:
            out[f.path] = f"superseded by {', '.join(sorted(f.superseded_by))}"
        elif f.role == "confuser":
            out[f.path] = "a confuser file"
    for a in (a for anchors in view.anchors.values() for a in anchors):
        if a.path and a.role == "confuser":
            out.setdefault(a.path, "a confuser file")
    return out
