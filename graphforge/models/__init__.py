"""Pydantic models at every boundary: sources → code, code → Neo4j rows, Neo4j → code, artifacts."""
