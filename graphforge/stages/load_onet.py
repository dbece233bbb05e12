"""Load an O*NET release into Neo4j: work-activity hierarchy, sectors, occupations, tasks.

The release folder (and the sector mapping) are read and validated completely by the readers in
``loaders/`` before the first write, so a bad release or a mapping that matches nothing writes
nothing and prunes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.graphdb import cypher
from graphforge.models.onet import (
    DwaRow,
    GwaRow,
    IwaRow,
    OccupationRow,
    OnetRelease,
    ReleaseRow,
    SectorMapping,
    SectorRow,
    TaskDwaRow,
    TaskRow,
)
from graphforge.seeds.sectors import assign_sectors, unused_rules
from loaders.labels import read_sector_mapping
from loaders.onet import read_release

MERGE_RELEASE = cypher.load("onet/merge_release")
MERGE_GWAS = cypher.load("onet/merge_gwas")
MERGE_IWAS = cypher.load("onet/merge_iwas")
MERGE_DWAS = cypher.load("onet/merge_dwas")
MERGE_SECTORS = cypher.load("onet/merge_sectors")
MERGE_OCCUPATIONS = cypher.load("onet/merge_occupations")
LINK_OCCUPATION_SECTORS = cypher.load("onet/link_occupation_sectors")
MERGE_TASKS = cypher.load("onet/merge_tasks")
LINK_TASK_DWAS = cypher.load("onet/link_task_dwas")
DELETE_ORPHAN_SECTORS = cypher.load("onet/delete_orphan_sectors")


class LoadOnetParams(BaseModel):
    """Options of the load_onet stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    path: Path = Field(description="The unpacked release folder (.txt and/or .xlsx tables).")
    release_id: str | None = Field(None, description="Default: from the folder name or Read Me.txt.")
    sectors: Path | None = Field(None,
        description="A sector mapping file replacing the SOC 2018 major groups.")
    # Remove Sector nodes no occupation uses any more (after switching sector schemes).
    prune_sectors: bool = True


class LoadOnetResult(BaseModel):
    """What the load_onet stage did."""

    release_id: str
    source_format: str
    sector_scheme: str
    occupations: int
    tasks: int
    dwas: int
    iwas: int
    gwas: int
    task_dwa_links: int
    sectors: int
    sub_sectors: int
    occupations_without_sector: list[str]
    unused_sector_rules: list[str]  # mapping prefixes no occupation of this release starts with
    sectors_pruned: int
    skipped_rows: dict[str, int]


class ReleaseRows(NamedTuple):
    header: ReleaseRow
    occupations: list[OccupationRow]
    tasks: list[TaskRow]
    links: list[TaskDwaRow]
    dwas: list[DwaRow]
    iwas: list[IwaRow]
    gwas: list[GwaRow]
    sectors: list[SectorRow]
    scheme: str


def release_rows(release: OnetRelease, sectors: SectorMapping | None = None) -> ReleaseRows:
    """The rows to write for a release (pure: unit-tested without Neo4j)."""
    assigned, sector_rows, scheme = assign_sectors(release.occupations, sectors)
    rid = release.release_id
    occupations = [
        OccupationRow(
            soc_code=o.soc_code,
            title=o.title,
            description=o.description,
            release_id=rid,
            sector_code=assigned[o.soc_code][0],
            sub_sector_code=assigned[o.soc_code][1],
        )
        for o in release.occupations
    ]
    tasks = [TaskRow(task_id=t.task_id, soc_code=t.soc_code, statement=t.statement, task_type=t.task_type,
                     release_id=rid) for t in release.tasks]
    links = [TaskDwaRow(task_id=lk.task_id, dwa_id=lk.dwa_id) for lk in release.task_dwas]
    dwas = [DwaRow(dwa_id=d.dwa_id, title=d.title, iwa_id=d.iwa_id) for d in release.dwas]
    iwas = [IwaRow(iwa_id=i.iwa_id, title=i.title, element_id=i.element_id) for i in release.iwas]
    gwas = [GwaRow(element_id=g.element_id, name=g.name, description=g.description) for g in release.gwas]
    header = ReleaseRow(release_id=rid, source_path=release.source_path, source_format=release.source_format,
                        content_hash=release.content_hash, occupations=len(occupations), tasks=len(tasks),
                        dwas=len(dwas), iwas=len(iwas), gwas=len(gwas), task_dwa_links=len(links),
                        sector_scheme=scheme)
    return ReleaseRows(header, occupations, tasks, links, dwas, iwas, gwas, sector_rows, scheme)


def run(ctx: StageContext, params: LoadOnetParams) -> LoadOnetResult:
    """Read and validate, then write with batched UNWIND ... MERGE; re-running it changes no counts."""
    sectors = read_sector_mapping(params.sectors) if params.sectors is not None else None
    release = read_release(params.path, params.release_id)
    header, occupations, tasks, links, dwas, iwas, gwas, sector_rows, scheme = release_rows(release, sectors)
    graph = ctx.graph
    # Parents before children: each query MATCHes the nodes the previous one merged.
    graph.write(MERGE_RELEASE, [header])
    graph.write(MERGE_GWAS, gwas)
    graph.write(MERGE_IWAS, iwas)
    graph.write(MERGE_DWAS, dwas)
    graph.write(MERGE_SECTORS, sector_rows)
    graph.write(MERGE_OCCUPATIONS, occupations)
    graph.write(LINK_OCCUPATION_SECTORS, occupations)
    graph.write(MERGE_TASKS, tasks)
    graph.write(LINK_TASK_DWAS, links)
    pruned = graph.execute(DELETE_ORPHAN_SECTORS)[0]["written"] if params.prune_sectors else 0
    return LoadOnetResult(
        release_id=release.release_id, source_format=release.source_format, sector_scheme=scheme,
        occupations=len(occupations), tasks=len(tasks), dwas=len(dwas), iwas=len(iwas), gwas=len(gwas),
        task_dwa_links=len(links), sectors=sum(1 for s in sector_rows if s.level == "sector"),
        sub_sectors=sum(1 for s in sector_rows if s.level == "sub_sector"),
        occupations_without_sector=sorted(o.soc_code for o in occupations if not o.sector_code),
        unused_sector_rules=unused_rules(release.occupations, sectors),
        sectors_pruned=int(pruned), skipped_rows=dict(release.skipped))
