"""Coverage-gain greedy (naive, lazy CELF, numpy), rebalancing, and the rule-based seed helpers."""

from __future__ import annotations

import hashlib
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from graphforge import seeding
from graphforge.models.seeds import TaskContext
from graphforge.stages.build_seeds import (
    Proposal,
    classify_input,
    classify_pattern,
    evidence_for,
    is_supported,
    rule_based_proposals,
    seed_rows,
)
from graphforge.vocab import load_vocabulary


def _candidates(rows: list[tuple[int, int, int, int, int]]) -> list[seeding.Candidate]:
    return [seeding.Candidate(key=f"s{i}", tie=seeding.tie_key(f"t{task}", f"s{i}"),
                              values=(f"o{o}", f"d{d}", f"p{p}", f"f{f}"))
            for i, (task, o, d, p, f) in enumerate(rows)]


instances = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6), st.integers(0, 9), st.integers(0, 4),
                               st.integers(0, 3)), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(rows=instances, n=st.integers(0, 70),
       initial=st.dictionaries(st.sampled_from(["o1", "o2", "d3"]), st.integers(1, 4), max_size=3))
def test_lazy_and_numpy_greedy_equal_naive_exactly(rows: list[tuple[int, int, int, int, int]], n: int,
                                                   initial: dict[str, int]) -> None:
    candidates = _candidates(rows)
    counts = {"occupation": {k: v for k, v in initial.items() if k[0] == "o"},
              "task_type": {k: v for k, v in initial.items() if k[0] == "d"}}
    naive = seeding.greedy_naive(candidates, n, counts)
    lazy = seeding.greedy_lazy(candidates, n, counts)
    vectorised = seeding.greedy_numpy(candidates, n, counts)
    assert lazy.order == naive.order == vectorised.order
    assert lazy.gains == naive.gains == vectorised.gains
    assert len(naive.order) == min(n, len(candidates))
    assert lazy.evaluations <= naive.evaluations + len(candidates)


def test_gain_is_the_sum_of_inverse_counts() -> None:
    # Counts already in the graph: occupation o0 once, pattern p0 three times.
    initial = {"occupation": {"o0": 1}, "pattern": {"p0": 3}}
    first = seeding.greedy_naive(_candidates([(1, 0, 0, 0, 0)]), 1, initial)
    assert first.gains == [1 / 2 + 1 + 1 / 4 + 1]
    # A second seed sharing every value with the first gains 1/2 on each dimension.
    both = seeding.greedy_naive(_candidates([(1, 0, 0, 0, 0), (1, 0, 0, 0, 0)]), 2)
    assert both.gains == [4.0, 2.0]


def test_ties_break_by_the_hash_of_the_task_id() -> None:
    rows = [(task, task, task, task, task) for task in range(8)]  # all disjoint: every gain ties at 4
    order = seeding.greedy_lazy(_candidates(rows), 8).order
    hashes = [hashlib.sha256(f"t{rows[i][0]}".encode()).hexdigest() for i in order]
    assert hashes == sorted(hashes)


def test_lazy_saves_gain_evaluations() -> None:
    rows = [(i, i % 40, i % 97, i % 16, i % 9) for i in range(600)]
    naive = seeding.greedy_naive(_candidates(rows), 200)
    lazy = seeding.greedy_lazy(_candidates(rows), 200)
    assert lazy.order == naive.order
    assert lazy.evaluations < naive.evaluations / 5


def _items(spec: list[tuple[str, str, str]]) -> list[seeding.RebalanceItem]:
    return [seeding.RebalanceItem(index=i, pattern=p, sector=s, demand=d) for i, (p, s, d) in enumerate(spec)]


def test_rebalance_gives_patterns_equal_quotas_and_caps_repeated_demands() -> None:
    # The greedy favoured pattern A; rebalancing must share 4 picks 2/2 between A and B.
    items = _items([("A", "s1", "x"), ("A", "s1", "y"), ("A", "s2", "z"), ("A", "s2", "x"),
                    ("B", "s1", "w"), ("B", "s2", "v"), ("B", "s2", "x")])
    out = seeding.rebalance(items, 4, demand_cap=1)
    picked = [items[i] for i in out.order]
    assert Counter(p.pattern for p in picked) == {"A": 2, "B": 2}
    assert len({p.demand for p in picked}) == len(picked)
    assert out.pattern_quota == 2 and out.relaxed_picks == 0


def test_rebalance_round_robins_over_sectors() -> None:
    items = _items([("A", "s1", "a"), ("A", "s1", "b"), ("A", "s1", "c"), ("A", "s2", "d"), ("A", "s3", "e")])
    out = seeding.rebalance(items, 3)
    assert [items[i].sector for i in out.order] == ["s1", "s2", "s3"]


def test_rebalance_lifts_the_quota_only_when_it_must() -> None:
    items = _items([("A", "s1", "a"), ("A", "s1", "b"), ("A", "s2", "c"), ("B", "s1", "d")])
    out = seeding.rebalance(items, 4)
    assert len(out.order) == 4 and out.relaxed_picks == 1  # quota 2 for A is exceeded once, counted


VOCAB = load_vocabulary()


def _task(statement: str, dwa_title: str, task_id: str = "90001") -> TaskContext:
    return TaskContext(task_id=task_id, statement=statement, soc_code="13-2011.00",
                       occupation_title="Accountants and Auditors",
                       dwas=[{"dwa_id": "4.A.2.a.4.I01.D02", "title": dwa_title, "iwa_title": "Analyze financial data"}])


def test_accountant_quarterly_reporting_is_data_analysis_from_spreadsheets() -> None:
    task = _task("Prepare quarterly financial statements and management reports from the general ledger and "
                 "supporting spreadsheets.", "Prepare financial statements or financial reports")
    pattern = classify_pattern(task, task.dwas[0], VOCAB)
    assert pattern == "data analysis and reporting"
    assert classify_input(task, task.dwas[0], pattern, VOCAB) == "spreadsheet"


def test_rule_based_demands_cite_the_task_statement_and_ids_are_deterministic() -> None:
    task = _task("Reconcile general ledger accounts with bank statements and correct discrepancies.",
                 "Reconcile accounts or financial records")
    evidence = evidence_for(task)
    rows, unsupported, invalid = seed_rows(task, rule_based_proposals(task, VOCAB), evidence, VOCAB, 0.6,
                                           "rule-based", "")
    again, _, _ = seed_rows(task, rule_based_proposals(task, VOCAB), evidence_for(task), VOCAB, 0.6,
                            "rule-based", "")
    assert (unsupported, invalid) == (0, 0) and len(rows) == 1
    assert rows == again
    assert rows[0].demand_source == "rule-based" and rows[0].evidence_id == evidence.evidence_id
    assert rows[0].evidence_quote == task.statement


def test_unsupported_and_out_of_vocabulary_demands_are_dropped_and_counted() -> None:
    task = _task("Reconcile general ledger accounts with bank statements.", "Reconcile accounts")
    dwa = task.dwas[0]["dwa_id"]
    proposals = [
        Proposal(dwa_id=dwa, demand="Reconcile ledger accounts with bank statements", pattern="data cleaning and "
                 "reconciliation", input_family="spreadsheet", evidence_quote="general ledger accounts"),
        Proposal(dwa_id=dwa, demand="Design a marketing campaign for a new product", pattern="planning and "
                 "scheduling", input_family="document", evidence_quote="bank statements"),
        Proposal(dwa_id=dwa, demand="Reconcile accounts", pattern="not a pattern", input_family="pdf",
                 evidence_quote="Reconcile"),
        Proposal(dwa_id=dwa, demand="Reconcile accounts", pattern="data cleaning and reconciliation",
                 input_family="pdf", evidence_quote="words that are not in the statement"),
    ]
    rows, unsupported, invalid = seed_rows(task, proposals, evidence_for(task), VOCAB, 0.6, "llm", "m")
    assert [r.demand for r in rows] == ["Reconcile ledger accounts with bank statements"]
    assert (unsupported, invalid) == (2, 1)
    assert not is_supported(proposals[1], task.statement, 0.6)
