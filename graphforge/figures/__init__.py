"""Figures: the one number parser (numbers.py) and the one computation grammar and evaluator (formula.py)."""
