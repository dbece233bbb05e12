"""Coverage-gain greedy (naive, lazy CELF, numpy), rebalancing, and the rule-based seed helpers."""

from __future__ import annotations

import hashlib
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphforge.models.seeds import TaskContext
from graphforge.seeds import selection as seeding
from graphforge.stages.build_seeds import (
    Proposal,
    classify_input,
    classify_pattern,
    evidence_for,
    is_supported,
    rule_based_proposals,
    seed_rows,
)
from graphforge.stages.select_seeds import GreedyMethod, SelectSeedsParams
from graphforge.vocab import load_vocabulary


def _candidates(rows: list[tuple[int, int, int, int, int]]) -> list[seeding.Candidate]:
    return [seeding.Candidate(key=f"s{i}", tie=seeding.tie_key(f"t{task}", f"s{i}"),
                              values=(f"o{o}", f"d{d}", f"p{p}", f"f{f}"))
            for i, (task, o, d, p, f) in enumerate(rows)]


# Few values per dimension and small initial counts: most rounds have many exact ties, and counts
# such as (1, 5) and (2, 2) give equal gains (1/2 + 1/6 = 1/3 + 1/3) whose float sums differ.
instances = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6), st.integers(0, 9), st.integers(0, 4),
                               st.integers(0, 3)), min_size=1, max_size=60)
initial_counts = st.dictionaries(
    st.sampled_from(["o0", "o1", "o2", "d0", "d3", "p0", "p1", "p2", "f0", "f1"]),
    st.integers(0, 6),
    max_size=8,
)
# Every way of splitting the dimensions into grouped (outer) and per-candidate (inner) parts, plus the
# automatic choice, must give the same order.
splits = st.sampled_from([None, (), (0,), (3,), (2, 3), (0, 2), (1, 3), (0, 1, 2), (0, 1, 2, 3)])
_DIMENSION_OF = {"o": "occupation", "d": "task_type", "p": "pattern", "f": "input_family"}


def _initial(flat: dict[str, int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for value, n in flat.items():
        out.setdefault(_DIMENSION_OF[value[0]], {})[value] = n
    return out


def _assert_all_equal(candidates: list[seeding.Candidate], n: int, initial: dict[str, dict[str, int]],
                      outer: tuple[int, ...] | None) -> None:
    naive = seeding.greedy_naive(candidates, n, initial)
    lazy = seeding.greedy_lazy(candidates, n, initial, outer=outer)
    vectorised = seeding.greedy_numpy(candidates, n, initial)
    assert lazy.order == naive.order == vectorised.order
    assert lazy.gains == naive.gains == vectorised.gains
    assert len(naive.order) == min(n, len(candidates))
    assert len(set(naive.order)) == len(naive.order)
    # The gains are the exact coverage gains of each pick, rounded once.
    taken = _initial({})
    for i, gain in zip(naive.order, naive.gains, strict=True):
        values = candidates[i].values
        exact = sum(Fraction(1, 1 + taken.get(d, {}).get(v, 0) + initial.get(d, {}).get(v, 0))
                    for d, v in zip(seeding.DIMENSIONS, values, strict=True))
        assert gain == float(exact)
        for d, v in zip(seeding.DIMENSIONS, values, strict=True):
            taken.setdefault(d, {})[v] = taken.get(d, {}).get(v, 0) + 1


@settings(max_examples=250, deadline=None)
@given(rows=instances, n=st.integers(0, 70), initial=initial_counts, outer=splits)
def test_lazy_and_numpy_greedy_equal_naive_exactly(rows: list[tuple[int, int, int, int, int]], n: int,
                                                   initial: dict[str, int],
                                                   outer: tuple[int, ...] | None) -> None:
    _assert_all_equal(_candidates(rows), n, _initial(initial), outer)


@settings(max_examples=60, deadline=None)
@given(rows=instances, n=st.integers(1, 70),
       initial=st.dictionaries(st.sampled_from(["o0", "o1", "d0", "p0", "p1", "f0"]),
                               st.integers(10 ** 4, 10 ** 6), min_size=1, max_size=6), outer=splits)
def test_greedy_stays_exact_with_huge_initial_counts(rows: list[tuple[int, int, int, int, int]], n: int,
                                                     initial: dict[str, int],
                                                   outer: tuple[int, ...] | None) -> None:
    # Counts this large leave the float-keyed fast paths' exact range: lazy switches to Fraction keys
    # and numpy falls back to the naive loop, with the same result.
    _assert_all_equal(_candidates(rows), n, _initial(initial), outer)


def test_equal_rational_gains_tie_even_when_their_float_sums_differ() -> None:
    # Pattern/family counts (1, 5) and (2, 2) both give 1/2 + 1/6 = 1/3 + 1/3, but summed in floats
    # the second is one ulp larger. The tie must go to the smaller task hash (t0 < t2), in every method.
    candidates = _candidates([(2, 2, 2, 2, 2), (0, 0, 0, 1, 1)])
    initial = {"pattern": {"p1": 1, "p2": 2}, "input_family": {"f1": 5, "f2": 2}}
    assert 1 + 1 + 1 / 2 + 1 / 6 < 1 + 1 + 1 / 3 + 1 / 3
    for method in seeding.METHODS:
        picked = seeding.greedy(candidates, 2, initial, method=method)
        assert picked.order == [1, 0]
        assert picked.gains == [8 / 3, 8 / 3]


def test_greedy_rejects_unknown_methods() -> None:
    with pytest.raises(ValueError, match="unknown greedy method"):
        seeding.greedy(_candidates([(0, 0, 0, 0, 0)]), 1, method="celf")


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


def test_lazy_stays_cheap_when_few_valued_dimensions_tie_most_of_the_pool() -> None:
    # 4 patterns and 3 input families: every pick lowers the gain of a third of the pool, the case
    # where one-level CELF re-evaluated most stale candidates on every pick.
    rows = [(i, (i * 7) % 150, (i * 13) % 400, i % 4, (i // 4) % 3) for i in range(6000)]
    candidates = _candidates(rows)
    naive = seeding.greedy_numpy(candidates, 150)
    grouped = seeding.greedy_lazy(candidates, 150)
    flat = seeding.greedy_lazy(candidates, 150, outer=())
    assert grouped.order == flat.order == naive.order and grouped.gains == naive.gains
    assert grouped.evaluations < flat.evaluations / 3
    assert grouped.evaluations < naive.evaluations / 30


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
    return TaskContext(
        task_id=task_id,
        statement=statement,
        soc_code="13-2011.00",
        occupation_title="Accountants and Auditors",
        dwas=[{"dwa_id": "4.A.2.a.4.I01.D02", "title": dwa_title, "iwa_title": "Analyze financial data"}],
    )


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
        Proposal(
            dwa_id=dwa,
            demand="Reconcile ledger accounts with bank statements",
            pattern="data cleaning and reconciliation",
            input_family="spreadsheet",
            evidence_quote="general ledger accounts",
        ),
        Proposal(
            dwa_id=dwa,
            demand="Design a marketing campaign for a new product",
            pattern="planning and scheduling",
            input_family="document",
            evidence_quote="bank statements",
        ),
        Proposal(
            dwa_id=dwa,
            demand="Reconcile accounts",
            pattern="not a pattern",
            input_family="pdf",
            evidence_quote="Reconcile",
        ),
        Proposal(
            dwa_id=dwa,
            demand="Reconcile accounts",
            pattern="data cleaning and reconciliation",
            input_family="pdf",
            evidence_quote="words that are not in the statement",
        ),
    ]
    rows, unsupported, invalid = seed_rows(task, proposals, evidence_for(task), VOCAB, 0.6, "llm", "m")
    assert [r.demand for r in rows] == ["Reconcile ledger accounts with bank statements"]
    assert (unsupported, invalid) == (2, 1)
    assert not is_supported(proposals[1], task.statement, 0.6)


def test_select_params_map_the_old_lazy_flag_to_the_naive_method() -> None:
    assert SelectSeedsParams(n=3).method is GreedyMethod.LAZY
    assert SelectSeedsParams(n=3, lazy=False).method is GreedyMethod.NAIVE
    assert SelectSeedsParams(n=3, method="numpy").method is GreedyMethod.NUMPY
    with pytest.raises(ValueError, match="conflicts"):
        SelectSeedsParams(n=3, lazy=False, method="numpy")
