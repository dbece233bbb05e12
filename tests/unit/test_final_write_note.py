"""The turn that tells a rollout to write a missing deliverable quotes what the task asked of it."""

from __future__ import annotations

from graphforge.agent.loop import final_write_note

STATEMENT = """Could you write a short status summary: each item, its recorded status?

What I need back in the output folder:
- status.md: a Markdown report with the sections Status by item, Open items and Sources
- review.xlsx: a workbook with the sheets Review and Sources

Deliverables to write:
- status.md
- review.xlsx"""


def test_the_task_line_about_the_deliverable_is_quoted() -> None:
    note = final_write_note("status.md", STATEMENT)
    assert note == ('status.md is not written yet. The task asks: "- status.md: a Markdown report with the '
                    'sections Status by item, Open items and Sources" Write it now with write_file, from '
                    "what you have read.")
    assert "the sheets Review and Sources" in final_write_note("review.xlsx", STATEMENT)
    assert "run_python" in final_write_note("review.xlsx", STATEMENT)


def test_a_bare_list_item_or_an_unnamed_deliverable_gets_the_plain_note() -> None:
    bare = "Deliverables to write:\n- notes.md\n"
    plain = "notes.md is not written yet. Write it now with write_file, from what you have read."
    assert final_write_note("notes.md", bare) == plain
    assert final_write_note("notes.md", STATEMENT) == plain
    assert final_write_note("notes.md") == plain
    # a line about another file whose name ends the same is not about this one
    assert final_write_note("notes.md", "- footnotes.md: the footnotes, one per line") == plain
