"""A demonstration that slips asks once for a wrong file name, and reads the file the tool's answer names."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from graphforge.agent.loop import prepare_workdir
from graphforge.agent.tools import ToolBox, ToolFailure
from graphforge.models.spec import AgentView
from graphforge.oracle import InjectKind, run_oracle
from graphforge.oracle.agent import trajectory_id
from graphforge.oracle.demonstrate import misremembered
from graphforge.settings import GraphforgeSettings
from graphforge.stages.admit_trajectories import CleaningRules, degenerate_use
from tests.unit._judge_sample import sample_view, write_sample_workspace

# Names shaped like real crawled folders: versions in folder names, one name in several folders.
FOLDER = ["README.md", "v2.3-2019/README.md", "v2.3-2019/emission-rates-change-log.md",
          "v4.3-2024/emission-rates-change-log.md", "v4.3-2024/avert_emission_rates_04-11-24.xlsx",
          "update-process/AVERT 2025 Annual Update Guide.xlsx", "data/records.json", "notes.txt",
          "records-summary.md", "reports/2023/quarterly/summary.csv", "reports/2024/quarterly/summary.csv"]
DELIVERABLE = "records_summary.md"  # what "records-summary.md" becomes with its separators swapped
NOT_FOUND = re.compile(r"^no file '(?P<wrong>[^']+)'; the closest that exist: '(?P<first>[^']+)'")


def _box(root: Path) -> ToolBox:
    for rel in FOLDER:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"contents of {rel}\n", encoding="utf-8")
    return ToolBox(root, deliverables=(DELIVERABLE,))


def test_a_misremembered_name_is_missing_and_the_tool_names_the_right_file_first(tmp_path: Path) -> None:
    tools = _box(tmp_path)
    found = 0
    for seed in range(5):
        for path in FOLDER:
            wrong = misremembered(path, tools, random.Random(seed))
            if wrong is None:
                continue
            found += 1
            assert wrong != path and not (tmp_path / wrong).exists() and not wrong.endswith(DELIVERABLE)
            with pytest.raises(ToolFailure) as failure:
                tools.read_file(wrong)
            match = NOT_FOUND.match(str(failure.value))
            assert match and match["wrong"] == wrong and match["first"] == path, str(failure.value)
    assert found >= 3 * len(FOLDER)  # most files have a plausible wrong name, under most seeds


def test_files_of_one_name_in_several_folders_come_in_path_order(tmp_path: Path) -> None:
    tools = _box(tmp_path)
    # The recording and its replay in a fresh copy list the folder in whatever order their disks keep; the
    # answer, recorded in the training row, must not depend on it.
    assert tools.closest("summary.csv") == ["reports/2023/quarterly/summary.csv",
                                            "reports/2024/quarterly/summary.csv"]


def test_without_slips_the_ids_are_those_made_before_slips_existed() -> None:
    # oracle-<stable_hash(spec, injections, seed)>, as stored by every run before slips
    assert trajectory_id("recon-q3@v1", [], 0) == "oracle-1f293e000567f413"
    assert trajectory_id("recon-q3@v1", [InjectKind.WRONG_NUMBER], 0) == "oracle-fc801a4ff7c518d5"
    assert trajectory_id("recon-q3@v1", [], 0, slips=0.5) != "oracle-1f293e000567f413"


def _calls(messages):  # type: ignore[no-untyped-def]
    return [(c, next(r.content for r in messages if r.role == "tool" and r.tool_call_id == c.id))
            for m in messages if m.tool_calls for c in m.tool_calls]


def test_a_demonstration_that_slips_recovers_replays_and_stays_admissible(tmp_path: Path) -> None:
    view = sample_view()
    workspace = write_sample_workspace(tmp_path / "workspace")
    clean = run_oracle(view, view.paths, tmp_path / "clean", workspace_dir=workspace).trajectory
    slipped = run_oracle(view, view.paths, tmp_path / "slip", workspace_dir=workspace, slips=1.0).trajectory
    assert clean.trajectory_id != slipped.trajectory_id
    assert "slip: asked for" in slipped.source and "slip" not in clean.source
    assert not any(out.startswith("ERROR") for _, out in _calls(clean.messages))

    calls = _calls(slipped.messages)
    errors = [i for i, (_, out) in enumerate(calls) if out.startswith("ERROR")]
    assert len(errors) == 1
    call, out = calls[errors[0]]
    match = NOT_FOUND.match(out.removeprefix("ERROR: "))
    assert call.function.name == "read_file" and match, out
    following, _ = calls[errors[0] + 1]
    assert following.function.name == "read_file"
    assert json.loads(following.function.arguments)["path"] == match["first"] in view.paths
    # The turn after the error says why it reads another name than the one it asked for.
    turn = next(m for m in slipped.messages if m.tool_calls and m.tool_calls[0].id == following.id)
    assert match["wrong"] in (turn.content or "") and match["first"] in (turn.content or "")
    # Same answer as without the slip, and the one failed call is within the admission rules.
    assert [d.sha256 for d in slipped.deliverables] == [d.sha256 for d in clean.deliverables]
    rules = CleaningRules.from_settings(GraphforgeSettings())
    assert degenerate_use(slipped, rules) == []

    # Every recorded result, the error included, is what the tools return in a fresh copy of the folder.
    agent = AgentView(spec_id=view.spec.spec_id, statement=view.spec.statement, files=sorted(view.paths),
                      deliverables=[d.name for d in view.spec.deliverables])
    work = prepare_workdir(workspace, agent, tmp_path / "replay")
    tools = ToolBox(work, deliverables=tuple(agent.deliverables))
    for call, out in calls:
        assert tools.call(call.function.name, call.function.arguments)[0] == out
