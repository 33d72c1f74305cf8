"""A bot module that imports in the process that checks the bot names but not in a spawned
worker (as a module found only through the parent's sys.path changes would)."""

import multiprocessing

if multiprocessing.parent_process() is not None:
    raise ImportError("this module imports only in the parent process")


class Bot:
    def act(self, observation, legal_actions):
        return legal_actions[0]
