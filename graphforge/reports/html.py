"""Self-contained HTML reports: tables and embedded PNG plots in one file people can open anywhere."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, select_autoescape

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{font-size:1.6rem} h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:right}
th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:.9rem} img{max-width:100%}
</style></head><body>
<h1>{{ title }}</h1>
{% if subtitle %}<p class="note">{{ subtitle }}</p>{% endif %}
{% for s in sections %}
<h2>{{ s.heading }}</h2>
{% if s.text %}<p>{{ s.text }}</p>{% endif %}
{% if s.rows %}<table><tr>{% for h in s.columns %}<th>{{ h }}</th>{% endfor %}</tr>
{% for r in s.rows %}<tr>{% for v in r %}<td>{{ v }}</td>{% endfor %}</tr>{% endfor %}</table>{% endif %}
{% for img in s.images %}<img alt="{{ s.heading }}" src="data:image/png;base64,{{ img }}">{% endfor %}
{% endfor %}
</body></html>
"""


@dataclass
class Section:
    heading: str
    text: str = ""
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[object]] = ()
    images: list[Path] = field(default_factory=list)


def write_report(path: Path, title: str, sections: Sequence[Section], subtitle: str = "") -> Path:
    """Render the sections into one HTML file (PNG plots embedded) and return its path."""
    env = Environment(autoescape=select_autoescape(default=True))
    rendered = env.from_string(_TEMPLATE).render(
        title=title, subtitle=subtitle,
        sections=[{"heading": s.heading, "text": s.text, "columns": list(s.columns),
                   "rows": [list(r) for r in s.rows],
                   "images": [base64.b64encode(p.read_bytes()).decode("ascii") for p in s.images]}
                  for s in sections])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rendered, encoding="utf-8")
    return path


def escape(text: str) -> str:
    return html.escape(text)
