"""Label Studio as the review tool: labeling config, one task per spec, verdicts parsed from annotations.

A review task shows one spec: its statement, its deliverables, and each criterion beside the span text it
is anchored to (file, location, the words of the span). The reviewer answers once for the spec (accept /
reject, required) and, per criterion, accept / reject / edit with the edited requirement in a text box.
Label Studio's ``Repeater`` tag draws one block per criterion from the task's ``criteria`` list.

Everything here but ``LabelStudioClient`` is pure: specs in, JSON out; an export (the file Label Studio's
"Export > JSON" writes, or the same list from its API) in, verdicts out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from graphforge.errors import ConfigError, SourceFormatError
from graphforge.models.base import stable_hash
from graphforge.models.spec import CriterionSpec, TaskSpec

TOOL = "label-studio"
SPAN_CHARS = 600  # span text shown per anchor (the rest is cut at a word, with an ellipsis)
STATEMENT_CHARS = 6000


class Verdict(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"
    EDIT = "edit"


LABEL_CONFIG = """<View>
  <Style>
    .gf-crit { border: 1px solid #d0d4da; border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
    .gf-span { background: #f6f8fa; border-left: 3px solid #45b39d; padding: 4px 8px; margin: 4px 0; }
  </Style>
  <Header value="$title"/>
  <Text name="statement" value="$statement"/>
  <Header value="Deliverables" size="5"/>
  <Text name="deliverables" value="$deliverables"/>
  <Header value="Your verdict on the whole spec (required): a rejected spec is never used" size="5"/>
  <Choices name="spec_verdict" toName="statement" choice="single" showInline="true" required="true">
    <Choice value="accept"/>
    <Choice value="reject"/>
  </Choices>
  <TextArea name="spec_note" toName="statement" rows="2" maxSubmissions="1" editable="true"
            placeholder="why (optional)"/>
  <Header value="Criteria: each beside the span text it is anchored to" size="5"/>
  <Repeater on="$criteria" indexFlag="{{idx}}">
    <View className="gf-crit">
      <Text name="criterion_{{idx}}" value="$criteria[{{idx}}].text"/>
      <View className="gf-span">
        <Text name="anchors_{{idx}}" value="$criteria[{{idx}}].anchors"/>
      </View>
      <Choices name="verdict_{{idx}}" toName="criterion_{{idx}}" choice="single" showInline="true">
        <Choice value="accept"/>
        <Choice value="reject"/>
        <Choice value="edit"/>
      </Choices>
      <TextArea name="edited_{{idx}}" toName="criterion_{{idx}}" rows="2" maxSubmissions="1"
                editable="true" placeholder="edited requirement (with 'edit')"/>
    </View>
  </Repeater>
</View>
"""


class AnchorText(BaseModel):
    """One anchor of a criterion as the reviewer reads it (from specs_store.AnchorEvidence)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    criterion_id: str
    path: str | None
    sha256: str
    locator: str
    span_text: str


def _cut(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def criterion_text(c: CriterionSpec, ordinal: int) -> str:
    """The criterion as the reviewer reads it: number, polarity, kind, weight, requirement, target."""
    kind = c.kind.value + (f" / {c.check}" if c.check else "")
    head = f"c{ordinal} · {c.polarity.value} · {kind} · weight {c.weight:g}"
    where = c.target_deliverable + (f" at {c.target_location}" if c.target_location else "")
    lines = [head, c.requirement, f"Checked in: {where}"]
    if c.expected:
        lines.append(f"Expected: {_cut(c.expected, 300)}")
    return "\n".join(lines)


def anchors_text(anchors: Sequence[AnchorText]) -> str:
    """Each anchored span: file, location, then its words."""
    if not anchors:
        return "(no anchored span: this criterion is checked on the deliverable's structure alone)"
    blocks = []
    for a in anchors:
        where = a.path or f"file {a.sha256[:12]}"
        blocks.append(f"{where} — {a.locator}\n“{_cut(a.span_text, SPAN_CHARS)}”")
    return "\n\n".join(blocks)


def deliverables_text(spec: TaskSpec) -> str:
    lines = []
    for d in spec.deliverables:
        parts = [f"{d.name} ({d.format})"]
        if d.description:
            parts.append(d.description)
        for label, items in (("sheets", d.required_sheets), ("sections", d.required_sections),
                             ("columns", d.required_columns), ("keys", d.required_keys),
                             ("formulas", d.required_formulas)):
            if items:
                parts.append(f"{label}: {', '.join(items)}")
        lines.append(" — ".join(parts))
    return "\n".join(lines) or "(none)"


def spec_title(spec: TaskSpec) -> str:
    family = spec.family or "spec"
    return f"{family} v{spec.version} · {spec.spec_id}"


def build_task(spec: TaskSpec, anchors: Sequence[AnchorText], export_id: str) -> dict[str, Any]:
    """One Label Studio task (``{"data": ...}``) for a spec; ``criteria[i]`` carries the id the verdict
    ``verdict_i`` is read back onto and the requirement the reviewer saw."""
    by_criterion: dict[str, list[AnchorText]] = {}
    for a in anchors:
        by_criterion.setdefault(a.criterion_id, []).append(a)
    criteria = [{"criterion_id": c.criterion_id, "requirement": c.requirement,
                 "text": criterion_text(c, i), "anchors": anchors_text(by_criterion.get(c.criterion_id, []))}
                for i, c in enumerate(spec.criteria)]
    return {"data": {"spec_id": spec.spec_id, "title": spec_title(spec),
                     "statement": spec.statement if len(spec.statement) <= STATEMENT_CHARS
                     else spec.statement[:STATEMENT_CHARS] + " …",
                     "deliverables": deliverables_text(spec), "workspace_id": spec.workspace_id,
                     "family": spec.family or "", "version": spec.version, "criteria": criteria,
                     "graphforge_export": export_id}}


# ---- verdicts read back ---------------------------------------------------------------------------


class ParsedVerdict(BaseModel):
    """One verdict of one reviewer on a spec or a criterion, as an annotation holds it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    review_id: str
    target_kind: Literal["spec", "criterion"]
    target_id: str
    spec_id: str
    verdict: Verdict
    text: str | None  # the edited requirement (edit) or the reviewer's note (spec)
    seen_text: str | None  # the requirement the reviewer saw (criteria)
    reviewer: str
    reviewed_at: str  # ISO 8601, UTC
    annotation: str  # the annotation's id in Label Studio
    ls_task: int | None
    ls_project: int | None


class ParsedExport(BaseModel):
    verdicts: list[ParsedVerdict]
    annotations: int  # submitted annotations read
    skipped_tasks: int  # tasks no one has annotated (or only skipped)
    problems: list[str]  # what could not be read, one line each


def _results(annotation: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(r.get("from_name")): dict(r.get("value") or {}) for r in annotation.get("result") or []
            if isinstance(r, Mapping)}


def _choice(value: Mapping[str, Any] | None) -> str | None:
    choices = (value or {}).get("choices") or []
    return str(choices[0]) if choices else None


def _text(value: Mapping[str, Any] | None) -> str | None:
    texts = [str(t).strip() for t in (value or {}).get("text") or [] if str(t).strip()]
    return "\n".join(texts) if texts else None


def _reviewer(completed_by: Any, users: Mapping[int, str]) -> str:
    if isinstance(completed_by, Mapping):
        return str(completed_by.get("email") or completed_by.get("username") or completed_by.get("id"))
    if isinstance(completed_by, int):
        return users.get(completed_by, f"label-studio user {completed_by}")
    return str(completed_by or "unknown")


def _iso(value: Any) -> str:
    """An annotation's time as ISO 8601 in UTC (Label Studio writes '...Z' or '+00:00')."""
    text = str(value or "")
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return dt.datetime.now(dt.UTC).isoformat()
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).isoformat()


def parse_export(tasks: Sequence[Mapping[str, Any]], users: Mapping[int, str] | None = None) -> ParsedExport:
    """The verdicts in a Label Studio JSON export (every submitted annotation of every task).

    Per annotation: the spec's verdict (spec_verdict) and each criterion's (verdict_i, edited_i). An edit
    without text, or text without a verdict, is reported and not taken; cancelled (skipped) annotations
    are ignored.
    """
    users = users or {}
    verdicts: list[ParsedVerdict] = []
    problems: list[str] = []
    read = skipped = 0
    for task in tasks:
        data = task.get("data") or {}
        spec_id = data.get("spec_id")
        annotations = [a for a in task.get("annotations") or [] if not a.get("was_cancelled")]
        if not spec_id or not isinstance(data.get("criteria"), list):
            if annotations:
                problems.append(f"task {task.get('id')}: not a GraphForge review task (no spec_id/criteria)")
            continue
        if not annotations:
            skipped += 1
            continue
        criteria = data["criteria"]
        for a in annotations:
            read += 1
            results = _results(a)
            key = str(a.get("unique_id") or f"{task.get('project')}/{a.get('id')}")
            common = {"spec_id": spec_id, "reviewer": _reviewer(a.get("completed_by"), users),
                      "reviewed_at": _iso(a.get("updated_at") or a.get("created_at")), "annotation": key,
                      "ls_task": task.get("id"), "ls_project": task.get("project") or a.get("project")}
            spec_choice = _choice(results.get("spec_verdict"))
            if spec_choice in (Verdict.ACCEPT, Verdict.REJECT):
                verdicts.append(ParsedVerdict(
                    review_id=stable_hash(TOOL, key, spec_id), target_kind="spec", target_id=spec_id,
                    verdict=Verdict(spec_choice), text=_text(results.get("spec_note")), seen_text=None,
                    **common))
            else:
                problems.append(f"{spec_id}: annotation {key} has no verdict on the spec (accept or reject)")
            for i, crit in enumerate(criteria):
                cid = str(crit.get("criterion_id"))
                choice = _choice(results.get(f"verdict_{i}"))
                text = _text(results.get(f"edited_{i}"))
                if choice is None:
                    if text:
                        problems.append(f"{cid}: edited text without 'edit' chosen (annotation {key}); "
                                        "not taken")
                    continue
                verdict = Verdict(choice) if choice in set(Verdict) else None
                if verdict is None:
                    problems.append(f"{cid}: unknown verdict {choice!r} (annotation {key})")
                    continue
                if verdict is Verdict.EDIT and not text:
                    problems.append(f"{cid}: 'edit' chosen without the edited text (annotation {key}); "
                                    "not taken")
                    continue
                verdicts.append(ParsedVerdict(
                    review_id=stable_hash(TOOL, key, cid), target_kind="criterion", target_id=cid,
                    verdict=verdict, text=text if verdict is Verdict.EDIT else None,
                    seen_text=crit.get("requirement"), **common))
    return ParsedExport(verdicts=verdicts, annotations=read, skipped_tasks=skipped, problems=problems)


def read_export_file(path: Path) -> list[dict[str, Any]]:
    """A Label Studio JSON export (a list of tasks with their annotations)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read the Label Studio export: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise SourceFormatError(path, f"not JSON ({exc.msg} at line {exc.lineno}); export the project "
                                      "from Label Studio as JSON") from exc
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise SourceFormatError(path, "a Label Studio JSON export is a list of tasks; this is not one")
    return data


# ---- a running Label Studio ------------------------------------------------------------------------


class LabelStudioTarget(BaseModel):
    """A running Label Studio: where to create (or find) the review project, with whose token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(description="Label Studio's address, e.g. http://127.0.0.1:8080.")
    token: SecretStr = Field(description="A user's API token (Account & Settings).")
    title: str | None = Field(None, description="The project's title (default: GraphForge review <date>).")
    project: int | None = Field(None, description="An existing project: add tasks to it, or read its "
                                                  "annotations.")


class LabelStudioClient:
    """Label Studio's REST API with a user's token: a legacy token ("Token ..."), or a personal access
    token (a JWT refresh token, exchanged once for an access token)."""

    def __init__(self, url: str, token: str, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        if not url or not token:
            raise ConfigError("Label Studio needs a URL and an API token (--url/--token, or LABEL_STUDIO_URL "
                              "and LABEL_STUDIO_API_KEY); the token is on the Account & Settings page")
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport)
        self._token = token
        self._auth: str | None = None

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LabelStudioClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _authorization(self) -> str:
        if self._auth is None:
            if self._token.count(".") == 2:  # a personal access token (JWT): exchange it for an access token
                reply = self._call("POST", "/api/token/refresh", json={"refresh": self._token}, auth=False)
                self._auth = f"Bearer {reply['access']}"
            else:
                self._auth = f"Token {self._token}"
        return self._auth

    def _call(self, method: str, path: str, auth: bool = True, **kwargs: Any) -> Any:
        headers = {"Authorization": self._authorization()} if auth else {}
        try:
            response = self._http.request(method, path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise ConfigError(f"Label Studio at {self.url} is not reachable: {exc}") from exc
        if response.status_code in (401, 403):
            raise ConfigError(f"Label Studio at {self.url} refused the token ({response.status_code}); copy "
                              "it from Account & Settings (with legacy tokens enabled for a 'Token' key)")
        if response.status_code >= 400:
            raise ConfigError(f"Label Studio {method} {path}: HTTP {response.status_code}: "
                              f"{' '.join(response.text.split())[:300]}")
        return response.json() if response.content else None

    def create_project(self, title: str, label_config: str, description: str = "") -> int:
        reply = self._call("POST", "/api/projects", json={"title": title, "label_config": label_config,
                                                          "description": description})
        return int(reply["id"])

    def import_tasks(self, project: int, tasks: Sequence[Mapping[str, Any]]) -> int:
        reply = self._call("POST", f"/api/projects/{project}/import", json=list(tasks))
        return int(reply.get("task_count", len(tasks)))

    def export_tasks(self, project: int) -> list[dict[str, Any]]:
        reply = self._call("GET", f"/api/projects/{project}/export",
                           params={"exportType": "JSON", "download_all_tasks": "true"})
        if not isinstance(reply, list):
            raise ConfigError(f"Label Studio project {project}: the export is not a list of tasks")
        return reply

    def users(self) -> dict[int, str]:
        """User id -> e-mail, to name the reviewer of each annotation."""
        reply = self._call("GET", "/api/users/")
        items = reply.get("results", []) if isinstance(reply, dict) else reply or []
        return {int(u["id"]): str(u.get("email") or u.get("username") or u["id"]) for u in items}

    def project_url(self, project: int) -> str:
        return f"{self.url}/projects/{project}/data"
