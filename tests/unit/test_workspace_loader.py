"""Workspace scanning: manifest (JSON/YAML), hidden roles, symlink and path-escape refusal, duplicates."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphforge.demo.sample.workspace import PATHS, WORKSPACE_ID, generate_sample_workspace
from graphforge.errors import SourceFormatError
from graphforge.models.workspace import CandidateFile, FileRole
from graphforge.stages.load_workspace import contains_row, group_duplicates
from loaders.workspace import read_manifest, rule_role, scan_workspace


def test_sample_scan_takes_roles_from_the_manifest_and_rules(tmp_path: Path) -> None:
    sample = generate_sample_workspace(tmp_path)
    scan = scan_workspace(sample.root)
    assert scan.workspace_id == WORKSPACE_ID and scan.manifest == sample.manifest
    by_path = {c.path: c for c in scan.candidates}
    assert sorted(by_path) == sorted(PATHS.values())  # the manifest itself is not a workspace file
    assert (
        by_path[PATHS["draft"]].role is FileRole.CONFUSER
        and by_path[PATHS["draft"]].role_source == "manifest"
    )
    assert by_path[PATHS["report"]].source_url == "https://example.org/brightwater/" + PATHS["report"]
    ambient = by_path[PATHS["ambient"]]
    assert (ambient.role, ambient.role_source, ambient.license) == (FileRole.AMBIENT, "rules", None)


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("drafts/report_v2.pdf", FileRole.CONFUSER),
        ("finance/ledger.xlsx", FileRole.CORE),
        ("misc/newsletter.html", FileRole.AMBIENT),
        ("misc/relocation_notice.txt", FileRole.AMBIENT),
        # A version number or a README name says nothing of the role: the current release is numbered too.
        ("data-dictionary/v3.0/CSV_README.md", FileRole.SUPPORTING),
        ("data-dictionary/v2.2/CSV_v2.2_README.md", FileRole.SUPPORTING),
        ("newsletters/July2023Newsletter.pdf", FileRole.SUPPORTING),
        ("memos/note.docx", FileRole.SUPPORTING),
    ],
)
def test_rule_roles_come_from_the_path(path: str, role: FileRole) -> None:
    assert rule_role(path) is role


def test_symlinks_are_refused_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "real.txt").write_text("hello")
    os.symlink(outside / "secret.txt", root / "escape.txt")
    os.symlink(root / "real.txt", root / "alias.txt")
    os.symlink(outside, root / "linked_dir")
    scan = scan_workspace(root)
    assert [c.path for c in scan.candidates] == ["real.txt"]
    reasons = dict(scan.refused)
    assert "outside the workspace" in reasons["escape.txt"]
    assert "never followed" in reasons["alias.txt"]
    assert "folder pointing outside" in reasons["linked_dir"]


def test_manifest_paths_outside_the_workspace_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n")
    (tmp_path / "passwd").write_text("x")
    (root / "manifest.yaml").write_text(
        "workspace: {id: ws-y, name: Yaml case}\n"
        "files:\n"
        "  - {path: docs/a.md, role: core, source_url: 'https://example.org/a', license: MIT}\n"
        "  - {path: ../passwd, role: core}\n"
        "  - {path: /etc/hostname, role: core}\n"
        "  - {path: docs/missing.md, role: core}\n"
    )
    scan = scan_workspace(root)
    assert scan.workspace_id == "ws-y" and scan.name == "Yaml case"
    [cand] = scan.candidates
    assert (cand.path, cand.role, cand.role_source, cand.license) == (
        "docs/a.md",
        FileRole.CORE,
        "manifest",
        "MIT",
    )
    reasons = dict(scan.refused)
    assert reasons["../passwd"] == reasons["/etc/hostname"] == "manifest path points outside the workspace"
    assert "not in the workspace" in reasons["docs/missing.md"]


def test_os_debris_is_skipped_and_bad_manifest_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    (tmp_path / ".DS_Store").write_bytes(b"\0")
    (tmp_path / "a.txt").write_text("a")
    scan = scan_workspace(tmp_path)
    assert [c.path for c in scan.candidates] == ["a.txt"] and scan.skipped == [".DS_Store", ".git"]
    (tmp_path / "bad.json").write_text('{"files": [{"role": "core"}]}')
    with pytest.raises(SourceFormatError, match="schema"):
        read_manifest(tmp_path / "bad.json")
    with pytest.raises(SourceFormatError, match="not a folder"):
        scan_workspace(tmp_path / "a.txt")


def _cand(path: str, role: FileRole = FileRole.SUPPORTING) -> CandidateFile:
    return CandidateFile(path=path, abs_path="/x/" + path, role=role, role_source="rules")


def test_duplicates_keep_the_shortest_path_and_list_the_rest() -> None:
    hashed = [
        (_cand("exports/x (copy).csv"), "s1", 10),
        (_cand("exports/x.csv", FileRole.CORE), "s1", 10),
        (_cand("b.txt"), "s2", 3),
    ]
    groups = group_duplicates(hashed)
    assert [c.path for c, _ in groups["s1"]] == ["exports/x.csv", "exports/x (copy).csv"]
    row = contains_row("ws", "s1", groups["s1"])
    assert (row.path, row.role, row.duplicate_paths) == (
        "exports/x.csv",
        FileRole.CORE,
        ["exports/x (copy).csv"],
    )


def test_file_names_that_are_not_utf8_are_refused_with_a_readable_name(tmp_path: Path) -> None:
    import os

    root = tmp_path / "ws"
    root.mkdir()
    # A crawler on Linux can save any bytes as a name; Python hands them over as lone surrogates.
    with open(os.path.join(os.fsencode(root), b"Bericht_M\xe4rz.csv"), "wb") as fh:
        fh.write(b"Segment,Q1\nServices,1340\n")
    (root / "ok.csv").write_text("Segment,Q1\nGoods,99\n")
    scan = scan_workspace(root)
    assert [c.path for c in scan.candidates] == ["ok.csv"]
    assert scan.refused == [
        ("Bericht_M\ufffdrz.csv", "file name is not valid UTF-8; rename the file to ingest it")
    ]
    scan.model_dump_json()  # what the JSON report and the Bolt driver need: no lone surrogates
