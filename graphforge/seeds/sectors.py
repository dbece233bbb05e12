"""Sectors for occupations: the 23 SOC 2018 major groups by default, or a user's mapping file."""

from __future__ import annotations

from collections.abc import Sequence

from graphforge.errors import SourceFormatError
from graphforge.models.onet import Occupation, SectorMapping, SectorRow

DEFAULT_SCHEME = "soc2018-major-groups"

# The two-digit prefix of an O*NET-SOC code is its SOC 2018 major group.
SOC_MAJOR_GROUPS: dict[str, str] = {
    "11": "Management",
    "13": "Business and Financial Operations",
    "15": "Computer and Mathematical",
    "17": "Architecture and Engineering",
    "19": "Life, Physical, and Social Science",
    "21": "Community and Social Service",
    "23": "Legal",
    "25": "Educational Instruction and Library",
    "27": "Arts, Design, Entertainment, Sports, and Media",
    "29": "Healthcare Practitioners and Technical",
    "31": "Healthcare Support",
    "33": "Protective Service",
    "35": "Food Preparation and Serving Related",
    "37": "Building and Grounds Cleaning and Maintenance",
    "39": "Personal Care and Service",
    "41": "Sales and Related",
    "43": "Office and Administrative Support",
    "45": "Farming, Fishing, and Forestry",
    "47": "Construction and Extraction",
    "49": "Installation, Maintenance, and Repair",
    "51": "Production",
    "53": "Transportation and Material Moving",
    "55": "Military Specific",
}


def major_group_code(soc_code: str) -> str:
    return f"soc-{soc_code[:2]}"


def assign_sectors(occupations: Sequence[Occupation], mapping: SectorMapping | None
                   ) -> tuple[dict[str, tuple[str, str]], list[SectorRow], str]:
    """Sector and sub-sector code per SOC code, the Sector rows they need, and the scheme name.

    With a mapping the longest matching prefix wins; occupations it does not cover get no sector
    (and are reported), rather than silently falling back to the default scheme. A mapping that
    covers no occupation at all is refused (SourceFormatError) before anything is written.
    """
    assigned: dict[str, tuple[str, str]] = {}
    sectors: dict[str, SectorRow] = {}
    if mapping is None:
        for occ in occupations:
            group = occ.soc_code[:2]
            code = major_group_code(occ.soc_code)
            name = SOC_MAJOR_GROUPS.get(group, f"SOC major group {group}")
            sectors[code] = SectorRow(
                code=code, name=name, scheme=DEFAULT_SCHEME, level="sector", parent_code=""
            )
            assigned[occ.soc_code] = (code, "")
        return assigned, sorted(sectors.values(), key=lambda s: s.code), DEFAULT_SCHEME
    rules = sorted(mapping.rules, key=lambda r: len(r.prefix), reverse=True)
    if not any(occ.soc_code.startswith(r.prefix) for occ in occupations for r in rules):
        # Loading it would leave every occupation without a sector and prune every Sector node.
        shown = ", ".join(r.prefix for r in mapping.rules[:5]) + (", ..." if len(mapping.rules) > 5 else "")
        raise SourceFormatError(mapping.source_path or mapping.scheme,
                                f"the sector mapping matches none of the {len(occupations)} occupations "
                                f"(prefixes {shown}); nothing loaded")
    for occ in occupations:
        rule = next((r for r in rules if occ.soc_code.startswith(r.prefix)), None)
        if rule is None:
            assigned[occ.soc_code] = ("", "")
            continue
        sectors[rule.sector_code] = SectorRow(
            code=rule.sector_code,
            name=rule.sector_name,
            scheme=mapping.scheme,
            level="sector",
            parent_code="",
        )
        if rule.sub_sector_code:
            sectors[rule.sub_sector_code] = SectorRow(code=rule.sub_sector_code, name=rule.sub_sector_name,
                                                      scheme=mapping.scheme, level="sub_sector",
                                                      parent_code=rule.sector_code)
        assigned[occ.soc_code] = (rule.sector_code, rule.sub_sector_code)
    return assigned, sorted(sectors.values(), key=lambda s: (s.level, s.code)), mapping.scheme


def unused_rules(occupations: Sequence[Occupation], mapping: SectorMapping | None) -> list[str]:
    """Prefixes of a mapping that no occupation of the release starts with (reported, not fatal)."""
    if mapping is None:
        return []
    return [r.prefix for r in mapping.rules if not any(o.soc_code.startswith(r.prefix) for o in occupations)]
