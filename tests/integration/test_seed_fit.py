"""A seed that fits the folder, on the bundled O*NET sample and real Neo4j, through the CLI.

`load workspace` without `--seed` assigns the selected seed that fits best and `seeds suggest` lists it
first; a user's `--seed` is kept, also on a later load without it; `specs compile` warns (one stderr line)
when the seed fits poorly and names the better one; `seeds assign` switches to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.settings import GraphforgeSettings
from graphforge.stages import build_seeds, load_digital, load_onet, select_seeds

pytestmark = pytest.mark.neo4j

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"
MEDICAL = "29-2072.00"  # Medical Records Specialists: a selected seed of the sample
CONSTRUCTION = "47-2061.00"  # Construction Laborers: another


@pytest.fixture
def cli(ctx: StageContext, settings: GraphforgeSettings, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> StageContext:
    """The sample taxonomy with 10 selected seeds, and the CLI pointed at the test server."""
    load_onet.run(ctx, load_onet.LoadOnetParams(path=FIXTURE))
    load_digital.run(ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LABELS,
                                                         labels=FIXTURE / "digital_labels.csv"))
    build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.RULE_BASED))
    select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=10))
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("GRAPHFORGE_LLM_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return ctx


def _hospital_folder(root: Path) -> Path:
    """A small hospital price-transparency and medical-records folder (generated here)."""
    (root / "data-dictionary").mkdir(parents=True)
    (root / "audits").mkdir()
    (root / "data-dictionary" / "hospital_standard_charges.csv").write_text(
        "billing_code,code_type,description,gross_charge,payer_name,plan_name,negotiated_rate\n"
        "99213,CPT,Office visit for an established patient,210.00,Acme Health,PPO,148.50\n"
        "470,MS-DRG,Major hip and knee joint replacement,38400.00,Acme Health,HMO,24900.00\n"
        "36415,CPT,Routine venipuncture for patient lab work,28.00,Blue Plan,PPO,11.20\n", encoding="utf-8")
    (root / "audits" / "patient_records_coding_audit.md").write_text(
        "# Patient records coding audit, Q3\n\n"
        "The health information team audited 120 inpatient records for completeness and coding accuracy.\n\n"
        "## Findings\n\nDiagnosis codes were missing in 7 records; procedure codes disagreed with the "
        "chargemaster in 4 records. Records were corrected before the claims were billed.\n",
        encoding="utf-8")
    (root / "price_transparency_notes.md").write_text(
        "# Hospital price transparency: machine-readable file\n\n"
        "Each hospital posts its standard charges for items and services, with the payer-specific "
        "negotiated charge and the billing code of each service, for patients to compare.\n",
        encoding="utf-8")
    return root


def _site_folder(root: Path) -> Path:
    """A small construction-site folder: daily logs of labour and materials."""
    root.mkdir(parents=True)
    (root / "site_daily_log.csv").write_text(
        "day,crew,task,materials used,quantity\n"
        "Monday,laborers,digging trench for footings,gravel,12 t\n"
        "Tuesday,laborers,loading and cleaning the site,concrete blocks,300\n", encoding="utf-8")
    (root / "construction_site_report.md").write_text(
        "# Construction site weekly report\n\nLaborers finished digging, loading and cleaning; the "
        "materials used on site each day are recorded in the daily log for the job order.\n",
        encoding="utf-8")
    return root


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[Any, str]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    return (json.loads(captured.out) if "--json" in argv else captured.out), captured.err


def _seed_of(ctx: StageContext, soc_code: str) -> str:
    records, _, _ = ctx.graph.driver.execute_query(
        "MATCH (s:Seed {soc_code: $soc}) WHERE s.selection_rank IS NOT NULL "
        "RETURN s.seed_id AS id ORDER BY s.selection_rank LIMIT 1", {"soc": soc_code},
        database_=ctx.graph.database)
    return str(records[0]["id"])


def _links(ctx: StageContext, workspace_id: str) -> list[str]:
    records, _, _ = ctx.graph.driver.execute_query(
        "MATCH (:Workspace {workspace_id: $w})-[:FOR_SEED]->(s:Seed) RETURN s.seed_id AS id",
        {"w": workspace_id}, database_=ctx.graph.database)
    return [str(r["id"]) for r in records]


def test_load_without_seed_assigns_the_best_fit_and_suggest_lists_it_first(
        cli: StageContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    medical, construction = _seed_of(cli, MEDICAL), _seed_of(cli, CONSTRUCTION)
    hospital = _hospital_folder(tmp_path / "hospital")
    loaded, _ = _run(capsys, "load", "workspace", str(hospital), "--workspace-id", "ws-hospital",
                     "--rule-roles", "--jobs", "1", "--json")
    assert (loaded["seed_id"], loaded["seed_source"], loaded["seeds_ranked"]) == (medical, "fit", 10)
    assert loaded["seed_linked"] and loaded["seed_occupation"] == "Medical Records Specialists"
    assert _links(cli, "ws-hospital") == [medical]

    suggested, _ = _run(capsys, "seeds", "suggest", "--workspace", "ws-hospital", "--json")
    assert suggested["pool"] == "selected" and suggested["seeds_ranked"] == 10
    first = suggested["suggestions"][0]
    assert (first["seed_id"], first["soc_code"]) == (medical, MEDICAL)
    assert first["score"] == loaded["seed_fit"] and first["score"] > suggested["suggestions"][1]["score"]
    assert (suggested["current_seed"], suggested["current_source"]) == (medical, "fit")
    top, _ = _run(capsys, "seeds", "suggest", "--workspace", "ws-hospital", "--all", "--top", "3", "--json")
    assert top["pool"] == "all" and top["seeds_ranked"] > 10 and len(top["suggestions"]) == 3
    assert top["suggestions"][0]["soc_code"] == MEDICAL
    table, _ = _run(capsys, "seeds", "suggest", "--workspace", "ws-hospital")
    assert all(len(line) <= 100 for line in table.splitlines()[2:])
    assert f"{medical}*" in table and "Medical Records Specialists" in table

    # Another folder, another line of work: the ranking follows the content.
    site, _ = _run(capsys, "load", "workspace", str(_site_folder(tmp_path / "site")), "--workspace-id",
                   "ws-site", "--rule-roles", "--jobs", "1", "--json")
    assert site["seed_id"] == construction and site["seed_source"] == "fit"
    # The human summary says which seed and its score.
    again, _ = _run(capsys, "load", "workspace", str(hospital), "--workspace-id", "ws-hospital",
                    "--rule-roles", "--jobs", "1")
    assert f"seed: {medical} (Medical Records Specialists) fits the folder best of 10 seeds" in again


def test_a_chosen_seed_is_kept_and_compile_warns_when_it_fits_poorly(
        cli: StageContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    medical, construction = _seed_of(cli, MEDICAL), _seed_of(cli, CONSTRUCTION)
    hospital = _hospital_folder(tmp_path / "hospital")
    loaded, _ = _run(capsys, "load", "workspace", str(hospital), "--workspace-id", "ws-h", "--seed",
                     construction, "--rule-roles", "--jobs", "1", "--json")
    assert (loaded["seed_id"], loaded["seed_source"], loaded["seeds_ranked"]) == (construction, "user", 0)
    # A later load without --seed keeps the user's choice (and its one FOR_SEED link).
    reloaded, _ = _run(capsys, "load", "workspace", str(hospital), "--workspace-id", "ws-h", "--rule-roles",
                       "--jobs", "1", "--json")
    assert (reloaded["seed_id"], reloaded["seed_source"]) == (construction, "user")
    assert _links(cli, "ws-h") == [construction]

    _, err = _run(capsys, "specs", "compile", "--workspace", "ws-h", "--json")
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, err
    assert construction in warnings[0] and "fits the folder poorly" in warnings[0]
    assert f"`graphforge seeds assign --workspace ws-h --seed {medical}`" in warnings[0]

    assigned, _ = _run(capsys, "seeds", "assign", "--workspace", "ws-h", "--seed", medical, "--json")
    assert assigned["seed_id"] == medical and assigned["fit"] > 0
    assert _links(cli, "ws-h") == [medical]
    _, err = _run(capsys, "specs", "compile", "--workspace", "ws-h", "--json")
    assert "warning:" not in err
    # Switching with --seed on a reload replaces the link instead of adding a second one.
    _run(capsys, "load", "workspace", str(hospital), "--workspace-id", "ws-h", "--seed", construction,
         "--rule-roles", "--jobs", "1", "--json")
    assert _links(cli, "ws-h") == [construction]


def test_without_seeds_nothing_is_assigned_and_nothing_is_warned(
        ctx: StageContext, settings: GraphforgeSettings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    loaded, _ = _run(capsys, "load", "workspace", str(_site_folder(tmp_path / "site")), "--workspace-id",
                     "ws-bare", "--rule-roles", "--jobs", "1", "--json")
    assert loaded["seed_id"] is None and loaded["seed_source"] is None and not loaded["seed_linked"]
    suggested, _ = _run(capsys, "seeds", "suggest", "--workspace", "ws-bare", "--json")
    assert suggested["suggestions"] == [] and suggested["current_seed"] is None
    _, err = _run(capsys, "specs", "compile", "--workspace", "ws-bare", "--json")
    assert "warning:" not in err
