"""Extension points: a trajectory format and a task family are each added as one new module, and every
place that lists them (sniffing, the CLI's choices, help and checks, eval players, specs compile) takes
them with no other file edited.

- the toy format ``toy-steps`` is a new module of ``loaders.trajectories`` (a temporary folder joined to
  the package's ``__path__``: the package's own folder stays untouched while other work shares it);
- the format ``toy-outside`` comes from an outside distribution written here (a package and a
  ``.dist-info`` with an entry point in the ``graphforge.trajectory_formats`` group) on ``sys.path``;
- the family ``toy_titles`` is a module (its Cypher file beside it) in a ``GRAPHFORGE_FAMILY_DIRS`` folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import loaders.trajectories as trajectories_package
from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.eval.players import PlayerKind, build_players
from graphforge.registry import registries_markdown
from graphforge.specs.families import FAMILIES, FOLDERS_ENV
from loaders.trajectories import TRAJECTORY_FORMATS, format_names, read_trajectories
from loaders.trajectories.base import SourceFile
from loaders.trajectories.sniff import sniff
from tests.integration.test_eval_chain import _cypher, make_benchmark
from tests.integration.test_task_families import TOY_CYPHER, TOY_MODULE, _load, _text_only

pytestmark = pytest.mark.neo4j

REPO = Path(__file__).resolve().parents[2]

# One module: a JSON Lines log whose records hold OpenAI-style turns under "toy_steps".
TOY_FORMAT = '''
"""Toy logs: one JSON object a line, {{"run", "task", "files", "{key}": [OpenAI messages]}}."""

from loaders.trajectories import openai_messages
from loaders.trajectories.base import Issues, ParsedFile, SourceFile, TrajectoryFormatSpec

NAME = "{name}"


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    out = []
    for line, record in src.lines(issues):
        meta = {{"id": record.get("run"), "spec_id": record.get("task"), "deliverables": record.get("files"),
                 "model": "toy-model"}}
        t = openai_messages.trajectory(meta, record.get("{key}") or [], src, issues, spec_id, line)
        if t is not None:
            ident = f"{{NAME}}:{{record.get('run')}}"
            out.append(t.model_copy(update={{"scaffold": NAME, "trajectory_id": ident}}))
    return ParsedFile(trajectories=out, issues=issues.items)


FORMAT = TrajectoryFormatSpec(
    name=NAME,
    title="toy logs ({key})",
    suffixes=frozenset({{".jsonl"}}),
    parse=parse,
    rank=5,
    record=lambda record: isinstance(record.get("{key}"), list),
)
'''


@pytest.fixture
def extensions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The three extensions in place (and the registries discovering again); all gone afterwards."""
    inside = tmp_path / "inside"
    inside.mkdir()
    module = TOY_FORMAT.format(name="toy-steps", key="toy_steps")
    (inside / "toy_steps.py").write_text(module, encoding="utf-8")
    monkeypatch.setattr(trajectories_package, "__path__", [*trajectories_package.__path__, str(inside)])

    site = tmp_path / "site"
    (site / "toyfmt").mkdir(parents=True)
    (site / "toyfmt" / "__init__.py").write_text("", encoding="utf-8")
    (site / "toyfmt" / "outside.py").write_text(TOY_FORMAT.format(name="toy-outside", key="toy_outside"),
                                                encoding="utf-8")
    info = site / "toyfmt-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyfmt\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[graphforge.trajectory_formats]\ntoy-outside = toyfmt.outside:FORMAT\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))

    fams = tmp_path / "fams"
    fams.mkdir()
    (fams / "toy_titles.py").write_text(TOY_MODULE, encoding="utf-8")
    (fams / "toy_titles.cypher").write_text(TOY_CYPHER, encoding="utf-8")
    monkeypatch.setenv(FOLDERS_ENV, str(fams))

    TRAJECTORY_FORMATS.refresh()
    FAMILIES.refresh()
    yield site
    monkeypatch.undo()
    sys.modules.pop("loaders.trajectories.toy_steps", None)
    for name in [m for m in sys.modules if m == "toyfmt" or m.startswith("toyfmt.")]:
        sys.modules.pop(name)
    TRAJECTORY_FORMATS.refresh()
    FAMILIES.refresh()
    assert "toy-steps" not in TRAJECTORY_FORMATS and "toy_titles" not in FAMILIES


def _toy_log(folder: Path, key: str) -> Path:
    """Two runs of the generated benchmark's tasks ev-01 and ev-02, each with its Markdown deliverable."""
    folder.mkdir(parents=True)
    lines = []
    for task in ("ev-01", "ev-02"):
        (folder / f"{task}.md").write_text("Total: 2.00\n", encoding="utf-8")
        lines.append(json.dumps({"run": f"r-{task}", "task": task, "files": [f"{task}.md"],
                                 key: [{"role": "user", "content": "task"},
                                       {"role": "assistant", "content": "Done."}]}))
    path = folder / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_new_format_module_and_family_module_are_taken_everywhere(
        extensions: Path, ctx: StageContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inside = _toy_log(tmp_path / "inside-logs", "toy_steps")
    outside = _toy_log(tmp_path / "outside-logs", "toy_outside")
    assert TRAJECTORY_FORMATS.origin("toy-outside") == "entry point graphforge.trajectory_formats:toy-outside"

    # Sniffing: --format auto tells both apart from every bundled format (and from each other).
    for path, name in ((inside, "toy-steps"), (outside, "toy-outside")):
        found = sniff(SourceFile(path))
        assert not isinstance(found, str) and found.name == name
        read = read_trajectories(path)
        assert [f.format for f in read.files] == [name] and len(read.trajectories) == 2

    # The CLI: --format accepts them, and the import stage writes the runs; an unknown name lists them.
    capsys.readouterr()
    assert main(["load", "trajectories", str(outside), "--format", "toy-outside", "--json"]) == 0
    assert main(["load", "trajectories", str(inside), "--format", "toy-steps", "--json"]) == 0
    scaffolds = _cypher(ctx.graph, "MATCH (t:Trajectory) RETURN t.scaffold AS s, count(*) AS n ORDER BY s")
    assert scaffolds == [{"s": "toy-outside", "n": 2}, {"s": "toy-steps", "n": 2}]
    capsys.readouterr()
    assert main(["load", "trajectories", str(inside), "--format", "no-such-format"]) != 0
    assert "toy-steps" in capsys.readouterr().err

    # Eval players: import:FORMAT:PATH takes both, and an eval run plays the imported runs.
    assert {"toy-steps", "toy-outside"} <= set(format_names(evaluable=True))
    [player] = build_players([f"toy=import:toy-steps:{inside}"], import_formats=format_names(evaluable=True))
    assert player.kind is PlayerKind.IMPORT and player.scaffold == "import:toy-steps"
    bench = make_benchmark(tmp_path, ctx)
    assert main(["eval", "run", "--benchmark", "eval-sample", "--benchmark-dir", str(bench),
                 "--model", f"toy=import:toy-outside:{outside}", "--model", "gold=oracle", "--json"]) == 0
    played = _cypher(ctx.graph, "MATCH (a:Attempt {player: 'toy'}) "
                                "RETURN a.task_id AS task, a.status AS status ORDER BY task")
    assert [(r["task"], r["status"]) for r in played][:2] == [("ev-01", "completed"), ("ev-02", "completed")]

    # Specs compile: the family is listed, supported by the workspace's evidence and compiled.
    _load(ctx, _text_only(tmp_path / "text"), "ws-toy")
    capsys.readouterr()
    assert main(["specs", "compile", "--workspace", "ws-toy", "--family", "toy_titles",
                 "--compiler", "template", "--json"]) == 0
    compiled = json.loads(capsys.readouterr().out)
    assert [s["family"] for s in compiled["specs"]] == ["toy_titles"], compiled


def test_the_cli_help_lists_what_the_registries_hold(extensions: Path, tmp_path: Path) -> None:
    # A fresh process builds its help from the registries: the outside format and the folder's family.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(extensions), str(REPO)]), "COLUMNS": "300",
           FOLDERS_ENV: os.environ[FOLDERS_ENV]}

    def help_of(*command: str) -> str:
        done = subprocess.run([sys.executable, "-m", "graphforge", *command, "--help"], env=env,
                              capture_output=True, text=True, timeout=120, check=True)
        return " ".join(done.stdout.split())

    assert "toy-outside" in help_of("load", "trajectories")
    assert "toy-outside" in help_of("eval", "run")
    assert "toy_titles" in help_of("specs", "compile")


def test_each_registry_renders_as_a_markdown_table(extensions: Path) -> None:
    text = registries_markdown([("Trajectory formats", TRAJECTORY_FORMATS), ("Task families", FAMILIES)])
    assert "### Trajectory formats" in text and "| `toy-outside` | toy logs (toy_outside) |" in text
    assert "| `toy_titles` | a list of titles |" in text
    rows = [line for line in TRAJECTORY_FORMATS.markdown().splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == TRAJECTORY_FORMATS.names()


def test_a_family_the_evidence_stops_supporting_is_retired_and_comes_back(
    extensions: Path, ctx: StageContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A compile of every family retires the current spec of a family it no longer produces (NASA's checklist
    of a superseded page stayed current once its rule changed) and puts it back when the family returns."""
    from graphforge.export.split import GET_SPLIT_UNITS

    _load(ctx, _text_only(tmp_path / "text"), "ws-gone")

    def compile_all() -> dict[str, Any]:
        capsys.readouterr()
        assert main(["specs", "compile", "--workspace", "ws-gone", "--all-families", "--compiler", "template",
                     "--json"]) == 0
        out: dict[str, Any] = json.loads(capsys.readouterr().out)
        return out

    def current() -> set[str]:
        return {str(r["spec_id"]) for r in ctx.graph.read_dicts(GET_SPLIT_UNITS)
                if r["workspace_id"] == "ws-gone"}

    first = compile_all()
    toy = next(s["spec_id"] for s in first["specs"] if s["family"] == "toy_titles")
    others = {s["spec_id"] for s in first["specs"]} - {toy}
    assert others and first["retired"] == {} and current() == others | {toy}

    family_file = tmp_path / "fams" / "toy_titles.cypher"
    family_file.write_text(TOY_CYPHER.replace("f.entity = 'title'", "f.entity = 'no such entity'"),
                           encoding="utf-8")
    FAMILIES.refresh()
    second = compile_all()
    assert list(second["retired"]) == [toy], second
    assert "no longer supports" in second["retired"][toy]
    assert current() == others
    listed = _cypher(ctx.graph, "MATCH (s:TaskSpec {workspace_id: 'ws-gone'}) "
                                "RETURN s.spec_id AS spec, s.retired_at IS NOT NULL AS retired ORDER BY spec")
    assert {r["spec"] for r in listed if r["retired"]} == {toy}
    assert compile_all()["retired"] == {}  # already retired: not retired twice

    family_file.write_text(TOY_CYPHER, encoding="utf-8")
    FAMILIES.refresh()
    third = compile_all()
    assert third["restored"] == [toy] and third["retired"] == {}
    assert current() == others | {toy}
