"""A family's rows reach it in document order, whatever order the store collected their fact ids in: the same
files compile to the same spec (CI once saw an unchanged workspace get a second version of a checklist)."""

from __future__ import annotations

import random

from graphforge.specs.families import FamilyInput, SeedContext
from graphforge.specs.families.compliance_checklist import FAMILY
from graphforge.specs.templates import GraphFact, WorkspaceGraph
from graphforge.stages.compile_specs import in_document_order
from graphforge.stores.specs import content_key

PATH = "policy/records_handbook.md"
SUBJECTS = ["records officer", "case clerk", "team lead", "archivist", "auditor", "manager", "deputy",
            "registrar", "assistant", "coordinator", "supervisor", "director"]
RULES = [f"The {who} shall review every case file in the register before it is closed for good."
         for who in SUBJECTS]


def _fact(i: int, text: str) -> GraphFact:
    # Ids in an order unlike the document's, as hashed ids are.
    return GraphFact(fact_id=f"fact-{(i * 7) % 12:02d}", statement=text, value=text, value_num=None,
                     unit=None, metric=None, entity=None, period=None, span_id=f"span-{i}",
                     locator=f"section={i + 1}", ordinal=i, span_text=text, path=PATH, role="core",
                     kind="requirement", normalized=text.lower().rstrip("."))


def test_lists_of_fact_ids_come_in_document_order_and_other_values_stay() -> None:
    facts = [_fact(i, r) for i, r in enumerate(RULES)]
    ids = [f.fact_id for f in facts]
    shuffled = random.Random(3).sample(ids, len(ids))
    pairs = [["fact-09", "fact-00"], ["fact-01", "fact-02"]]
    [row] = in_document_order([{"requirements": shuffled, "changes": pairs, "sha256": "abc", "n": 3}], facts)
    assert row["requirements"] == ids
    assert row["changes"] == pairs and row["sha256"] == "abc" and row["n"] == 3
    # An id the gathered facts lack goes last (by id), never dropped.
    [row] = in_document_order([{"ids": ["fact-zz", ids[5], ids[0]]}], facts)
    assert row["ids"] == [ids[0], ids[5], "fact-zz"]


def test_a_checklist_is_the_same_spec_whatever_order_its_requirements_were_collected_in() -> None:
    facts = [_fact(i, r) for i, r in enumerate(RULES)]
    graph = WorkspaceGraph(workspace_id="ws-rec", name="Records", files=[PATH], facts=facts, edges=[])
    keys = set()
    for seed in range(6):
        collected = random.Random(seed).sample([f.fact_id for f in facts], len(facts))
        rows = in_document_order([{"sha256": "x", "requirements": collected}], facts)
        spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(), rows=rows))
        assert spec is not None
        keys.add(content_key(spec))
    assert len(keys) == 1
