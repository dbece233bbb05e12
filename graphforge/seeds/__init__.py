"""Seeds and what they are drawn from: sectors for occupations (``sectors``), coverage-gain seed selection
(``selection``) and how well each seed fits a workspace folder (``fit``).
"""
