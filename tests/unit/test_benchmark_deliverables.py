"""A benchmark record's ``deliverables``: the names the prompt asks for, read as given; a name that leaves the
working folder refuses its record (with the reason), the other records load."""

from __future__ import annotations

import json
from pathlib import Path

from loaders.benchmark import read_benchmark


def test_deliverable_names_load_and_an_escaping_name_refuses_its_record(tmp_path: Path) -> None:
    records = [
        {"task_id": "t-memo", "prompt": "Write memo.md and table.xlsx.",
         "deliverables": ["memo.md", "./out/table.xlsx"]},
        {"task_id": "t-none", "prompt": "Answer in a note."},
        {"task_id": "t-one", "prompt": "Write one.md.", "deliverables": "one.md"},
        {"task_id": "t-up", "prompt": "p", "deliverables": ["../escape.md"]},
        {"task_id": "t-abs", "prompt": "p", "deliverables": ["/etc/passwd"]},
        {"task_id": "t-num", "prompt": "p", "deliverables": [3]},
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    src = read_benchmark(tmp_path, "b")
    names = {t.task_id: t.deliverables for t in src.tasks}
    assert names == {"t-memo": ["memo.md", "out/table.xlsx"], "t-none": [], "t-one": ["one.md"]}
    outside = "is not a relative file name inside the working folder"
    assert src.refused == [
        f"tasks.jsonl: record 4: deliverable '../escape.md' {outside}",
        f"tasks.jsonl: record 5: deliverable '/etc/passwd' {outside}",
        "tasks.jsonl: record 6: deliverables must be a list of paths",
    ]
