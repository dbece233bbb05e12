"""One number parser and one computation grammar: rendered figures read back as the value the test chose."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.figures.formula import compute
from graphforge.figures.numbers import find_numbers, parse_number, parse_value
from graphforge.specs.checks import recompute

# --- the disagreements the issue found, each pinned to the value an office worker would read ----------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("EUR 1.2 million", 1_200_000.0),
        ("–45", -45.0),
        ("—45", -45.0),
        ("−45", -45.0),
        ("(45)", -45.0),
        ("$1,234.50", 1234.5),
        ("1.234.567,89", 1234567.89),
        ("1 234 567", 1234567.0),
        ("1\u202f234,5", 1234.5),
        ("12,5", 12.5),
        ("1,500", 1500.0),
        ("1 200 €", 1200.0),
        ("1,200 USD", 1200.0),
        ("2.5bn", 2.5e9),
        ("12.5%", 12.5),
    ],
)
def test_every_reader_agrees_on_a_printed_figure(text: str, expected: float) -> None:
    assert parse_value(text) == pytest.approx(expected)
    assert parse_number(text) == pytest.approx(expected)
    if text not in _CELL_ONLY:
        found = [v for v, _, _ in find_numbers(f"The figure was {text} in the year.")]
        assert found == [pytest.approx(expected)]


# Plain-space grouping and a bare decimal comma are read only when a cell holds nothing else: in running
# text "1 234 567" is three numbers and "items 1,2" a list.
_CELL_ONLY = {"1 234 567", "12,5", "1 200 €"}


def test_cells_that_are_not_one_grouped_figure_are_not_read_as_one() -> None:
    assert parse_value("12 34") is None
    assert parse_value("1 23") is None
    assert parse_value("7 of 12") is None


def test_running_text_lists_are_not_decimal_commas() -> None:
    found = [v for v, _, _ in find_numbers("see items 1,2 and 3")]
    assert 1.2 not in found and 3.0 in found


def test_difference_of_three_anchors_subtracts_every_later_anchor() -> None:
    assert compute("difference", [10, 3, 2]) == 5
    assert recompute("difference", [10, 3, 2]) == 5
    assert compute("difference:2", [10, 3, 2]) == 7


def test_divisor_applies_to_every_operation_in_both_entry_points() -> None:
    # (120 - 100) / 100 = 0.2 as a fraction; "/100" divides the result like any other op's result.
    assert compute("change/100", [120, 100]) == pytest.approx(0.002)
    assert recompute("change/100", [120, 100]) == pytest.approx(0.002)
    assert recompute("sum:2/1000", [1500, 2500, 4000]) == pytest.approx(4.0)


def test_unknown_computation_is_refused() -> None:
    with pytest.raises(ValueError, match="undefined"):
        recompute("median", [1, 2, 3])


# --- property tests: the value chosen by the test, rendered as offices print it, parses back -----------

_LOCALES = ["en", "de", "fr", "ch", "plain"]


def _render(cents: int, decimals: int, locale: str, negative_style: str, currency: str) -> tuple[str, float]:
    """Render |cents|/100 with the given conventions; return the text and the value it must read as."""
    value = Decimal(abs(cents)) / 100
    q = Decimal(1).scaleb(-decimals)
    value = value.quantize(q, rounding=ROUND_HALF_EVEN)
    whole, _, frac = f"{value:f}".partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    sep, dec = {"en": (",", "."), "de": (".", ","), "fr": ("\u202f", ","), "ch": ("'", "."),
                "plain": ("", ".")}[locale]
    if locale == "de" and len(groups) > 1 and not frac:
        sep = "."  # "1.234" alone reads as a decimal in English files; German files then carry ",00"
        frac, decimals = "00", 2
    body = sep.join(groups) + (dec + frac if frac else "")
    expected = float(value)
    if cents < 0 and expected != 0:
        expected = -expected
        body = {"paren": f"({body})", "hyphen": f"-{body}", "en": f"–{body}",
                "minus": f"−{body}"}[negative_style]
    text = {"none": body, "usd": f"${body}" if not body.startswith(("(", "-", "–", "−")) else body,
            "eur-after": f"{body} €", "code": f"USD {body}"}[currency]
    return text, expected


@settings(max_examples=300, deadline=None)
@given(
    cents=st.integers(min_value=-10**12, max_value=10**12),
    decimals=st.integers(min_value=0, max_value=2),
    locale=st.sampled_from(_LOCALES),
    negative_style=st.sampled_from(["paren", "hyphen", "en", "minus"]),
    currency=st.sampled_from(["none", "usd", "eur-after", "code"]),
)
def test_rendered_figures_parse_back_to_the_chosen_value(cents: int, decimals: int, locale: str,
                                                         negative_style: str, currency: str) -> None:
    text, expected = _render(cents, decimals, locale, negative_style, currency)
    if locale == "de" and "." not in text and "," not in text:
        locale = "plain"  # a German figure under 1,000 with no decimals is just digits
    got = parse_value(text)
    assert got is not None, text
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-9), text


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(min_value=-10**9, max_value=10**9),
    b=st.integers(min_value=1, max_value=10**9),
    c=st.integers(min_value=-10**6, max_value=10**6),
    divisor=st.sampled_from([1, 100, 1000]),
)
def test_evaluator_matches_an_independent_reference(a: int, b: int, c: int, divisor: int) -> None:
    values = [float(a), float(b), float(c)]
    reference = {
        "sum": (a + b + c) / divisor,
        "difference": (a - b - c) / divisor,
        "change": ((a - b) / b) / divisor,
        "ratio": (a / b) / divisor,
        "mean": ((a + b + c) / 3) / divisor,
        "max": max(a, b, c) / divisor,
    }
    for op, want in reference.items():
        name = op if divisor == 1 else f"{op}/{divisor}"
        assert compute(name, values) == pytest.approx(want, rel=1e-12, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(
    thousands=st.integers(min_value=1, max_value=999_999),
    style=st.sampled_from(["plain", "grouped", "million", "currency"]),
)
def test_what_the_extractor_stores_is_what_the_judge_recovers(thousands: int, style: str) -> None:
    amount = thousands * 1000
    assume(not 1900 <= amount <= 2100)  # a bare 2000 in a cell reads as a year label, not a quantity
    printed = {"plain": str(amount), "grouped": f"{amount:,}", "million": f"{amount / 1e6:g} million",
               "currency": f"${amount:,}"}[style]
    span = WorkspaceSpan(span_id="abc:row=2", file_sha256="abc", path="data/ledger.csv", locator="row=2",
                         kind="row", ordinal=1, text=f"Region\tRevenue 2024\nNorth\t{printed}")
    header = WorkspaceSpan(span_id="abc:row=1", file_sha256="abc", path="data/ledger.csv", locator="row=1",
                           kind="row", ordinal=0, text="Region\tRevenue 2024")
    facts = RuleBasedExtractor().extract([header, span]).facts
    numeric = [f for f in facts if f.value_num is not None]
    assert numeric, printed
    for fact in numeric:
        # The judge reads the same span text with the same parser: it must land on the stored number.
        recovered = [v for v, _, _ in find_numbers(span.text)]
        assert any(v * fact.scale == pytest.approx(fact.value_num) for v in recovered), (printed, fact)
        assert fact.value_num == pytest.approx(amount)


# --- scientific notation, as spreadsheets store figures as text and programs print floats --------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1.2E+06", 1_200_000.0), ("3.5e2", 350.0), ("1e-05", 0.00001), ("-4.25E-3", -0.00425),
     ("$3.5e2", 350.0), ("7.95807864051312E-13", 7.95807864051312e-13)],
)
def test_scientific_notation_reads_as_its_value(text: str, expected: float) -> None:
    assert parse_value(text) == pytest.approx(expected, rel=1e-12)
    found = [v for v, _, _ in find_numbers(f"stored as {text} in the export")]
    assert found == [pytest.approx(expected, rel=1e-12)]


def test_codes_that_look_like_exponents_are_not_figures() -> None:
    # An unsigned exponent needs a decimal mantissa: "12E4" is a code, not 120000.
    assert parse_value("12E4") is None
    assert find_numbers("part 12E4 and 2e5") == []


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_every_python_float_repr_reads_back_exactly(value: float) -> None:
    # repr() is how a JSON tool argument reaches text ("1e-05", "1.5e+20", "1234500.0").
    assert [v for v, _, _ in find_numbers(f"value {value!r} here")] == [value]
