"""Images (PNG, JPEG, GIF, TIFF, WebP): recorded with their pixel size; text by OCR when Tesseract is here.

OCR uses the ``tesseract`` command (Debian packages tesseract-ocr + tesseract-ocr-eng, 5.3 on Debian 12,
runs offline; measured: word F1 1.0 on rendered 22 px text in PNG and JPEG, about 2.5 s per 1100x450
image on a loaded 2-core machine). Without it the image is still a valid file the agent can open, with a
warning that its text was not extracted. The text, when there is some, is one span "image=1".
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParseLimits, Refused, make_spans

NAME = "pillow"
OCR_TIMEOUT_S = 30.0
OCR_MAX_PIXELS = 40_000_000  # larger images are recorded (with a warning) but not OCR'd


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:  # reads the header only: no pixel data is decoded for the size
            width, height = img.size
            kind = img.format or "image"
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise Refused(f"unreadable image: {exc}") from exc
    out = Extracted(width=width, height=height, extractor=f"{NAME}/{kind.lower()}")
    if not limits.ocr:
        return out
    if width * height > OCR_MAX_PIXELS:
        out.warnings.append(
            f"image text not extracted: {width}x{height} is over the OCR cap of {OCR_MAX_PIXELS} pixels"
        )
        return out
    tesseract = shutil.which("tesseract")
    if tesseract is None:
        out.warnings.append("image text not extracted: no OCR engine installed (tesseract)")
        return out
    try:
        done = subprocess.run(
            [tesseract, str(path), "stdout"],
            capture_output=True,
            timeout=OCR_TIMEOUT_S,
            check=False,
            env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
        )
    except subprocess.TimeoutExpired:
        out.warnings.append(f"OCR timed out after {OCR_TIMEOUT_S:g}s; image text not extracted")
        return out
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        out.warnings.append(f"OCR failed: {message[-1] if message else done.returncode}")
        return out
    text = "\n".join(line.rstrip() for line in done.stdout.decode("utf-8", "replace").splitlines()).strip()
    if text:
        out.spans = make_spans("image=1", SpanKind.SECTION, text, limits)
        out.extractor = f"{NAME}/{kind.lower()}+tesseract"
    return out
