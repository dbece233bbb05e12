"""Spec versions without Neo4j: a version is the same spec under a new id; content keys ignore ids only."""

from __future__ import annotations

from graphforge.stores.specs import as_version, content_key
from tests.unit._judge_sample import sample_spec


def test_a_new_version_moves_every_id_and_keeps_the_content() -> None:
    v1 = sample_spec()
    v2 = as_version(v1, 2)
    assert (v2.spec_id, v2.version, v2.base_id) == ("demo-recon@v2", 2, v1.base_id)
    assert all(d.deliverable_id.startswith("demo-recon@v2/") for d in v2.deliverables)
    moved = [c.criterion_id.replace("@v1/", "@v2/") for c in v1.criteria]
    assert [c.criterion_id for c in v2.criteria] == moved
    assert [c.anchors for c in v2.criteria] == [c.anchors for c in v1.criteria]
    assert content_key(v2) == content_key(v1)


def test_the_content_key_changes_with_what_the_spec_asks_or_checks() -> None:
    v1 = sample_spec()
    first = v1.criteria[0]
    moved = v1.model_copy(update={"criteria": [first.model_copy(update={"anchors": ["f-inv", "f-other"]}),
                                               *v1.criteria[1:]]})
    reworded = v1.model_copy(update={"statement": v1.statement + " By Friday."})
    keys = {content_key(v1), content_key(moved), content_key(reworded)}
    assert len(keys) == 3
