"""The applications, the top layer: the typer CLI (cli), a person at the terminal (terminal),
the PettingZoo environment (env)."""
