"""Test support shared by every area: a scripted OpenAI-compatible chat server and its pytest fixtures."""
