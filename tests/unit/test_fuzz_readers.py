"""Generated hostile content for every reader that takes files from outside: trajectory logs (sniffing and
each format's reader), the file parsers (format detection and each parser), O*NET releases and the label
tables. Each reader either reads the input or refuses it with a reason on one line naming the file; no
input gets a traceback (any other exception fails the test).

The file-system side (links, FIFOs, unreadable entries, long paths) is fuzzed for the workspace scan in
test_hostile_workspace.py; here the bytes inside ordinary files are hostile.
"""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pptx import Presentation

from graphforge.errors import SourceFormatError
from graphforge.parsers import parse_file
from loaders.labels import read_digital_labels, read_sector_mapping
from loaders.onet import read_release
from loaders.trajectories import AUTO, format_names, read_trajectories

ONET_MINI = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"
FUZZ = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))

# Keys the trajectory formats look for, so generated documents reach deep into each reader.
LOG_KEYS = ["messages", "role", "content", "tool_calls", "tool_call_id", "function", "name", "arguments",
            "type", "payload", "timestamp", "session_meta", "response_item", "event_msg", "id", "source",
            "action", "observation", "args", "extras", "trajectory", "history", "thought", "response",
            "traj", "info", "task_id", "reward", "message", "uuid", "parentUuid", "sessionId", "text",
            "input", "output", "call_id", "model", "spec_id", "deliverables", "path"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
                    st.sampled_from(["user", "assistant", "tool", "system", "function_call", "message",
                                     "session_meta", "response_item", "../../etc/passwd", "/etc/hostname"]))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.one_of(st.sampled_from(LOG_KEYS), st.text(max_size=8)), inner,
                                            max_size=6)),
    max_leaves=30,
)


def _one_line(text: str | None) -> bool:
    return bool(text) and "\n" not in str(text) and "Traceback" not in str(text)


def _refused_cleanly(exc: SourceFormatError, path: Path) -> None:
    assert "\n" not in str(exc) and exc.problem, str(exc)
    assert path.name in str(exc) or str(path) in exc.path or Path(exc.path).name in str(exc), str(exc)


@FUZZ
@given(files=st.lists(st.one_of(
    st.tuples(st.just("json"), documents.map(lambda d: json.dumps(d).encode())),
    st.tuples(st.just("jsonl"), st.lists(documents, max_size=6).map(
        lambda ds: "\n".join(json.dumps(d) for d in ds).encode())),
    st.tuples(st.sampled_from(["json", "jsonl"]), st.binary(max_size=300)),
), min_size=1, max_size=4), fmt=st.sampled_from([AUTO, *format_names()]))
def test_generated_logs_are_read_or_skipped_with_a_reason(files: list[tuple[str, bytes]],
                                                          fmt: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="gf-fuzz-logs-"))
    try:
        for i, (suffix, body) in enumerate(files):
            (root / f"log{i}.{suffix}").write_bytes(body)
        result = read_trajectories(root, fmt)
        # Every file is reported once, or counted as not read (a suffix the forced format does not use).
        assert len(result.files) + sum(result.ignored.values()) == len(files)
        for outcome in result.files:
            assert outcome.imported > 0 or _one_line(outcome.skipped), outcome
            assert all(_one_line(s) for s in outcome.summary), outcome
    finally:
        shutil.rmtree(root)


def _valid_office_files() -> dict[str, bytes]:
    """Small valid files of the zip-based formats, to mutate."""
    out: dict[str, bytes] = {}
    document = docx.Document()
    document.add_heading("Findings", 1)
    document.add_paragraph("Revenue for 2024-Q2 was 1,140.")
    buf = io.BytesIO()
    document.save(buf)
    out["docx"] = buf.getvalue()
    wb = openpyxl.Workbook()
    ws = wb.worksheets[0]
    ws.append(["Item", "Value"])
    ws.append(["Revenue", 1140])
    ws["C2"] = "=B2*2"
    buf = io.BytesIO()
    wb.save(buf)
    out["xlsx"] = buf.getvalue()
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Key figures"
    slide.placeholders[1].text_frame.text = "Revenue 1,140"
    buf = io.BytesIO()
    deck.save(buf)
    out["pptx"] = buf.getvalue()
    return out


VALID = _valid_office_files()


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    suffix = draw(st.sampled_from(sorted(VALID)))
    body = bytearray(VALID[suffix])
    for _ in range(draw(st.integers(1, 6))):
        action = draw(st.sampled_from(["flip", "cut", "insert"]))
        at = draw(st.integers(0, max(0, len(body) - 1)))
        if action == "flip" and body:
            body[at] ^= draw(st.integers(1, 255))
        elif action == "cut" and body:
            del body[at:]
        else:
            body[at:at] = draw(st.binary(min_size=1, max_size=64))
    return suffix, bytes(body)


@FUZZ
@given(item=st.one_of(
    mutated(),
    st.tuples(st.sampled_from(["pdf", "docx", "xlsx", "pptx", "csv", "md", "html", "json", "xml", "png",
                               "txt", "tsv", "htm", "jpg"]), st.binary(max_size=400)),
    st.tuples(st.sampled_from(["csv", "md", "html", "json", "xml", "txt"]),
              st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))),
))
def test_mutated_and_random_files_parse_or_are_marked_invalid_with_a_reason(item: tuple[str, bytes]) -> None:
    suffix, body = item
    root = Path(tempfile.mkdtemp(prefix="gf-fuzz-parse-"))
    try:
        path = root / f"input.{suffix}"
        path.write_bytes(body)
        parsed = parse_file(path)
        assert parsed.valid or _one_line(parsed.invalid_reason), parsed.invalid_reason
        assert all(span.text is not None for span in parsed.spans)
    finally:
        shutil.rmtree(root)


ONET_TABLES = sorted(p.name for p in ONET_MINI.glob("*.txt") if p.name != "Read Me.txt")


@st.composite
def damaged_table(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(ONET_TABLES))
    lines = (ONET_MINI / name).read_bytes().split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines)))
        row = st.lists(st.text(max_size=12), max_size=9).map(lambda c: "\t".join(c).encode())
        odd = st.sampled_from([b'"', b"\t\t\t", b"\x00", b'"unterminated\tquote', b"\xff\xfe"])
        junk = draw(st.one_of(st.binary(max_size=80), row, odd))
        if draw(st.booleans()) and at < len(lines):
            lines[at] = junk
        else:
            lines.insert(at, junk)
    return name, b"\n".join(lines)


@FUZZ
@given(damage=damaged_table())
def test_a_damaged_onet_release_is_read_or_refused_on_one_line_naming_the_file(
        damage: tuple[str, bytes]) -> None:
    name, body = damage
    root = Path(tempfile.mkdtemp(prefix="gf-fuzz-onet-"))
    try:
        release = root / "db_29_1_text"
        shutil.copytree(ONET_MINI, release)
        (release / name).write_bytes(body)
        try:
            read = read_release(release)
        except SourceFormatError as exc:
            _refused_cleanly(exc, release / name)
        else:
            assert read.occupations  # a release that reads still holds its occupations
    finally:
        shutil.rmtree(root)


def _table(lines: list[str]) -> bytes:
    return "\n".join(lines).encode()


CODES = ["11-1011.00", "13-2011", "13", "", "x" * 30, "15-1252.00.0"]
VALUES = ["yes", "no", "DIGITAL", "maybe", "", "1", "Finance"]


@FUZZ
@given(body=st.one_of(
    st.binary(max_size=300),
    st.lists(st.lists(st.text(max_size=14), max_size=5), max_size=8).map(
        lambda rows: "\n".join(",".join(cells) for cells in rows).encode()),
    st.lists(st.tuples(st.sampled_from(CODES), st.sampled_from(VALUES)), max_size=6).map(
        lambda rows: _table(["task_id,digital,soc,sector", *(f"{a},{b},{a},{b}" for a, b in rows)])),
), reader=st.sampled_from(["labels", "sectors"]))
def test_label_and_sector_tables_are_read_or_refused_on_one_line(body: bytes, reader: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="gf-fuzz-labels-"))
    try:
        path = root / "table.csv"
        path.write_bytes(body)
        read: Any = read_digital_labels if reader == "labels" else read_sector_mapping
        try:
            read(path)
        except SourceFormatError as exc:
            _refused_cleanly(exc, path)
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("suffix", sorted(VALID))
def test_the_unmutated_office_files_parse(suffix: str, tmp_path: Path) -> None:
    # The fuzz starts from files that parse: a mutation is what breaks them, not the template.
    path = tmp_path / f"valid.{suffix}"
    path.write_bytes(VALID[suffix])
    parsed = parse_file(path)
    assert parsed.valid and any("1,140" in s.text or "1140" in s.text for s in parsed.spans), parsed
