"""PDF pages with pypdf: one span per page with text ("page=3")."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParsedSpan, ParseLimits, Refused, clip

NAME = "pypdf"
_EOF_WINDOW = 64 * 1024


def parse(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    # pypdf logs every repaired xref at WARNING; the outcome is what matters here, not the chatter.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # The trailer may be followed by padding or junk a server or downloader appended (NULs, an HTML
    # footer); pypdf reads such files, so only a file without %%EOF near its end counts as truncated.
    with path.open("rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - _EOF_WINDOW))
        tail = fh.read()
    if b"%%EOF" not in tail:
        raise Refused("truncated PDF: no %%EOF trailer at the end of the file")
    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            ok = reader.decrypt("")
        except (NotImplementedError, FileNotDecryptedError) as exc:
            raise Refused(f"encrypted PDF that cannot be opened: {exc}") from exc
        if not ok:
            raise Refused("encrypted PDF (a password is required to read it)")
    count = len(reader.pages)
    if count > limits.max_pages:
        raise Refused(f"PDF has {count} pages, over the cap of {limits.max_pages}")
    spans: list[ParsedSpan] = []
    skipped = 0
    for number in range(1, count + 1):
        try:
            text = page_text(reader.pages[number - 1])
        except (MemoryError, RecursionError):
            raise  # the worker's caps: reported as such by parse_file
        except Exception:  # one page with a broken content stream or font must not cost the other pages
            skipped += 1
            continue
        if text:
            spans.append(ParsedSpan(locator=f"page={number}", kind=SpanKind.PAGE, text=clip(text)))
    if skipped and not spans:
        raise Refused(f"no page of the PDF could be read ({skipped} of {count} failed)")
    return spans, count


def page_text(page: Any) -> str:
    """Layout-mode text (a table row stays one line: "Services  1,340  1,415"), plain mode as the fallback.

    Layout mode measured as fast as plain mode on the sample and keeps table rows together, which the
    evidence extractor needs; it pads with spaces, so margins and trailing blanks are trimmed here.
    """
    try:
        raw = page.extract_text(extraction_mode="layout") or ""
    except Exception:  # layout mode trips on some broken font tables where plain mode still reads text
        raw = page.extract_text() or ""
    lines = [line.rstrip() for line in raw.splitlines()]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    out: list[str] = []
    for line in lines:
        line = line[indent:]
        if line or (out and out[-1]):  # keep single blank lines between blocks, drop runs of them
            out.append(line)
    return "\n".join(out).strip()
