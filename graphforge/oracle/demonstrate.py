"""The oracle's demonstration: real calls of the agent's own tools in a working copy of the workspace.

Every call the trajectory records ran through :class:`graphforge.agent.tools.ToolBox` (the tools the
built-in agent loop uses) in a fresh copy of the files the agent may see, and its recorded result is what
the tool returned: ``list_files``, ``read_file`` (paged as the tool pages), ``run_python`` for computed
figures and for the binary deliverables (openpyxl / python-docx / python-pptx scripts run in the sandbox),
``write_file`` with the full text of a text deliverable. So a row exported from it can be replayed
(``graphforge export verify``) and a model trained on it learns what reading and writing really look like.

The demonstration explores before it answers, in an order and with words that vary from spec to spec
(seeded by the spec id): it lists the folder, reads the files the answer rests on (and on past the first
page when the figures lie further in), opens a superseded file and says it sets it aside, computes derived
figures with Python, then writes each requested deliverable, one sentence before each step.

With ``slips`` above 0, a demonstration may also show a mistake and its repair: it asks once for a
misremembered name of a file it needs (separators swapped, another folder, the folder left out, another
extension), the tool answers that there is no such file and names the closest ones, and the demonstration
reads the right file from that answer. A model that only ever saw flawless demonstrations has never seen
what comes after a wrong path, which is where small tuned models get stuck.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from graphforge.agent.loop import SYSTEM_PROMPT, collect_deliverables, prepare_workdir, task_prompt
from graphforge.agent.tools import BINARY_FORMATS, TOOL_SCHEMAS, ToolBox, read_as_text
from graphforge.figures.formula import parse_computation
from graphforge.judge.documents import normalise_format
from graphforge.judge.view import JudgeView
from graphforge.models.base import stable_hash
from graphforge.models.spec import AgentView
from graphforge.models.trajectory import DeliverableFile, FunctionCall, Message, ToolCall
from graphforge.oracle.solve import Answer
from graphforge.oracle.transcribe import build_code
from graphforge.oracle.writers import fmt_number
from graphforge.parsers.office_zip import normalize_package

MAX_SEQUENTIAL_PAGES = 3  # pages read one after another before jumping to the page an answer is on

_EXPR = {
    "copy": "v[0]",
    "sum": "sum(v)",
    "difference": "v[0] - sum(v[1:])",
    "change": "(v[0] - v[1]) / v[1]",
    "ratio": "v[0] / v[1]",
    "product": "math.prod(v)",
    "mean": "sum(v) / len(v)",
    "min": "min(v)",
    "max": "max(v)",
    "percent_change": "(v[1] - v[0]) / v[0] * 100",
    "share_percent": "v[0] / v[1] * 100",
}

_SAY = {
    "list": ["First I'll list the workspace to see which files there are.",
             "Let me start by looking at what is in the working directory.",
             "Before anything else, I'll check which files the workspace holds.",
             "I'll list the files first so I know what I'm working with."],
    "read": ["{path} should hold the figures the task needs; I'll read it.",
             "Next I'll read {path}.",
             "Let me open {path} and find the relevant figures.",
             "I need the source figures from {path}, so I'll read that file."],
    "more": ["The part I need of {path} is further in; I'll read on from character {offset}.",
             "{path} goes on past this page and the figures I need are not here yet; reading on at {offset}.",
             "Not on this page of {path}; I'll go on to offset {offset}."],
    "jump": ["{path} is long; I'll skip ahead to character {offset}, where the section I need is.",
             "Rather than page through all of {path}, I'll jump to offset {offset}."],
    "confuser": ["{path} looks like another version of the same figures; I'll check it before relying on "
                 "anything.",
                 "There is also {path}, which may overlap with the files I read; let me look at it.",
                 "I'll open {path} too, to see whether it conflicts with the other sources."],
    "aside": ["{path} is an earlier version ({newer} replaces it), so I set it aside and use {newer}.",
              "{path} is superseded by {newer}; I won't use its figures.",
              "Since {newer} is the later version, I set {path} aside."],
    "aside_plain": ["{path} is a superseded version of these figures, so I set it aside and use the current "
                    "sources.",
                    "{path} holds outdated figures; I'll leave it out."],
    "slip": ["There is no {wrong}: I misremembered the name. The closest match the tool gives, {path}, is "
             "the file I meant.",
             "{wrong} does not exist; the first of the closest names, {path}, is the file from the listing, "
             "so I'll read that.",
             "Wrong name: the file is {path}, as the error says, not {wrong}."],
    "compute": ["Some figures are derived; I'll compute them with Python so the arithmetic is exact.",
                "Now I'll check the calculations with a short Python script.",
                "Let me compute the derived values in Python before writing them down."],
    "xlsx": ["I have what I need; I'll build {name} with openpyxl, with the sheets {parts}.",
             "Now I'll write the workbook {name} with openpyxl (sheets: {parts}).",
             "Time to write {name}: an openpyxl script with the sheets {parts}."],
    "docx": ["I'll write the report {name} with python-docx, with the sections {parts}.",
             "Now the document {name}: python-docx, sections {parts}."],
    "pptx": ["I'll build the deck {name} with python-pptx, one slide per section ({parts}).",
             "Now the slides: {name} with python-pptx, covering {parts}."],
    "text": ["I'll write {name} with the requested layout.",
             "Now I'll write {name}.",
             "Everything is checked; writing {name}."],
}


@dataclass
class Recording:
    messages: list[Message]
    deliverables: list[DeliverableFile]
    tool_calls: int = 0
    tool_failures: int = 0
    notes: list[str] = field(default_factory=list)


class _Recorder:
    def __init__(self, tools: ToolBox, rng: random.Random) -> None:
        self.tools = tools
        self.rng = rng
        self.messages: list[Message] = []
        self.count = 0
        self.pending: list[str] = []  # sentences to say in the next assistant turn

    def say(self, key: str, **kw: str) -> str:
        return self.rng.choice(_SAY[key]).format(**kw)

    def call(self, text: str, name: str, args: dict[str, Any]) -> str:
        self.count += 1
        cid = f"call_{self.count}"
        content = " ".join([*self.pending, text]).strip() or None
        self.pending = []
        arguments = json.dumps(args, ensure_ascii=False)
        self.messages.append(Message(role="assistant", content=content, tool_calls=[
            ToolCall(id=cid, function=FunctionCall(name=name, arguments=arguments))]))
        result, _ = self.tools.call(name, args)
        self.messages.append(Message(role="tool", tool_call_id=cid, name=name, content=result))
        return result


def _anchor_paths(view: JudgeView, files: set[str]) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """(files the answer rests on in criterion order, their anchors' locators, confuser files)."""
    needed: dict[str, list[str]] = {}
    confusers: list[str] = []
    roles = {f.path: f for f in view.files}
    for c in view.spec.criteria:
        for a in view.anchors_of(c):
            if not a.path or a.path not in files:
                continue
            if a.role == "confuser" or roles.get(a.path) and roles[a.path].superseded_by:
                if a.path not in confusers:
                    confusers.append(a.path)
                continue
            needed.setdefault(a.path, [])
            if a.locator not in needed[a.path]:
                needed[a.path].append(a.locator)
    for f in view.files:
        if f.path in files and f.path not in needed and f.path not in confusers and (
                f.role == "confuser" or f.superseded_by):
            confusers.append(f.path)
    return list(needed), needed, confusers


_OTHER_EXTENSION = {".xlsx": ".csv", ".csv": ".xlsx", ".md": ".txt", ".txt": ".md", ".pdf": ".docx",
                    ".docx": ".pdf", ".pptx": ".pdf", ".json": ".csv", ".html": ".md", ".htm": ".html"}


def misremembered(path: str, tools: ToolBox, rng: random.Random) -> str | None:
    """A name for ``path`` that a reader who saw the listing might ask for by mistake, chosen so that the
    tool's not-found answer names ``path`` first among the closest files; None when no such name exists."""
    pure = PurePosixPath(path)
    stem, suffix, folder = pure.stem, pure.suffix, pure.parent.as_posix()
    names = []
    for a, b in (("-", "_"), ("_", "-"), (" ", "_")):
        if a in stem:
            names.append(pure.with_name(stem.replace(a, b) + suffix).as_posix())
            break
    if folder != ".":
        names.append(pure.name)
        digits = [i for i, ch in enumerate(folder) if ch in "0123456789"]
        if digits:
            i = rng.choice(digits)
            names.append(f"{folder[:i]}{(int(folder[i]) + 1) % 10}{folder[i + 1:]}/{pure.name}")
    if suffix.lower() in _OTHER_EXTENSION:
        names.append(pure.with_suffix(_OTHER_EXTENSION[suffix.lower()]).as_posix())
    if stem != stem.lower():
        names.append(pure.with_name(stem.lower() + suffix).as_posix())
    rng.shuffle(names)
    deliverables = {PurePosixPath(d).name for d in tools.deliverables}
    for name in names:
        if name == path or PurePosixPath(name).name in deliverables or (tools.workdir / name).exists():
            continue
        if tools.closest(name)[:1] == [path]:
            return name
    return None


def _positions(text: str, locators: list[str]) -> list[int]:
    out = []
    for loc in locators:
        at = text.find(f"[{loc}]")
        if at < 0:
            at = text.find(loc)
        if at >= 0:
            out.append(at)
    return out


def _compute_code(answers: list[Answer]) -> str | None:
    lines = ["import math", ""]
    shown = 0
    for a in answers:
        parsed = parse_computation(a.spec_computation, len(a.inputs))
        if parsed is None or parsed.op == "copy" or a.computation == "constant" or parsed.op not in _EXPR:
            continue
        values = [round(i.value, 10) for i in a.inputs]
        if parsed.first:
            values = values[: parsed.first]
        where = f"{a.criterion.target_deliverable} {a.criterion.target_location or ''}".strip()
        labels = "; ".join(f"{i.label} ({i.path} {i.locator})" for i in a.inputs[: len(values)])
        lines.append(f"# {labels}"[:300])
        lines.append(f"v = {values!r}")
        expr = _EXPR[parsed.op] + (f" / {parsed.divisor!r}" if parsed.divisor != 1.0 else "")
        lines.append(f"print({where!r}, '=', round({expr}, 6))")
        shown += 1
    return "\n".join(lines) + "\n" if shown else None


def _parts(kind: str, draft: Path) -> str:
    try:
        if kind == "xlsx":
            import openpyxl

            return ", ".join(openpyxl.load_workbook(draft, read_only=True).sheetnames)
        if kind == "docx":
            import docx

            heads = [p.text for p in docx.Document(str(draft)).paragraphs
                     if p.style is not None and p.style.name.startswith("Heading")]
            return ", ".join(heads[:8])
        if kind == "pptx":
            from pptx import Presentation

            titles = [s.shapes.title.text_frame.text for s in Presentation(str(draft)).slides
                      if s.shapes.title is not None]
            return ", ".join(titles[:8])
    except Exception:  # noqa: BLE001 - only the sentence's wording depends on it
        return "as requested"
    return ""


def record(view: JudgeView, agent: AgentView, workspace_dir: Path | None, run_dir: Path,
           drafts: dict[str, Path], answers: list[Answer], *, seed: int = 0, read_chars: int = 20_000,
           repeat_reads: bool = False, failing_reads: bool = False, slips: float = 0.0) -> Recording:
    """Run the demonstration through the agent's tools and return its messages and collected deliverables.

    ``drafts`` maps each deliverable name to the oracle's draft of it (names left out are not written);
    the deliverables returned are the files the recorded calls wrote, copied into ``run_dir``. ``slips`` is
    the chance that the demonstration first asks for one of its files under a wrong name and recovers (at
    most once, so its share of failed calls stays well under the admission limit; less often when none of
    the files it reads has a wrong name the tool's answer would correct). The slip is in ``notes``.
    """
    if workspace_dir is not None and workspace_dir.is_dir():
        work = prepare_workdir(workspace_dir, agent, run_dir)
    else:
        work = run_dir / "work"
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
    tools = ToolBox(work, max_read_chars=read_chars, deliverables=tuple(agent.deliverables))
    rng = random.Random(stable_hash(view.spec.spec_id, seed))
    rec = _Recorder(tools, rng)
    messages = [Message(role="system", content=SYSTEM_PROMPT),
                Message(role="user", content=task_prompt(agent))]
    present = {p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file()}

    rec.call(rec.say("list"), "list_files", {})
    needed, locators, confusers = _anchor_paths(view, present)
    if len(needed) > 1 and rng.random() < 0.5:
        needed = sorted(needed, key=lambda p: rng.random())
    confuser = rng.choice(confusers) if confusers else None
    confuser_first = confuser is not None and rng.random() < 0.4
    slip: tuple[str, str] | None = None  # (the file, the wrong name asked for first)
    if needed and slips > 0 and rng.random() < slips:
        for path in rng.sample(needed, len(needed)):  # the first file that has a plausible wrong name
            wrong = misremembered(path, tools, rng)
            if wrong is not None:
                slip = (path, wrong)
                break

    def read(path: str) -> None:
        if slip is not None and path == slip[0]:
            rec.call(rec.say("read", path=slip[1]), "read_file", {"path": slip[1]})
            rec.pending.append(rec.say("slip", wrong=slip[1], path=path))
        rec.call(rec.say("read", path=path), "read_file", {"path": path})
        try:
            text = read_as_text(work / path)
        except Exception:  # noqa: BLE001 - the tool already reported the failure in the trajectory
            return
        end = min(read_chars, len(text))
        pages = 1
        for at in sorted(_positions(text, locators.get(path, []))):
            while at >= end and end < len(text):
                if pages < MAX_SEQUENTIAL_PAGES or at < end + read_chars:
                    offset = end
                    rec.call(rec.say("more", path=path, offset=str(offset)), "read_file",
                             {"path": path, "offset": offset})
                else:
                    offset = (at // read_chars) * read_chars
                    rec.call(rec.say("jump", path=path, offset=str(offset)), "read_file",
                             {"path": path, "offset": offset})
                end = min(offset + read_chars, len(text))
                pages += 1

    def set_aside(path: str) -> None:
        rec.call(rec.say("confuser", path=path), "read_file", {"path": path})
        newer = next((f.superseded_by[0] for f in view.files if f.path == path and f.superseded_by), None)
        rec.pending.append(rec.say("aside", path=path, newer=newer) if newer
                           else rec.say("aside_plain", path=path))

    if confuser_first and confuser:
        set_aside(confuser)
    for path in needed:
        read(path)
    if confuser and not confuser_first:
        set_aside(confuser)
    if repeat_reads and needed:
        for _ in range(6):
            rec.call("Let me read it again.", "read_file", {"path": needed[0]})
    if failing_reads:
        for i in range(6):
            rec.call("Trying another file.", "read_file", {"path": f"missing_{i}.xlsx"})
    code = _compute_code(answers)
    if code:
        rec.call(rec.say("compute"), "run_python", {"code": code})
    for name, draft in drafts.items():
        kind = normalise_format(Path(name).suffix.lstrip(".") or "txt")
        if kind in BINARY_FORMATS:
            rec.call(rec.say(kind, name=name, parts=_parts(kind, draft) or "as requested"), "run_python",
                     {"code": build_code(draft, name, kind)})
        else:
            content = draft.read_bytes().decode("utf-8")
            rec.call(rec.say("text", name=name), "write_file", {"path": name, "content": content})
    out = run_dir / "deliverables"
    written = collect_deliverables(work, list(drafts), out)
    final: list[DeliverableFile] = []
    for d in written:
        stored = Path(d.path)
        if normalise_format(stored.suffix.lstrip(".")) in BINARY_FORMATS:
            try:
                normalize_package(stored)  # same content, same bytes: re-runs store the same hashes
            except Exception:  # noqa: BLE001 - a package the normaliser cannot read stays as written
                pass
        data = stored.read_bytes()
        final.append(d.model_copy(update={"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}))
    figures = "; ".join(
        f"{a.criterion.target_deliverable} {a.criterion.target_location or ''}".strip()
        + f" = {fmt_number(a.value)}" for a in answers)
    closing = " ".join(rec.pending + [f"Done. Wrote {', '.join(d.name for d in final) or 'nothing'}."
                                      + (f" Key figures: {figures}." if figures else "")])
    rec.messages.append(Message(role="assistant", content=re.sub(r"\s+", " ", closing).strip()))
    notes = [f"slip: asked for {slip[1]!r}, then read {slip[0]!r}"] if slip else []
    return Recording(messages + rec.messages, final, tools.calls, tools.failures, notes)


TOOLS = TOOL_SCHEMAS
