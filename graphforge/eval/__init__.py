"""Evaluation: Bradley-Terry Elo with bootstrap CIs and pairwise win rates from comparison files."""
