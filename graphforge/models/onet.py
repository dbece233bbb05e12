"""O*NET taxonomy models: one release's tables as read from disk, and the rows written to Neo4j."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from graphforge.models.base import Frozen, Row

SOC_CODE_RE = re.compile(r"^\d{2}-\d{4}\.\d{2}$")


def check_soc_code(value: str) -> str:
    """Return ``value`` stripped if it is an O*NET-SOC code ``NN-NNNN.NN``, else raise ValueError."""
    code = value.strip()
    if not SOC_CODE_RE.match(code):
        raise ValueError(f"{value!r} is not an O*NET-SOC code of the form NN-NNNN.NN")
    return code


class _SocCoded(Frozen):
    soc_code: str

    @field_validator("soc_code")
    @classmethod
    def _valid_soc(cls, value: str) -> str:
        return check_soc_code(value)


class Occupation(_SocCoded):
    title: str = Field(min_length=1)
    description: str = ""


class TaskStatement(_SocCoded):
    task_id: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    task_type: str = ""  # "Core", "Supplemental" or empty (O*NET leaves some unrated)


class TaskDwaLink(_SocCoded):
    task_id: str
    dwa_id: str


class DwaReference(Frozen):
    element_id: str  # the GWA the DWA rolls up to
    iwa_id: str
    dwa_id: str
    title: str


class IwaReference(Frozen):
    element_id: str
    iwa_id: str
    title: str


class GwaReference(Frozen):
    """A generalized work activity: a Content Model element that IWAs roll up to."""

    element_id: str
    name: str
    description: str = ""


class OnetRelease(Frozen):
    """Everything GraphForge needs from one O*NET release, validated before anything is written."""

    release_id: str = Field(min_length=1)
    source_path: str
    source_format: Literal["txt", "xlsx", "mixed"]  # "mixed": some tables from .txt, some from .xlsx
    content_hash: str
    occupations: tuple[Occupation, ...]
    tasks: tuple[TaskStatement, ...]
    task_dwas: tuple[TaskDwaLink, ...]
    dwas: tuple[DwaReference, ...]
    iwas: tuple[IwaReference, ...]
    gwas: tuple[GwaReference, ...]
    # Rows the reader set aside (for example a task-DWA link to an unknown task), by reason.
    skipped: dict[str, int] = Field(default_factory=dict)


class SectorAssignment(Frozen):
    """One rule of a sector mapping: an O*NET-SOC code or a prefix of one -> sector (and sub-sector)."""

    prefix: str = Field(min_length=2)
    sector_code: str
    sector_name: str
    sub_sector_code: str = ""
    sub_sector_name: str = ""


class SectorMapping(Frozen):
    """A user's sector scheme; it replaces the default SOC 2018 major groups."""

    scheme: str
    source_path: str = ""
    rules: tuple[SectorAssignment, ...]


class DigitalLabel(Frozen):
    task_id: str
    digital: bool


class DigitalLabels(Frozen):
    """DIGITAL annotations (AI4Work style): which task statements an agent can do on a computer."""

    source: str
    content_hash: str
    labels: tuple[DigitalLabel, ...]


# Rows written to Neo4j: fields == Cypher row.* keys == node properties.


class ReleaseRow(Row):
    release_id: str
    source_path: str
    source_format: str
    content_hash: str
    occupations: int
    tasks: int
    dwas: int
    iwas: int
    gwas: int
    task_dwa_links: int
    sector_scheme: str


class GwaRow(Row):
    element_id: str
    name: str
    description: str


class IwaRow(Row):
    iwa_id: str
    title: str
    element_id: str


class DwaRow(Row):
    dwa_id: str
    title: str
    iwa_id: str


class SectorRow(Row):
    code: str
    name: str
    scheme: str
    level: Literal["sector", "sub_sector"]
    parent_code: str  # "" for top-level sectors


class OccupationRow(Row):
    soc_code: str
    title: str
    description: str
    release_id: str
    sector_code: str  # "" when the mapping leaves the occupation out
    sub_sector_code: str


class TaskRow(Row):
    task_id: str
    soc_code: str
    statement: str
    task_type: str
    release_id: str


class TaskDwaRow(Row):
    task_id: str
    dwa_id: str


class DigitalRow(Row):
    task_id: str
    digital: bool
    digital_source: str
    digital_model: str
