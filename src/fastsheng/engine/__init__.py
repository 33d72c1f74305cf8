"""The engine's Python face, above the compiled core: bot names and the resolver (registry),
the Bot protocol (agents), a batch described once (plan) and played (hands, pybatch), one game
step by step (game), what a seat may know (observation) and whether a world could have happened
(worldcheck)."""
