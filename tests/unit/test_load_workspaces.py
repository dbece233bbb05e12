"""`load workspaces PARENT`: which sub-folders are workspaces, and the id each gets before it is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.cli.load_many import workspace_folders
from graphforge.errors import SourceFormatError
from graphforge.sharding import Shard
from loaders.workspace import scan_workspace, workspace_id_of


def _folder(path: Path, manifest: str | None = None) -> Path:
    path.mkdir(parents=True)
    (path / "ledger.csv").write_text("account,amount\nrent,1200\n", encoding="utf-8")
    if manifest is not None:
        (path / "manifest.json").write_text(manifest, encoding="utf-8")
    return path


def test_the_id_before_loading_is_the_id_the_scan_gives(tmp_path: Path) -> None:
    named = _folder(tmp_path / "named", json.dumps({"workspace": {"id": "ws-from-manifest"}}))
    plain = _folder(tmp_path / "Plain Folder")
    unnamed = _folder(tmp_path / "unnamed", json.dumps({"workspace": {"name": "no id here"}}))
    broken = _folder(tmp_path / "broken", "{not json")
    link = tmp_path / "link-to-plain"
    link.symlink_to(plain)
    for folder in (named, plain, unnamed, broken, link):
        assert workspace_id_of(folder) == scan_workspace(folder).workspace_id, folder.name
    assert workspace_id_of(named) == "ws-from-manifest"
    assert workspace_id_of(plain).startswith("ws-plain-folder-")
    assert workspace_id_of(broken).startswith("ws-broken-")  # a broken manifest is refused, the id derived


def test_workspaces_are_the_visible_sub_folders_in_name_order(tmp_path: Path) -> None:
    for name in ("b", "a", ".git", "c d"):
        _folder(tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a workspace", encoding="utf-8")
    assert [p.name for p in workspace_folders(tmp_path)] == ["a", "b", "c d"]


def test_a_parent_without_sub_folders_is_a_one_line_error_naming_it(tmp_path: Path) -> None:
    _folder(tmp_path / "only-files")
    with pytest.raises(SourceFormatError, match="no sub-folders") as err:
        workspace_folders(tmp_path / "only-files")
    assert str(tmp_path / "only-files") in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(SourceFormatError, match="not a folder"):
        workspace_folders(tmp_path / "missing")


def test_each_workspace_folder_belongs_to_exactly_one_of_n_shards(tmp_path: Path) -> None:
    for n in range(40):
        _folder(tmp_path / f"case-{n:03d}")
    ids = [workspace_id_of(f) for f in workspace_folders(tmp_path)]
    for count in (1, 2, 3):
        parts = [Shard(index=i, count=count).select(ids) for i in range(count)]
        assert sorted(w for part in parts for w in part) == sorted(ids)
        assert all(parts) or count == 1
