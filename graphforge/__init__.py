"""GraphForge: graph-anchored workspace synthesis for training LLM working agents."""

__version__ = "0.1.0"
