"""An export that wrote no row says why (a user must not read 0 rows and exit 0 as success)."""

from __future__ import annotations

from graphforge.export.dataset import ExportSummary, empty_reason


def _summary(**kw: object) -> ExportSummary:
    # Only the counts matter here; the file entries and token statistics are left out.
    base: dict[str, object] = {"export_id": "e", "kind": "rft", "out_dir": "/x", "rows": 0, "seen": 1,
                               "excluded_over_length": 0, "excluded_no_assistant_turn": 0, "selection": None}
    base.update(kw)
    return ExportSummary.model_construct(**base)  # type: ignore[arg-type]


def test_a_single_admitted_trajectory_under_k_is_explained() -> None:
    why = empty_reason(_summary(selection={"under_k": 1, "queries": 0, "picks": 0}))
    assert why is not None and "fewer than --k" in why


def test_an_sft_export_with_nothing_admitted_says_what_to_run() -> None:
    why = empty_reason(_summary(kind="sft", seen=0))
    assert why is not None and "graphforge admit" in why


def test_an_export_with_rows_is_not_empty() -> None:
    assert empty_reason(_summary(rows=3)) is None
