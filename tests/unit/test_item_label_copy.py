"""A text item's name, copied from the request, does not state the item: the judge reads past it."""

from __future__ import annotations

from graphforge.judge.item_text import states

LABEL = ("the item under 'Checklist for closing a case' that begins "
         "'Confirm that the signed application form…'")
EXPECTED = "confirm signed application form case file"


def _states(line: str) -> bool:
    return states(line, "list_item", EXPECTED, None, LABEL, 0.0, (1.0,))


def test_the_copied_name_alone_states_nothing() -> None:
    assert not _states(f"{LABEL}: not stated in the documents (source: records_handbook.md)")
    assert not _states("- Confirm that the signed application form… (records_handbook.md)")


def test_the_item_written_out_states_it_with_or_without_its_name() -> None:
    assert _states(f"{LABEL}: Confirm that the signed application form is in the case file (records.md)")
    assert _states("Confirm that the signed application form is in the case file")
