"""The graph layer, migrations and the managed server against a real Neo4j."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from graphforge.errors import CypherError, GraphConnectionError, MigrationError, ServerError
from graphforge.graphdb import chores, cypher, migrations, server
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings

pytestmark = pytest.mark.neo4j

REPO = Path(__file__).resolve().parents[2]


def _labels_in_design() -> set[str]:
    schema = (REPO / "schema" / "V0001__create_node_key_constraints.cypher").read_text()
    return {line.split("FOR (n:")[1].split(")")[0] for line in schema.splitlines() if "FOR (n:" in line}


def test_server_reports_5_26(graph: Graph) -> None:
    component = chores.server_component(graph)
    assert component.version.startswith("5.26.")
    assert component.edition == "community"


def test_every_graph_model_label_has_its_key_constraint(graph: Graph) -> None:
    names = {r["name"] for r in graph.read_dicts(chores.GET_CONSTRAINTS)}
    expected = {"Sector": "code", "Occupation": "soc_code", "Task": "task_id", "DWA": "dwa_id",
                "IWA": "iwa_id", "GWA": "element_id", "Seed": "seed_id", "ExecutionPattern": "name",
                "InputFamily": "name", "Evidence": "evidence_id", "Workspace": "workspace_id",
                "File": "sha256", "Span": "span_id", "Fact": "fact_id", "TaskSpec": "spec_id",
                "Deliverable": "deliverable_id", "Criterion": "criterion_id", "Trajectory": "trajectory_id",
                "Judgment": "judgment_id", "BenchmarkTask": "task_key", "BenchmarkFile": "sha256",
                "Audit": "audit_id", "Export": "export_id"}
    assert set(expected) <= _labels_in_design()
    for label, key in expected.items():
        snake = "".join("_" + c.lower() if c.isupper() and i and not label[i - 1].isupper() else c.lower()
                        for i, c in enumerate(label))
        assert f"{snake}_{key}_unique" in names, label


def test_migrate_twice_changes_nothing(graph: Graph) -> None:
    before = migrations.applied(graph)
    result = migrations.migrate(graph)
    assert result.applied == []
    assert result.pending_before == 0
    assert migrations.applied(graph) == before
    assert len(before) == len(migrations.discover())


def test_edited_applied_migration_is_refused(graph: Graph, tmp_path: Path) -> None:
    copy = tmp_path / "schema"
    shutil.copytree(migrations.SCHEMA_DIR, copy)
    first = sorted(copy.glob("V0001__*.cypher"))[0]
    first.write_text(first.read_text() + "// an innocent-looking edit\n")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        migrations.migrate(graph, copy)


def test_new_migration_file_is_applied_once(graph: Graph, tmp_path: Path) -> None:
    copy = tmp_path / "schema"
    shutil.copytree(migrations.SCHEMA_DIR, copy)
    (copy / "V9000__test_only_index.cypher").write_text(
        "// test-only index\nCREATE INDEX test_only_seed_demand IF NOT EXISTS FOR (n:Seed) ON (n.demand);\n")
    try:
        assert migrations.migrate(graph, copy).applied == ["V9000__test_only_index.cypher"]
        assert migrations.migrate(graph, copy).applied == []
        names = {r["name"] for r in graph.read_dicts(chores.GET_INDEXES)}
        assert "test_only_seed_demand" in names
        # The real schema dir no longer knows V9000: that is refused, not ignored.
        with pytest.raises(MigrationError, match="file is missing"):
            migrations.pending(graph)
    finally:
        graph.execute_autocommit(chores.DELETE_INDEX, name="test_only_seed_demand")
        graph.driver.execute_query("MATCH (m:__GraphforgeMigration {version: 9000}) DELETE m")


def test_batched_write_is_idempotent_and_counts_rows(graph: Graph) -> None:
    query = cypher.load("meta/merge_migration")  # any write query with scalar params
    assert query.params == {"version", "description", "checksum"}
    graph.batch_size = 3
    sector_rows = [{"code": f"{i:02d}", "title": f"Sector {i}"} for i in range(10)]
    merge = cypher.CypherQuery(
        "test/merge_sectors",
        "UNWIND $rows AS row MERGE (s:Sector {code: row.code}) SET s.title = row.title "
        "RETURN count(*) AS written",
        frozenset({"rows"}),
    )
    assert graph.write(merge, sector_rows) == 10
    assert graph.write(merge, sector_rows) == 10
    assert chores.counts(graph).nodes["Sector"] == 10


def test_missing_parameter_is_refused_before_sending(graph: Graph) -> None:
    with pytest.raises(CypherError, match="missing parameters: name"):
        graph.execute_autocommit(chores.DELETE_INDEX)


def test_driver_error_names_the_query(graph: Graph) -> None:
    broken = cypher.CypherQuery("test/broken", "MATCH (n RETURN n", frozenset())
    with pytest.raises(CypherError, match="'test/broken'"):
        graph.read_dicts(broken)


def test_stream_is_lazy_and_complete(graph: Graph) -> None:
    merge = cypher.CypherQuery("test/merge_tasks", "UNWIND $rows AS row MERGE (t:Task {task_id: row.id}) "
                                                   "RETURN count(*) AS written", frozenset({"rows"}))
    graph.write(merge, [{"id": str(i)} for i in range(500)])
    read = cypher.CypherQuery("test/stream_tasks", "MATCH (t:Task) RETURN t.task_id AS task_id "
                                                   "ORDER BY toInteger(t.task_id)", frozenset())
    from pydantic import BaseModel

    class T(BaseModel):
        task_id: str

    stream = graph.stream(read, T)
    first = next(stream)
    assert first.task_id == "0"
    assert [t.task_id for t in stream][-1] == "499"


def test_wrong_password_is_one_clear_error(neo4j_info: server.ServerInfo) -> None:
    wrong = server.ServerInfo(neo4j_info.uri, neo4j_info.user, "not-the-password", "neo4j", False)
    with pytest.raises(GraphConnectionError, match="refused the login"):
        server.open_driver(wrong)


def test_server_down_is_one_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = server.ServerInfo(f"bolt://127.0.0.1:{port}", "neo4j", "whatever", "neo4j", False)
    with pytest.raises(GraphConnectionError, match="not reachable"):
        server.open_driver(down)


def test_port_in_use_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        settings = GraphforgeSettings(home=tmp_path / "gf", bolt_port=port, http_port=port + 1)
        with pytest.raises(ServerError, match=f"port 127.0.0.1:{port} is already in use"):
            server.ManagedServer(settings).start()


def test_start_is_idempotent_and_status_reports_version(settings: GraphforgeSettings,
                                                        neo4j_info: server.ServerInfo) -> None:
    if not settings.managed:
        pytest.fail("this test needs the managed server; unset NEO4J_URI")
    managed = server.ManagedServer(settings)
    pid = managed.pid()
    assert pid is not None
    managed.start()  # a second start is a no-op
    assert managed.pid() == pid
    status = managed.status()
    assert status.running and status.version is not None and status.version.startswith("5.26.")
    assert (managed.credentials.stat().st_mode & 0o777) == 0o600


def test_stale_pid_file_is_cleaned(tmp_path: Path) -> None:
    settings = GraphforgeSettings(home=tmp_path / "gf")
    managed = server.ManagedServer(settings)
    managed.pid_file.parent.mkdir(parents=True)
    managed.pid_file.write_text("999999\n")
    assert managed.pid() is None
    assert not managed.pid_file.exists()


def test_browser_is_served(settings: GraphforgeSettings, neo4j_info: server.ServerInfo) -> None:
    import httpx

    if not settings.managed:
        pytest.fail("this test needs the managed server; unset NEO4J_URI")
    managed = server.ManagedServer(settings)
    page = httpx.get(managed.browser_url, timeout=10)
    assert page.status_code == 200
    assert "neo4j" in page.text.lower()
    # The login Browser offers works with the generated password (checked over the HTTP query API,
    # which authenticates exactly like Browser's login form), and is refused with the default one.
    query = {"statement": "RETURN 1 AS one"}
    ok = httpx.post(f"{managed.http_url}/db/neo4j/query/v2", json=query, auth=("neo4j", managed.password()),
                    timeout=10)
    assert ok.status_code in (200, 202) and ok.json()["data"]["values"] == [[1]]
    default = httpx.post(f"{managed.http_url}/db/neo4j/query/v2", json=query, auth=("neo4j", "neo4j"),
                         timeout=10)
    assert default.status_code == 401


def test_managed_config_binds_loopback_only(
    settings: GraphforgeSettings, neo4j_info: server.ServerInfo
) -> None:
    if not settings.managed:
        pytest.fail("this test needs the managed server; unset NEO4J_URI")
    conf = (server.ManagedServer(settings).home / "conf" / "neo4j.conf").read_text()
    lines = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line and "jvm" not in line)
    for key in ("server.default_listen_address", "server.bolt.listen_address", "server.http.listen_address"):
        assert lines[key].split(":")[0] == "127.0.0.1", key
    assert lines["dbms.security.auth_enabled"] == "true"
    assert lines["server.https.enabled"] == "false"
