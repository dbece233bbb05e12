"""The grader-note detector measured: recall on generated notes, false positives on a real corpus.

``python -m bench grader_notes --corpus ../shared/corpus`` runs ``graphforge.judge.grader_notes`` on
- the notes of ``bench.grader_notes_data`` (templates x paraphrase rules, committed seed): recall on the
  tuning half and on the held-out half, whose addressees, frames, claims, directives, score forms and
  templates the tuning half never shows (held-out misses are printed as findings, never turned into rules);
- the generated hard negatives (third-person prose about reviewers, scores and criteria), per half;
- every span of every file of the corpus, parsed with GraphForge's own parsers (default limits): the
  false-positive count and rate, and the highest-scoring false positives.
It exits 1 when held-out or tuning recall is below 0.95 or the corpus false-positive rate is above 0.5 %.
The corpus is read in place and never copied; the repository does not depend on it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.grader_notes_data import HELD_OUT, SEED, TUNING, Sample, hard_negatives, positives

MIN_RECALL, MAX_FP_RATE = 0.95, 0.005


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench grader_notes", description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=None,
                   help="folder of real files (every span is a negative); without it only generated data")
    p.add_argument("--show", type=int, default=8, help="misses and false positives to print per group")
    return p


def main(argv: list[str]) -> None:
    sys.exit(run(make_parser().parse_args(argv)))


def _one_line(text: str, width: int = 150) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _recall(samples: list[Sample], show: int) -> float:
    from graphforge.judge.grader_notes import grader_address

    missed = [s for s in samples if grader_address(s.text) is None]
    recall = 1 - len(missed) / len(samples) if samples else 0.0
    side = samples[0].split if samples else "?"
    print(f"  {side:9s} recall {recall:.3f} ({len(samples) - len(missed)}/{len(samples)})")
    by_template = Counter(s.template for s in missed)
    if missed:
        print(f"    misses by template: {dict(by_template.most_common())}")
    for s in missed[:show]:
        print(f"    missed [{s.template}] {_one_line(s.text)!r}")
    return recall


def _negatives(samples: list[Sample], show: int) -> None:
    from graphforge.judge.grader_notes import find_grader_address

    fired = [(s, f) for s in samples if (f := find_grader_address(s.text)) is not None]
    side = samples[0].split if samples else "?"
    print(f"  {side:9s} hard negatives flagged {len(fired)}/{len(samples)} "
          f"({len(fired) / max(1, len(samples)):.1%})")
    for s, f in fired[:show]:
        print(f"    flagged [{s.template}] {_one_line(s.text)!r} ({f.score:g}: {', '.join(f.features)})")


def _corpus(corpus: Path, show: int) -> tuple[int, int]:
    from graphforge.judge.grader_notes import find_grader_address
    from graphforge.parsers import ParseLimits, parse_file

    limits = ParseLimits()
    spans = files = invalid = 0
    hits: list[tuple[float, str, str, str, tuple[str, ...]]] = []
    started = time.perf_counter()
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        parsed = parse_file(path, limits)
        files += 1
        invalid += not parsed.valid
        rel = str(path.relative_to(corpus))
        for span in parsed.spans:
            spans += 1
            found = find_grader_address(span.text)
            if found is not None:
                hits.append((found.score, rel, span.locator, found.clause, found.features))
    rate = len(hits) / spans if spans else 0.0
    print(f"  {files} files ({invalid} not parseable), {spans} spans, {time.perf_counter() - started:.1f}s")
    print(f"  false positives: {len(hits)} of {spans} spans = {rate:.3%} (target <= {MAX_FP_RATE:.1%})")
    for score, rel, locator, clause, features in sorted(hits, reverse=True)[:show]:
        print(f"    {score:g} {rel} {locator}: {_one_line(clause)!r} ({', '.join(features)})")
    return len(hits), spans


@dataclass(frozen=True)
class Figures:
    """What the bench measured (``bench.judge_robustness`` prints these too)."""

    held_out_recall: float
    tuning_recall: float
    corpus_false_positives: int | None = None  # None: no corpus given
    corpus_spans: int | None = None

    @property
    def corpus_rate(self) -> float | None:
        if self.corpus_spans is None or self.corpus_false_positives is None:
            return None
        return self.corpus_false_positives / self.corpus_spans if self.corpus_spans else 0.0

    def failures(self) -> list[str]:
        out = [f"{side} recall {recall:.3f} < {MIN_RECALL}"
               for side, recall in ((HELD_OUT, self.held_out_recall), (TUNING, self.tuning_recall))
               if recall < MIN_RECALL]
        if self.corpus_spans == 0:
            out.append("the corpus holds no spans")
        elif self.corpus_rate is not None and self.corpus_rate > MAX_FP_RATE:
            out.append(f"corpus false-positive rate {self.corpus_rate:.3%} > {MAX_FP_RATE:.1%}")
        return out

    def line(self) -> str:
        corpus = ("" if self.corpus_rate is None else
                  f", corpus FP {self.corpus_false_positives}/{self.corpus_spans} = {self.corpus_rate:.3%}")
        return f"held-out recall {self.held_out_recall:.3f}, tuning recall {self.tuning_recall:.3f}{corpus}"


def measure(corpus: Path | None, show: int = 8) -> Figures:
    """Run every measurement, printing the details, and return the figures."""
    pos = positives()
    print(f"generated notes (seed {SEED}): {len(pos)} positives, halves of {len(pos) // 2}")
    recalls = {side: _recall([s for s in pos if s.split == side], show) for side in (TUNING, HELD_OUT)}
    neg = hard_negatives()
    print(f"generated hard negatives: {len(neg)}")
    for side in (TUNING, HELD_OUT):
        _negatives([s for s in neg if s.split == side], show)
    fp = spans = None
    if corpus is not None:
        print(f"corpus {corpus}: every span is a negative")
        fp, spans = _corpus(corpus, show)
    return Figures(recalls[HELD_OUT], recalls[TUNING], fp, spans)


def run(args: argparse.Namespace) -> int:
    corpus = args.corpus.resolve() if args.corpus is not None else None
    if corpus is not None and not corpus.is_dir():
        print(f"error: {corpus}: not a folder", file=sys.stderr)
        return 1
    figures = measure(corpus, args.show)
    print(figures.line())
    for failure in figures.failures():
        print(f"FAIL: {failure}")
    return 1 if figures.failures() else 0
