"""O*NET release reader, labels and sector mapping readers, and the bundled sample (no Neo4j)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from graphforge.demo.sample import taxonomy
from graphforge.errors import SourceFormatError
from graphforge.models.onet import Occupation, SectorAssignment, SectorMapping
from graphforge.seeds.sectors import SOC_MAJOR_GROUPS, assign_sectors
from graphforge.stages.load_onet import release_rows
from loaders import onet
from loaders.labels import read_digital_labels, read_sector_mapping

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"


def _expected() -> tuple[int, int, int]:
    tasks = sum(len(t) for *_, t in taxonomy.OCCUPATIONS)
    links = sum(len(keys) for *_, t in taxonomy.OCCUPATIONS for _, keys, _ in t)
    return len(taxonomy.OCCUPATIONS), tasks, links


def test_sample_release_reads_completely() -> None:
    release = onet.read_release(FIXTURE)
    occupations, tasks, links = _expected()
    assert release.release_id == taxonomy.RELEASE_ID  # from Read Me.txt
    assert (len(release.occupations), len(release.tasks), len(release.task_dwas)) == (
        occupations,
        tasks,
        links,
    )
    assert len(release.dwas) == len(taxonomy.dwa_ids())
    # Content Model elements above the GWA level are not work activities.
    assert {g.element_id for g in release.gwas} == {gwa for gwa, _, _ in taxonomy.HIERARCHY}
    assert release.skipped == {}


def test_committed_fixture_matches_the_generator(tmp_path: Path) -> None:
    taxonomy.write_sample(tmp_path)
    for path in sorted(FIXTURE.iterdir()):
        assert path.read_bytes() == (tmp_path / path.name).read_bytes(), path.name


def test_xlsx_form_gives_the_same_release(tmp_path: Path) -> None:
    text = onet.read_release(FIXTURE)
    xlsx = onet.read_release(taxonomy.write_release(tmp_path / "x", "xlsx"))
    assert xlsx.source_format == "xlsx"
    # Task ids come back from .xlsx numbers as "90001", not "90001.0", so links still match.
    assert (xlsx.occupations, xlsx.tasks, xlsx.task_dwas, xlsx.dwas, xlsx.iwas, xlsx.gwas) == (
        text.occupations,
        text.tasks,
        text.task_dwas,
        text.dwas,
        text.iwas,
        text.gwas,
    )


@pytest.mark.parametrize("stem,column", [(s.stem, c) for s in onet.TABLES for c in s.required])
def test_renamed_required_column_names_file_and_column(tmp_path: Path, stem: str, column: str) -> None:
    folder = taxonomy.write_release(tmp_path / "db_29_1_text", rename={stem: (column, column + " (renamed)")})
    with pytest.raises(SourceFormatError) as err:
        onet.read_release(folder)
    assert err.value.path.endswith(f"{stem}.txt")
    assert repr(column) in str(err.value) and "missing required column" in str(err.value)


def test_renamed_column_in_xlsx_names_the_xlsx_file(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "r", "xlsx", rename={"Task Statements": ("Task ID", "TaskID")})
    with pytest.raises(SourceFormatError, match=r"Task Statements\.xlsx: missing required column 'Task ID'"):
        onet.read_release(folder)


def test_columns_are_matched_by_header_name_not_position(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "db_28_3_text")
    path = folder / "Task Statements.txt"
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    shuffled = [
        ["Extra Column", *reversed(r)] for r in rows
    ]  # reordered, plus a column a later release added
    path.write_text("\n".join("\t".join(r) for r in shuffled) + "\n", encoding="utf-8")
    release = onet.read_release(folder)
    assert release.release_id == "28.3"  # from the folder name
    assert release.tasks == onet.read_release(FIXTURE).tasks


def test_bad_soc_code_is_reported_with_file_and_line(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "r")
    path = folder / "Occupation Data.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(lines[3].split("\t")[0], "13-2011", 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"Occupation Data\.txt: line 4: .*NN-NNNN\.NN"):
        onet.read_release(folder)


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "r")
    (folder / "IWA Reference.txt").unlink()
    with pytest.raises(SourceFormatError, match=r"missing IWA Reference\.txt"):
        onet.read_release(folder)


def test_release_id_explicit_wins_and_unknown_is_an_error(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "plain")
    assert onet.read_release(folder, "30.0").release_id == "30.0"
    (folder / "Read Me.txt").unlink()
    with pytest.raises(SourceFormatError, match="--release"):
        onet.read_release(folder)


def test_links_to_unknown_tasks_are_set_aside_and_counted(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "r")
    with (folder / "Tasks to DWAs.txt").open("a", encoding="utf-8") as fh:
        fh.write("13-2011.00\t99999\t4.A.2.a.4.I01.D01\t08/2024\tx\n")
    release = onet.read_release(folder)
    assert release.skipped == {"task_dwa_link_unknown_task_or_dwa": 1}
    assert len(release.task_dwas) == _expected()[2]


def test_line_separator_characters_inside_a_statement_do_not_split_the_row(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "r")
    path = folder / "Task Statements.txt"
    lines = path.read_text(encoding="utf-8").split("\n")
    cells = lines[1].split("\t")
    cells[2] = cells[2] + "\u2028second line\x85third\x0cfourth"
    lines[1] = "\t".join(cells)
    path.write_text("\r\n".join(lines), encoding="utf-8")
    release = onet.read_release(folder)
    changed = next(t for t in release.tasks if t.task_id == cells[1])
    assert changed.statement.endswith("\u2028second line\x85third\x0cfourth")
    assert len(release.tasks) == _expected()[1]


def test_windows_1252_semicolon_labels_from_excel(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_bytes("Task ID;DIGITAL;Anmerkung\r\n1;yes;\r\n2;no;Kosten in €\r\n".encode("cp1252"))
    labels = read_digital_labels(path)
    assert {lab.task_id: lab.digital for lab in labels.labels} == {"1": True, "2": False}


def test_digital_labels_accept_common_spellings(tmp_path: Path) -> None:
    path = tmp_path / "labels.tsv"
    path.write_text(
        "task_id\tis_digital\n1\tYES\n2\tno\n3\tTrue\n4\t0\n5\tDIGITAL\n6\tnot_digital\n", encoding="utf-8"
    )
    labels = read_digital_labels(path)
    assert {lab.task_id: lab.digital for lab in labels.labels} == {
        "1": True,
        "2": False,
        "3": True,
        "4": False,
        "5": True,
        "6": False,
    }


def test_sample_labels_match_the_generator() -> None:
    labels = read_digital_labels(FIXTURE / "digital_labels.csv")
    assert [(lab.task_id, lab.digital) for lab in labels.labels] == taxonomy.task_labels()


@pytest.mark.parametrize(
    "body,message",
    [
        ("Task ID,DIGITAL\n1,maybe\n", r"line 2: column 'DIGITAL': 'maybe' is not a DIGITAL label"),
        ("Task ID,DIGITAL\n1,yes\n1,no\n", r"line 3: task 1 is labelled both ways"),
        ("id,DIGITAL\n1,yes\n", r"no task id column"),
    ],
)
def test_bad_labels_are_rejected(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(SourceFormatError, match=message):
        read_digital_labels(path)


def test_default_sectors_are_the_soc_major_groups() -> None:
    assert len(SOC_MAJOR_GROUPS) == 23
    occupations = [Occupation(soc_code=soc, title=title) for soc, title, *_ in taxonomy.OCCUPATIONS]
    assigned, sectors, scheme = assign_sectors(occupations, None)
    assert scheme == "soc2018-major-groups"
    assert {s.code for s in sectors} == {f"soc-{o.soc_code[:2]}" for o in occupations}
    assert assigned["13-2011.00"] == ("soc-13", "")


def test_sector_mapping_longest_prefix_wins_and_gaps_are_reported() -> None:
    mapping = SectorMapping(
        scheme="user:t",
        rules=(
            SectorAssignment(prefix="13", sector_code="biz", sector_name="Business"),
            SectorAssignment(
                prefix="13-2011",
                sector_code="fin",
                sector_name="Finance",
                sub_sector_code="fin/acc",
                sub_sector_name="Accounting",
            ),
        ),
    )
    occupations = [Occupation(soc_code=c, title="x") for c in ("13-2011.00", "13-1071.00", "15-1211.00")]
    assigned, sectors, _ = assign_sectors(occupations, mapping)
    assert assigned == {"13-2011.00": ("fin", "fin/acc"), "13-1071.00": ("biz", ""), "15-1211.00": ("", "")}
    assert {(s.code, s.level, s.parent_code) for s in sectors} == {
        ("biz", "sector", ""),
        ("fin", "sector", ""),
        ("fin/acc", "sub_sector", "fin"),
    }


def test_sample_sector_mapping_covers_every_sample_occupation() -> None:
    mapping = read_sector_mapping(FIXTURE / "sectors.csv")
    rows = release_rows(onet.read_release(FIXTURE), mapping)
    assert all(o.sector_code and o.sub_sector_code for o in rows.occupations)
    assert rows.scheme == "user:sectors.csv"


def test_bad_sector_prefix_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("soc,sector\n13-20x,Finance\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match="line 2: '13-20x' is not a SOC code or prefix"):
        read_sector_mapping(path)


# --- Real taxonomy files as they come (issue 11) ---


def test_quoted_statements_are_read_as_the_official_files_quote_them(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "db_29_1_text")
    path = folder / "Task Statements.txt"
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split("\t")
    column = header.index("Task")
    statements = {
        1: 'Conduct "head counts" of staff and record them.',  # quotes inside: written quoted, doubled
        2: 'Cut 12" pipe and "fit" it',  # starts bare: the writer quotes it all the same
        3: "Review budgets,\tforecasts and plans.",  # a tab inside: quoted too
    }
    for row, text in statements.items():
        cells = lines[row].split("\t")
        cells[column] = '"' + text.replace('"', '""') + '"'
        lines[row] = "\t".join(cells)
    bare = lines[4].split("\t")
    bare[column] = 'Measure 3" gaps in "stud" walls.'  # a bare field with quotes in it stays text
    lines[4] = "\t".join(bare)
    path.write_text("\n".join(lines), encoding="utf-8")
    release = onet.read_release(folder)
    by_id = {t.task_id: t.statement for t in release.tasks}
    ids = [ln.split("\t")[header.index("Task ID")] for ln in lines[1:5]]
    assert [by_id[i] for i in ids] == [*statements.values(), 'Measure 3" gaps in "stud" walls.']
    assert len(release.tasks) == len(onet.read_release(FIXTURE).tasks)


def test_tab_records_keep_bare_quotes_and_multi_line_quoted_fields() -> None:
    text = 'a\tb\n"x ""y"""\t"two\nlines"\n"open\tz\n'
    assert list(onet.tab_records(text)) == [
        (1, ["a", "b"]),
        (2, ['x "y"', "two\nlines"]),
        (4, ['"open', "z"]),
        (5, [""]),
    ]


def test_a_folder_mixing_txt_and_xlsx_is_read_table_by_table(tmp_path: Path) -> None:
    folder = taxonomy.write_release(tmp_path / "db_29_1_text")
    xlsx = taxonomy.write_release(tmp_path / "x", "xlsx")
    for stem in ("Task Statements", "DWA Reference"):
        (folder / f"{stem}.txt").unlink()
        (xlsx / f"{stem}.xlsx").rename(folder / f"{stem}.xlsx")
    release = onet.read_release(folder)
    text = onet.read_release(FIXTURE)
    assert release.source_format == "mixed"
    assert (release.tasks, release.dwas, release.task_dwas) == (text.tasks, text.dwas, text.task_dwas)
    (folder / "IWA Reference.txt").unlink()
    with pytest.raises(SourceFormatError, match=r"missing IWA Reference\.txt \(or \.xlsx\)$"):
        onet.read_release(folder)


def test_sector_codes_in_soc_structure_form_are_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "sectors.csv"
    path.write_text(
        "soc,sector\n11-0000,Management\n13-2000,Finance\n15-1200,Computing\n11-3030,Money\n"
        "13-1071,People\n29-1141.00,Care\n17,Engineering\n"
    )
    mapping = read_sector_mapping(path)
    assert [r.prefix for r in mapping.rules] == [
        "11",
        "13-2",
        "15-12",
        "11-303",
        "13-1071",
        "29-1141.00",
        "17",
    ]
    assigned, _, _ = assign_sectors(onet.read_release(FIXTURE).occupations, mapping)
    assert assigned["13-2011.00"][0] == "finance" and assigned["15-1211.00"][0] == "computing"
    assert assigned["11-3031.01"][0] == "money" and assigned["11-2021.00"][0] == "management"
    path.write_text("soc,sector\n11-0000,Management\n11,Again\n")
    with pytest.raises(SourceFormatError, match=r"line 3: '11' is mapped twice \(as '11-0000' before\)"):
        read_sector_mapping(path)


def test_a_mapping_that_matches_no_occupation_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sectors.csv"
    path.write_text("soc,sector\n53-0000,Transport\n55-1010,Military\n")
    release = onet.read_release(FIXTURE)
    with pytest.raises(
        SourceFormatError, match=r"matches none of the 23 occupations \(prefixes 53, 55-101\)"
    ):
        release_rows(release, read_sector_mapping(path))


@pytest.mark.parametrize("body", ['{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 200_000])
def test_hostile_labels_and_mapping_files_are_refused_with_a_reason(tmp_path: Path, body: str) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("task_id,digital\n" + body + "\n")
    with pytest.raises(SourceFormatError, match="line 2: not a CSV/TSV table"):
        read_digital_labels(path)
    with pytest.raises(SourceFormatError, match="not a CSV/TSV table|is not a SOC code"):
        read_sector_mapping(path)
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    with pytest.raises(SourceFormatError, match="not a regular file"):
        read_digital_labels(fifo)
    with pytest.raises(SourceFormatError, match="not a regular file"):
        read_sector_mapping(tmp_path)


def test_the_loaders_guide_lists_every_required_file_and_column() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "loaders.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| `load onet DIR` |"))
    for stem, columns in onet.required_columns().items():
        assert f"`{stem}` (" in row and all(f"`{c}`" in row for c in columns), stem


def test_release_paths_the_file_system_refuses_are_one_error(tmp_path: Path) -> None:
    with pytest.raises(SourceFormatError, match="File name too long"):
        onet.read_release(tmp_path / ("d" * 300))
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    with pytest.raises(SourceFormatError, match="not a folder"):
        onet.read_release(tmp_path / "loop")
    folder = taxonomy.write_release(tmp_path / "db_29_1_text")
    (folder / "Task Statements.txt").unlink()
    os.mkfifo(folder / "Task Statements.txt")  # never opened: not a regular file, so the table is missing
    with pytest.raises(SourceFormatError, match=r"missing Task Statements\.txt \(or \.xlsx\)"):
        onet.read_release(folder)
