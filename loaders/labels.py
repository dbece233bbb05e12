"""Read DIGITAL task labels (AI4Work style CSV/TSV) and sector mapping files into graphforge models."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import stat
from pathlib import Path

from graphforge.errors import SourceFormatError
from graphforge.models.onet import DigitalLabel, DigitalLabels, SectorAssignment, SectorMapping

# Header spellings seen in annotation files, compared after lower-casing and dropping non-letters.
TASK_ID_HEADERS = ("taskid", "task", "onettaskid")
LABEL_HEADERS = ("digital", "isdigital", "label", "digitallabel", "annotation", "category")
TRUE_VALUES = frozenset({"yes", "y", "true", "t", "1", "digital", "isdigital"})
FALSE_VALUES = frozenset({"no", "n", "false", "f", "0", "notdigital", "nondigital", "physical"})

SOC_HEADERS = ("soc", "soccode", "onetsoccode", "prefix", "socprefix", "code")
SECTOR_HEADERS = ("sector", "sectorname")
SUB_SECTOR_HEADERS = ("subsector", "subsectorname")
_SOC_PREFIX = re.compile(r"^\d{2}(-\d{0,4}(\.\d{0,2})?)?$")
_SOC_GROUP = re.compile(r"^(\d{2})-(\d{4})$")


def soc_prefix(code: str) -> str:
    """The O*NET-SOC prefix a SOC code stands for: group codes as the SOC structure writes them end
    in zeros (major ``11-0000``, minor ``11-1000`` or ``15-1200``, broad ``11-1010``) and cover every
    occupation under them, so ``11-1000`` is the prefix ``11-1``. Detailed codes (``11-1011``, never
    ending in 0), O*NET codes (``11-1011.03``) and plain prefixes (``13``, ``13-2``) stay as they are."""
    match = _SOC_GROUP.match(code)
    if match is None:
        return code
    digits = match.group(2).rstrip("0")
    return f"{match.group(1)}-{digits}" if digits else match.group(1)


def _key(header: str) -> str:
    return re.sub(r"[^a-z]", "", header.lower())


MAX_BYTES = 256 << 20  # a labels or mapping file is a table of ids, never this big
MAX_FIELD_CHARS = 10_000


def _read_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SourceFormatError(path, "not a regular file (a folder, FIFO or device); not read")
        if info.st_size > MAX_BYTES:
            raise SourceFormatError(path, f"{info.st_size} bytes, over the {MAX_BYTES} byte limit")
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.decode("cp1252")  # what Excel on Windows writes for "CSV"
        except UnicodeDecodeError as exc:
            raise SourceFormatError(path, "neither UTF-8 nor Windows-1252 text") from exc
    first = text.split("\n", 1)[0]
    # Tab (TSV), semicolon (Excel's CSV where the decimal mark is a comma) or comma: the header's most
    # frequent one; a header with none of them is a one-column file, read as comma-separated.
    counts = {d: first.count(d) for d in ("\t", ";", ",")}
    delimiter = max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        rows = [(reader.line_num, r) for r in reader if any(c.strip() for c in r)]
    except csv.Error as exc:  # e.g. a field over the csv module's field limit (a JSON blob, not a table)
        raise SourceFormatError(path, f"line {reader.line_num}: not a CSV/TSV table ({exc})") from exc
    for number, cells in rows:  # the same refusal whatever field limit another module has set
        longest = max((len(c) for c in cells), default=0)
        if longest > MAX_FIELD_CHARS:
            raise SourceFormatError(path, f"line {number}: not a CSV/TSV table (a field of {longest} "
                                          f"characters; ids and labels are short)")
    if not rows:
        raise SourceFormatError(path, "empty file: no header row")
    return [c.strip() for c in rows[0][1]], rows[1:]


def _column(
    path: Path, header: list[str], accepted: tuple[str, ...], what: str, required: bool = True
) -> int:
    keys = [_key(h) for h in header]
    for name in accepted:
        if name in keys:
            return keys.index(name)
    if required:
        raise SourceFormatError(path, f"no {what} column (looked for headers like {accepted[0]!r}; "
                                      f"found: {', '.join(repr(h) for h in header)})")
    return -1


def read_digital_labels(path: Path) -> DigitalLabels:
    """Task id -> digital yes/no. Values: yes/no, true/false, 1/0, DIGITAL/NOT_DIGITAL (any case)."""
    path = Path(path)
    header, rows = _read_rows(path)
    id_col = _column(path, header, TASK_ID_HEADERS, "task id")
    label_col = _column(path, header, LABEL_HEADERS, "DIGITAL label")
    labels: dict[str, bool] = {}
    for number, cells in rows:
        task_id = (cells[id_col].strip() if id_col < len(cells) else "").removesuffix(".0")
        raw = cells[label_col].strip() if label_col < len(cells) else ""
        if not task_id:
            raise SourceFormatError(path, f"line {number}: empty task id")
        value = re.sub(r"[^a-z0-9]", "", raw.lower())
        if value in TRUE_VALUES:
            digital = True
        elif value in FALSE_VALUES:
            digital = False
        else:
            raise SourceFormatError(path, f"line {number}: column {header[label_col]!r}: {raw!r} is not a "
                                          "DIGITAL label (yes/no, true/false, 1/0, digital/not_digital)")
        if labels.get(task_id, digital) != digital:
            raise SourceFormatError(path, f"line {number}: task {task_id} is labelled both ways")
        labels[task_id] = digital
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return DigitalLabels(source=str(path.resolve()), content_hash=digest,
                         labels=tuple(DigitalLabel(task_id=t, digital=d) for t, d in labels.items()))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def read_sector_mapping(path: Path) -> SectorMapping:
    """SOC code or prefix -> sector (and optional sub-sector); the longest matching prefix wins.

    Columns (CSV or TSV, by header): ``soc`` (``13``, ``13-2``, a SOC group code such as ``13-0000``,
    ``13-2000`` or ``13-2010``, a detailed code ``13-2011`` or an O*NET code ``13-2011.01``),
    ``sector``, optional ``sub_sector``, optional ``sector_code`` / ``sub_sector_code``.
    """
    path = Path(path)
    header, rows = _read_rows(path)
    soc_col = _column(path, header, SOC_HEADERS, "SOC code or prefix")
    sector_col = _column(path, header, SECTOR_HEADERS, "sector")
    sub_col = _column(path, header, SUB_SECTOR_HEADERS, "sub-sector", required=False)
    code_col = _column(path, header, ("sectorcode",), "sector code", required=False)
    sub_code_col = _column(path, header, ("subsectorcode",), "sub-sector code", required=False)
    rules: dict[str, SectorAssignment] = {}

    def cell(cells: list[str], i: int) -> str:
        return cells[i].strip() if 0 <= i < len(cells) else ""

    written: dict[str, str] = {}
    for number, cells in rows:
        code, sector = cell(cells, soc_col), cell(cells, sector_col)
        if not _SOC_PREFIX.match(code):
            raise SourceFormatError(path, f"line {number}: {code[:40]!r} is not a SOC code or prefix "
                                          "(like 13, 13-2, 13-2000, 13-2011 or 13-2011.01)")
        prefix = soc_prefix(code)
        if not sector:
            raise SourceFormatError(path, f"line {number}: empty sector")
        if prefix in rules:
            raise SourceFormatError(path, f"line {number}: {code!r} is mapped twice "
                                          f"(as {written[prefix]!r} before)")
        written[prefix] = code
        sub = cell(cells, sub_col)
        sector_code = cell(cells, code_col) or _slug(sector)
        sub_code = (cell(cells, sub_code_col) or f"{sector_code}/{_slug(sub)}") if sub else ""
        rules[prefix] = SectorAssignment(prefix=prefix, sector_code=sector_code, sector_name=sector,
                                         sub_sector_code=sub_code, sub_sector_name=sub)
    if not rules:
        raise SourceFormatError(path, "no mapping rows")
    return SectorMapping(
        scheme=f"user:{path.name}", source_path=str(path.resolve()), rules=tuple(rules.values())
    )
