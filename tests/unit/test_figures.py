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


# --- the extractor's stored number is what the judge's recovery reads, through verifiers.recover --------


def _printed(amount_cents: int, style: str) -> tuple[str, float, bool]:
    """A figure printed the way office files print it, its value computed here, and whether the row's
    header says "in thousands" (the value is then the printed number times 1,000)."""
    value = amount_cents / 100
    whole = abs(amount_cents) // 100
    neg = amount_cents < 0
    if style == "paren":
        return (f"({whole:,})" if neg else f"{whole:,}"), (-whole if neg else whole), False
    if style == "en-dash":
        return (f"–{whole:,}" if neg else f"{whole:,}"), (-whole if neg else whole), False
    if style == "thousands-header":
        return f"{whole:,}", whole * 1000.0, True
    if style == "eur-million":
        millions = abs(amount_cents) / 100
        return f"EUR {millions:.2f} million", round(millions, 2) * 1e6, False
    if style == "cents":
        return f"${abs(value):,.2f}", abs(round(value, 2)), False
    raise AssertionError(style)


@settings(max_examples=120, deadline=None)
@given(
    amount_cents=st.integers(min_value=-10**10, max_value=10**10),
    style=st.sampled_from(["paren", "en-dash", "thousands-header", "eur-million", "cents"]),
)
def test_judge_recovery_lands_on_what_the_extractor_stored(amount_cents: int, style: str) -> None:
    from graphforge.judge.verdicts import recover
    from graphforge.judge.view import Anchor

    printed, expected, in_thousands = _printed(amount_cents, style)
    assume(expected != 0 and not 1900 <= abs(expected) <= 2100)
    head = "Region\tRevenue 2024" + (" (in thousands)" if in_thousands else "")
    header = WorkspaceSpan(span_id="abc:row=1", file_sha256="abc", path="data/ledger.csv", locator="row=1",
                           kind="row", ordinal=0, text=head)
    span = WorkspaceSpan(span_id="abc:row=2", file_sha256="abc", path="data/ledger.csv", locator="row=2",
                         kind="row", ordinal=1, text=f"North\t{printed}")  # a CSV row as the parser gives it
    facts = [f for f in RuleBasedExtractor().extract([header, span]).facts if f.value_num is not None]
    assert facts, printed
    for fact in facts:
        anchor = Anchor(fact_id=fact.fact_id, value=fact.value, value_num=fact.value_num, unit=fact.unit,
                        scale=fact.scale, span_id=span.span_id, span_text=span.text)
        assert recover(anchor) == pytest.approx(fact.value_num, rel=1e-9), (printed, fact)
        assert fact.value_num == pytest.approx(expected, rel=1e-9), (printed, fact)


def test_a_range_shares_its_scale_and_currency_between_its_ends() -> None:
    from graphforge.figures.numbers import find_figures

    def read(text: str) -> list[tuple[float, str | None]]:
        return [(f.value, f.unit) for f in find_figures(text)]

    assert read("an estimated $5–7 million") == [(5e6, "USD"), (7e6, "USD")]
    assert read("between 5 and 7 million") == [(5e6, None), (7e6, None)]
    assert read("growth of 10-20%") == [(10.0, "%"), (20.0, "%")]
    assert read("costs $5-$7 million") == [(5e6, "USD"), (7e6, "USD")]
    assert read("up 5 to 10 percent") == [(5.0, "%"), (10.0, "%")]
    # Two numbers that are not one quantity stay as printed, and no code yields a second number.
    assert read("in 2019–2021") == [(2019.0, None), (2021.0, None)]
    assert read("Washington, DC 20503-0001") == [(20503.0, None)]
    assert read("call 202-395-3080") == [(202.0, None)]
    assert read("in 5 and 7 million") == [(5.0, None), (7e6, None)]
    # The near end keeps its printed number, so re-reading its text gives the printed figure.
    near = find_figures("$5–7 million")[0]
    assert (near.text, near.number, near.range_scale) == ("$5", 5.0, 1e6)


def test_units_of_measure_are_read_beside_the_figure_not_into_it() -> None:
    from graphforge.figures.numbers import find_figures

    got = [(f.text, f.value, f.measure) for f in find_figures("30 days, 12.5 kg, 45 km/h and 2-3 FTEs")]
    assert got == [("30", 30.0, "days"), ("12.5", 12.5, "kg"), ("45", 45.0, "km/h"), ("2", 2.0, "FTEs"),
                   ("3", 3.0, "FTEs")]
    assert [f.measure for f in find_figures("$30 and 15%")] == [None, None]


def test_a_prose_range_becomes_facts_the_judge_recovers() -> None:
    from graphforge.judge.verdicts import recover
    from graphforge.judge.view import Anchor

    text = "Total program cost in FY 2024 is estimated at $5–7 million."
    span = WorkspaceSpan(span_id="d:p=1", file_sha256="d", path="docs/plan.md", locator="p=1",
                         kind="paragraph", ordinal=0, text=text)
    facts = [f for f in RuleBasedExtractor().extract([span]).facts if f.value_num is not None]
    assert sorted(f.value_num for f in facts) == [5e6, 7e6]
    for fact in facts:
        anchor = Anchor(fact_id=fact.fact_id, value=fact.value, scale=fact.scale, span_text=text)
        assert recover(anchor) == pytest.approx(fact.value_num)
