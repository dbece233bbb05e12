"""PDF text extractors compared: word accuracy against known text, and pages/s.

Peers, on the same files in the same run: pypdf plain mode, pypdf layout mode, pdfminer.six, pypdfium2.
Known text: PDFs generated with reportlab (graphforge.demo.sample.pdf_layouts) in six layouts:
justified prose, two columns, a ruled table, small dense type, text drawn rotated 90°, a page with /Rotate 90.
Word accuracy = F1 of the page's words (case-folded, edge punctuation stripped) against the words drawn;
glued words ("willserve") and lost pages both lower it. Order = share of the drawn words found in
reading order (difflib). Table rows = share of the ruled table's rows read back as one line of
tab-separated cells (after graphforge.parsers.pdf.table_lines), so a row is kept, not merely its
words. Speed: pages/s over the generated PDFs and, with --corpus DIR, over the real PDFs under DIR
(read-only; nothing is copied). The rule printed last is the one graphforge.parsers.pdf.DEFAULT follows:
the best mean accuracy among extractors within 2x of the fastest.
"""

from __future__ import annotations

import argparse
import difflib
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

from graphforge.demo.sample.pdf_layouts import LAYOUTS
from graphforge.parsers import pdf

_EDGE = re.compile(r"^[^\w]+|[^\w]+$")


def words(text: str) -> list[str]:
    out = []
    for token in text.split():
        token = _EDGE.sub("", token).lower()
        if token:
            out.append(token)
    return out


def f1(known: list[str], got: list[str]) -> float:
    if not known and not got:
        return 1.0
    common = sum((Counter(known) & Counter(got)).values())
    if not common:
        return 0.0
    p, r = common / len(got), common / len(known)
    return 2 * p * r / (p + r)


def in_order(known: list[str], got: list[str]) -> float:
    matcher = difflib.SequenceMatcher(None, known, got, autojunk=False)
    return sum(b.size for b in matcher.get_matching_blocks()) / max(1, len(known))


def extract(name: str, path: Path) -> list[str]:
    return [t if isinstance(t, str) else "" for t in pdf.EXTRACTORS[name](path, None)]


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench pdf_bench", description=__doc__)
    parser.add_argument("--corpus", type=Path, default=None, help="folder of real PDFs for pages/s")
    parser.add_argument("--repeats", type=int, default=2, help="timed passes over the generated PDFs")
    return parser


def choose(accuracy: dict[str, float], speed: dict[str, float]) -> str:
    fastest = max(speed.values())
    eligible = [n for n in accuracy if speed[n] * 2 >= fastest]
    return max(eligible, key=lambda n: (accuracy[n], speed[n]))


def main(argv: list[str]) -> None:
    args = make_parser().parse_args(argv)
    names = list(pdf.EXTRACTORS)
    with tempfile.TemporaryDirectory() as tmp:
        known: dict[str, list[list[str]]] = {}
        paths: dict[str, Path] = {}
        table_rows: list[str] = []
        for layout, make in LAYOUTS.items():
            paths[layout] = Path(tmp) / f"{layout}.pdf"
            drawn = make(paths[layout])
            known[layout] = [[w for w in words(" ".join(page))] for page in drawn]
            if layout == "table":  # four cells a row (pdf_layouts.table)
                table_rows = ["\t".join(page[i:i + 4]) for page in drawn for i in range(0, len(page), 4)]
        acc: dict[str, dict[str, float]] = {n: {} for n in names}
        order: dict[str, dict[str, float]] = {n: {} for n in names}
        gen_speed: dict[str, float] = {}
        rows_kept: dict[str, float] = {}
        for name in names:
            lines = {ln for t in extract(name, paths["table"]) for ln in pdf.table_lines(t).splitlines()}
            rows_kept[name] = sum(row in lines for row in table_rows) / len(table_rows)
            pages = 0
            started = time.perf_counter()
            for _ in range(args.repeats):
                for layout, path in paths.items():
                    texts = extract(name, path)
                    pages += len(texts)
                    got = [words(t) for t in texts]
                    acc[name][layout] = sum(f1(k, g) for k, g in zip(known[layout], got, strict=False)) / len(
                        known[layout]
                    )
                    order[name][layout] = sum(
                        in_order(k, g) for k, g in zip(known[layout], got, strict=False)
                    ) / len(known[layout])
            gen_speed[name] = pages / (time.perf_counter() - started)
    print("PDF extractors, word accuracy (F1 vs known text) per layout; order = known words in reading "
          "order; rows = table rows kept as tab-separated cells")
    header = f"{'extractor':<14}" + "".join(f"{layout:>17}" for layout in LAYOUTS)
    header += f"{'mean':>8}{'order':>8}{'rows':>7}{'pages/s':>9}"
    print(header)
    mean = {n: sum(acc[n].values()) / len(acc[n]) for n in names}
    for name in names:
        row = f"{name:<14}" + "".join(f"{acc[name][layout]:>17.3f}" for layout in LAYOUTS)
        in_reading_order = sum(order[name].values()) / len(order[name])
        row += f"{mean[name]:>8.3f}{in_reading_order:>8.3f}{rows_kept[name]:>7.2f}{gen_speed[name]:>9.1f}"
        print(row)
    speed = gen_speed
    if args.corpus is not None:
        real = sorted(p for p in args.corpus.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
        print(f"\nreal PDFs under {args.corpus}: {len(real)} files")
        speed = {}
        for name in names:
            pages, started = 0, time.perf_counter()
            empty = 0
            for path in real:
                texts = extract(name, path)
                pages += len(texts)
                empty += sum(1 for t in texts if not t.strip())
            speed[name] = pages / (time.perf_counter() - started)
            print(f"  {name:<14} {pages} pages  {speed[name]:8.1f} pages/s  {empty} pages with no text")
    chosen = choose(mean, speed)
    fastest = max(speed, key=lambda n: speed[n])
    print(
        f"\nrule: best mean accuracy within 2x of the fastest ({fastest}, {speed[fastest]:.1f} pages/s"
        f"{' on the real PDFs' if args.corpus else ''}) -> {chosen}; graphforge default: {pdf.DEFAULT}"
        + ("" if chosen == pdf.DEFAULT else "  (MISMATCH: update pdf.DEFAULT)")
    )
