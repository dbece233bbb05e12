"""Checks run on an Office zip package before any XML parser sees it: bombs, bad CRCs, entity tricks."""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path

from graphforge.parsers.base import ParseLimits, Refused

# OOXML parts never declare a DOCTYPE; one that does is trying entity expansion (billion laughs) or XXE.
_DOCTYPE_RE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.IGNORECASE)
_SCAN_BYTES = 64 * 1024


def check_package(path: Path, limits: ParseLimits) -> None:
    """Raise Refused when the zip package is empty, a bomb, damaged, or carries DTD entity declarations."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Refused(f"corrupt zip container: {exc}") from exc
    with zf:
        infos = zf.infolist()
        if not infos:
            raise Refused("empty zip archive (no members)")
        if len(infos) > limits.max_zip_members:
            raise Refused(f"zip has {len(infos)} members, over the cap of {limits.max_zip_members}")
        total = sum(i.file_size for i in infos)
        if total > limits.max_unzipped_bytes:
            raise Refused(f"zip expands to {total} bytes, over the cap of {limits.max_unzipped_bytes}")
        for info in infos:
            if info.flag_bits & 0x1:
                raise Refused(f"zip member {info.filename} is encrypted")
            ratio = info.file_size / max(1, info.compress_size)
            if info.file_size > 1024 * 1024 and ratio > limits.max_zip_ratio:
                raise Refused(f"zip member {info.filename} expands {ratio:.0f}x (zip bomb)")
        for info in infos:
            _check_member(zf, info)


def _check_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    # Reading every member to the end makes zipfile verify its CRC-32; the size caps above bound the cost.
    try:
        with zf.open(info) as fh:
            head = fh.read(_SCAN_BYTES)
            while fh.read(1 << 20):
                pass
    except zipfile.BadZipFile as exc:
        raise Refused(f"damaged zip member {info.filename}: {exc}") from exc
    except (OSError, EOFError, ValueError, NotImplementedError, zlib.error) as exc:
        raise Refused(f"unreadable zip member {info.filename}: {type(exc).__name__}: {exc}") from exc
    if info.filename.endswith((".xml", ".rels", ".vml")) and _DOCTYPE_RE.search(head):
        raise Refused(f"XML part {info.filename} declares a DOCTYPE/ENTITY (possible entity bomb); refused")
