"""Bots that break an isolated bot's limits or its channel (tests/test_isolation.py): too slow,
too big, a crash of the process itself, prints on stdout, answers that are no answers. Each
misbehaves at its first follow of a hand and plays the lowest cards otherwise."""

from __future__ import annotations

import ctypes
import os
import sys
import time


class _Low:
    def act(self, observation, legal_actions):
        if observation.decision == "follow" and not getattr(self, "_done", False):
            self._done = True
            return self.misbehave(observation, legal_actions)
        return self.low(legal_actions)

    def reset(self, seat, rules, rng):
        self._done = False

    @staticmethod
    def low(legal_actions):
        for kind in ("pass", "done"):
            for a in legal_actions:
                if a.kind == kind:
                    return a
        return min(legal_actions, key=lambda a: a.cards)

    def misbehave(self, observation, legal_actions):
        return self.low(legal_actions)


class Sleeps(_Low):
    """Thinks for a minute."""

    def misbehave(self, observation, legal_actions):
        time.sleep(60)
        return self.low(legal_actions)


class Spins(_Low):
    """Loops forever without a system call (no sleep to interrupt)."""

    def misbehave(self, observation, legal_actions):
        while True:
            pass


class EatsMemory(_Low):
    """Asks for 8 GB."""

    def misbehave(self, observation, legal_actions):
        hog = bytearray(8 << 30)
        return self.low(legal_actions) if hog else None


class Segfaults(_Low):
    """Crashes its process (reads address 0)."""

    def misbehave(self, observation, legal_actions):
        ctypes.string_at(0)
        return self.low(legal_actions)


class KillsItself(_Low):
    """Ends its process from the inside, no exception on the way."""

    def misbehave(self, observation, legal_actions):
        os._exit(7)


class Prints(_Low):
    """Prints (to stdout, and raw bytes to file descriptor 1) at every decision: they must go
    to the terminal, never into the answers."""

    def act(self, observation, legal_actions):
        print("thinking...", observation.decision)
        os.write(1, b"\x00\x00\x00\x05hello")
        sys.stdout.flush()
        return self.low(legal_actions)


class AnswersJunk(_Low):
    """Answers with an object that is neither an action nor cards."""

    def misbehave(self, observation, legal_actions):
        return object()


class SlowToStart:
    """Its constructor never ends (a bot process has a minute to start)."""

    def __init__(self):
        time.sleep(3600)

    def act(self, observation, legal_actions):
        return legal_actions[0]


class Counts(_Low):
    """Numbers its decisions in a class attribute: module state lives in its process."""

    decisions = 0

    def act(self, observation, legal_actions):
        Counts.decisions += 1
        return self.low(legal_actions)
