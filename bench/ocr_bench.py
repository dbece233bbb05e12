"""OCR of workspace images: word and figure accuracy, and speed against the bare tesseract command.

    python -m bench ocr_bench [-- --repeat 2]

Renders office-like text (a memo paragraph and a small table of figures, dates and codes) with DejaVu Sans
at three sizes, saves each as PNG and as JPEG (quality 75), and reads it back through the project's parser
(``graphforge.parsers.parse_file``: format detection, Pillow header, tesseract, spans). Accuracy is
measured against the rendered words: word precision / recall / F1 (bag of words, case kept), and the share
of figures ("1,140.50", "2024-06-30") read exactly. Speed is the parser's seconds per image next to the
named peer, the ``tesseract IMAGE stdout`` command alone, on the same images in the same run (a ratio near
1 means the parser adds nothing but its bookkeeping).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from graphforge.parsers import parse_file

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
MEMO = [
    "Quarterly variance memo for the Finance Committee.",
    "Revenue for 2024-Q2 was 1,140.50 thousand, up 4.2% on the prior quarter.",
    "The board approved the revised budget on 2024-06-30 (motion 17-B).",
    "Contact the controller before filing Form 941 for the period.",
]
TABLE = [
    "Segment       Q1 2024     Q2 2024     Change",
    "Sensors       4,210       4,388       +178",
    "Marine        2,875       2,640       -235",
    "Services      1,020       1,140.50    +120.50",
]
FIGURE_RE = re.compile(r"[+-]?\d[\d,.\-%]*\d%?|\d")


def _render(lines: list[str], size: int, path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    width = int(max(font.getlength(line) for line in lines)) + 2 * size
    height = (len(lines) + 1) * int(size * 1.6)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((size, size // 2 + i * int(size * 1.6)), line, fill="black", font=font)
    if path.suffix == ".jpg":
        image.save(path, quality=75)
    else:
        image.save(path)


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\S+", text))


def _scores(expected: str, got: str) -> tuple[float, float, float, float]:
    want, have = _words(expected), _words(got)
    hit = sum((want & have).values())
    precision = hit / max(1, sum(have.values()))
    recall = hit / max(1, sum(want.values()))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    figures = FIGURE_RE.findall(expected)
    found = sum(1 for f in figures if f in got)
    return precision, recall, f1, found / max(1, len(figures))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ocr_bench")
    parser.add_argument("--repeat", type=int, default=1, help="timed passes over the images (best kept)")
    args = parser.parse_args(argv)
    tesseract = shutil.which("tesseract")
    if tesseract is None:
        print("error: tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
        return 1
    version = subprocess.run([tesseract, "--version"], capture_output=True, text=True, check=False)
    print(f"tesseract {version.stdout.split()[1] if version.stdout else '?'}; DejaVu Sans; "
          f"parser = graphforge.parsers.parse_file, peer = `tesseract IMAGE stdout`")
    rows = []
    with tempfile.TemporaryDirectory(prefix="gf-ocr-") as tmp:
        images: list[tuple[Path, str, str, int]] = []
        for kind, lines in (("memo", MEMO), ("table", TABLE)):
            for size in (14, 22, 32):
                for suffix in (".png", ".jpg"):
                    path = Path(tmp) / f"{kind}-{size}{suffix}"
                    _render(lines, size, path)
                    images.append((path, kind, "\n".join(lines), size))
        for path, kind, expected, size in images:
            ours = peer = float("inf")
            text = ""
            for _ in range(max(1, args.repeat)):
                started = time.perf_counter()
                parsed = parse_file(path)
                ours = min(ours, time.perf_counter() - started)
                text = "\n".join(s.text for s in parsed.spans)
                started = time.perf_counter()
                subprocess.run([tesseract, str(path), "stdout"], capture_output=True, check=False,
                               env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"})
                peer = min(peer, time.perf_counter() - started)
            p, r, f1, figs = _scores(expected, text)
            rows.append((kind, size, path.suffix[1:], p, r, f1, figs, ours, peer))
    print(f"\n{'text':6} {'px':>3} {'fmt':4} {'prec':>5} {'recall':>6} {'F1':>5} {'figures':>7} "
          f"{'parser s':>8} {'tesseract s':>11} {'ratio':>5}")
    for kind, size, fmt, p, r, f1, figs, ours, peer in rows:
        print(f"{kind:6} {size:3d} {fmt:4} {p:5.2f} {r:6.2f} {f1:5.2f} {figs:7.0%} {ours:8.2f} {peer:11.2f} "
              f"{ours / peer:5.2f}")
    for size in (14, 22, 32):
        mine = [row for row in rows if row[1] == size]
        f1 = sum(r[5] for r in mine) / len(mine)
        figures = sum(r[6] for r in mine) / len(mine)
        ratio = sum(r[7] for r in mine) / sum(r[8] for r in mine)
        print(f"size {size:2d} px: mean word F1 {f1:.3f}, figures read exactly {figures:.0%}, "
              f"parser/tesseract time {ratio:.2f}")
    return 0
