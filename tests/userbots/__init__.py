"""Python bots used by tests/test_agents.py (a user's module, imported by path)."""
