"""PPTX charts keep their numbers (issue 11, "parsing that keeps the content"): a chart's title,
categories and series values were dropped while the deck was valid, though the chart XML caches them."""

from __future__ import annotations

from pathlib import Path

from graphforge.parsers import parse_file


def test_chart_title_categories_and_series_values_are_tab_separated_rows(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    slide.shapes.title.text = "Revenue by quarter"
    data = CategoryChartData()
    data.categories = ["Q1 2024", "Q2 2024", "Q3 2024"]
    data.add_series("Services", (1340.0, 1415.5, 1502.0))
    data.add_series("Hardware", (905.0, 1234567.0, 1010.25))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.5), Inches(6),
                                   Inches(4), data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Revenue ($k)"
    path = tmp_path / "deck.pptx"
    prs.save(str(path))

    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    assert parsed.spans[0].text.splitlines() == [
        "# Revenue by quarter",
        "Chart: Revenue ($k)",
        "series\tQ1 2024\tQ2 2024\tQ3 2024",
        "Services\t1340\t1415.5\t1502",
        "Hardware\t905\t1234567\t1010.25",  # never 1.23457e+06
    ]
