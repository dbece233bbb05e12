"""Migration files parse into statements, in order, with stable checksums."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.errors import MigrationError
from graphforge.graphdb import migrations


def test_discover_orders_versions_and_splits_statements() -> None:
    found = migrations.discover()
    assert [m.version for m in found] == sorted(m.version for m in found)
    assert found[0].version == 1
    assert all(s and not s.endswith(";") for m in found for s in m.statements)


def test_checksum_ignores_line_endings(tmp_path: Path) -> None:
    (tmp_path / "V0001__a.cypher").write_bytes(b"CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\n")
    unix = migrations.discover(tmp_path)[0].checksum
    (tmp_path / "V0001__a.cypher").write_bytes(b"CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\r\n")
    assert migrations.discover(tmp_path)[0].checksum == unix


def test_misnamed_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "V1__bad.cypher").write_text("RETURN 1;\n")
    with pytest.raises(MigrationError, match="V1__bad.cypher"):
        migrations.discover(tmp_path)


def test_comment_lines_are_not_statements() -> None:
    assert migrations.split_statements("// one\nA;\n// two\nB;\n") == ("A", "B")
