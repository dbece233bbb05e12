"""Shared pieces of the reports: the one definition of sector, execution pattern and cell (``axes``) and
self-contained HTML output with embedded plots (``html``).
"""
