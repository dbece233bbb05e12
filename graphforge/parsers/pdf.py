"""PDF pages with pypdf: one span per page with text ("page=3")."""

from __future__ import annotations

import logging
from pathlib import Path

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParseLimits, ParsedSpan, Refused, clip

NAME = "pypdf"


def parse(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    # pypdf logs every repaired xref at WARNING; the outcome is what matters here, not the chatter.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    with path.open("rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - 2048))
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
    for number, page in enumerate(reader.pages, start=1):
        text = (page.extract_text() or "").strip()
        if text:
            spans.append(ParsedSpan(locator=f"page={number}", kind=SpanKind.PAGE, text=clip(text)))
    return spans, count
