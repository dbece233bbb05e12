"""Chat-model calls and tokens for evidence extraction on the generated sample workspace: batched (one call
per section, up to a token budget) against the named peer, one call per span that holds a digit (what the
chat-model path did before).

Both runs use the same extractor code and the same server; only ``max_batch_spans`` differs. The default
server is a scripted reader that returns every figure of every excerpt under its id, so both runs find
the same facts and the call ratio is measured at equal facts. ``--local`` runs both against the managed
local model instead (`graphforge llm start`): real tokens, real (weak) answers, facts reported as found.

    python -m bench llm_batching_bench
    python -m bench llm_batching_bench -- --local
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.llm import LLMExtractor
from graphforge.llm import CallTotals, OpenAICompatibleChatModel, chat_model
from graphforge.parsers import parse_file, span_id
from graphforge.settings import GraphforgeSettings
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer

_EXCERPT = re.compile(r"\[(S\d+)\] \([^)]*\)\n(.*?)(?=\n\n\[S\d+\] \(|\Z)", re.DOTALL)
_FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def sample_spans(root: Path) -> list[WorkspaceSpan]:
    """The sample workspace's files parsed by the ingestion parsers, as the extractors see them."""
    spans: list[WorkspaceSpan] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("manifest")):
        parsed = parse_file(path)
        if not parsed.valid:
            continue
        rel = path.relative_to(root).as_posix()
        for ordinal, s in enumerate(parsed.spans):
            spans.append(WorkspaceSpan(
                span_id=span_id(parsed.sha256, s.locator), file_sha256=parsed.sha256, locator=s.locator,
                kind=str(s.kind.value if hasattr(s.kind, "value") else s.kind), ordinal=ordinal, text=s.text,
                formulas_json=s.formulas_json, path=rel, format=str(parsed.format.value)))
    return spans


def faithful_reader(request: RecordedRequest) -> Reply:
    """Every figure of every excerpt, under the excerpt's id (deterministic, so both runs agree)."""
    prompt = next(m["content"] for m in request.messages if m["role"] == "user")
    facts = [{"span": sid, "value": figure, "metric": "amount"}
             for sid, body in _EXCERPT.findall(prompt) for figure in _FIGURE.findall(body)]
    return json_answer({"facts": facts})


def _run(model: Any, spans: list[WorkspaceSpan], max_spans: int, budget: int
         ) -> tuple[CallTotals, int, float]:
    extractor = LLMExtractor(model, max_batch_spans=max_spans, max_batch_tokens=budget)
    started = time.perf_counter()
    extraction = extractor.extract(spans)
    return CallTotals.of(extractor.records), len(extraction.facts), time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="llm_batching_bench")
    parser.add_argument("--local", action="store_true", help="the managed local model (graphforge llm start)")
    parser.add_argument("--budget", type=int, default=1500, help="tokens per batch")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        sample = generate_sample_workspace(Path(tmp) / "ws")
        spans = sample_spans(Path(sample.root))
        digit_spans = sum(any(c.isdigit() for c in s.text) for s in spans)
        files = len({s.path for s in spans})
        print(f"sample workspace: {files} files, {len(spans)} spans, {digit_spans} with a digit")

        server: ScriptedLLMServer | None = None
        if args.local:
            settings = GraphforgeSettings(llm_local=True, llm_base_url=None)
            model = chat_model(settings, cache_dir=None)
            where = f"local model {model.model if model else '?'}"
        else:
            server = ScriptedLLMServer().start()
            server.responder = faithful_reader
            model = OpenAICompatibleChatModel(base_url=server.url, model="reader", cache_dir=None)
            where = "scripted faithful reader"
        try:
            per_span, facts_peer, t_peer = _run(model, spans, 1, args.budget)
            batched, facts_ours, t_ours = _run(model, spans, 40, args.budget)
        finally:
            if server is not None:
                server.stop()
    print(f"server: {where}")
    print(f"one call per span (peer): {per_span.calls} calls, {per_span.input_tokens} in + "
          f"{per_span.output_tokens} out tokens, {facts_peer} facts, {t_peer:.1f} s")
    print(f"batched per section (graphforge): {batched.calls} calls, {batched.input_tokens} in + "
          f"{batched.output_tokens} out tokens, {facts_ours} facts, {t_ours:.1f} s")
    tokens_peer, tokens_ours = per_span.input_tokens + per_span.output_tokens, batched.input_tokens + \
        batched.output_tokens
    print(f"ratio: {per_span.calls / max(1, batched.calls):.1f}x fewer calls, "
          f"{tokens_peer / max(1, tokens_ours):.1f}x fewer tokens"
          + ("" if args.local else f", facts equal: {facts_peer == facts_ours}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
