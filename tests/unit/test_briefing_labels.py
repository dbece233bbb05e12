"""A briefing deck names each figure's entity on a slide: a name, not the words a sentence had before it."""

from __future__ import annotations

import pytest

from graphforge.specs.families.briefing_deck import _names_something


@pytest.mark.parametrize("entity", ["Treasury", "Federal Offshore Alaska", "the Gulf of Mexico", "DOI — ONRR",
                                    "Services", "Region 4"])
def test_names_a_slide_can_carry(entity: str) -> None:
    assert _names_something(entity)


@pytest.mark.parametrize("entity", ["conducted by the us census there were", "the", "of which",
                                    "total revenue in the year that"])
def test_sentence_debris_is_not_an_entity(entity: str) -> None:
    assert not _names_something(entity)
