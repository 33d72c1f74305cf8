"""Python bots in processes of their own: the isolated mode (docs/game.md, "Isolated bots").

A Python bot that runs in the process holding the real game can read every hidden card: its
caller's frame holds the game (``sys._getframe``, ``inspect.stack``, ctypes), the game shares
objects with the observation (``gc.get_referrers``), ``gc.get_objects`` lists it, and the run's
seed, which deals every hand again, sits in ``sys.argv`` and in the callers' locals. Nothing
within one interpreter seals that against code that tries. So in the isolated mode each Python
bot seat of a batch plays in a child process that never holds the game, the deal or the seed:

* the child is a fresh interpreter (``subprocess``, not multiprocessing, which would hand it the
  parent's ``sys.argv`` and re-run the parent's main script); it gets the parent's ``sys.path``,
  the bot's ``module:Class`` name (or the pickled bot object), its seat, the rules, the limits
  and a random seed that is a function of the batch and seat alone (:func:`isolated_bot_seed`),
  imports the bot's module itself and makes the bot;
* at each decision the parent sends the seat's observation as bytes
  (``Observation.to_bytes``: what the seat may know, nothing else) and the legal actions; the
  child rebuilds the Observation and the Actions, asks the bot, and answers with the index of
  the offered action it chose, an action or cards of its own (checked by the parent like any
  answer), or the bot's failure. Nothing else crosses: length-prefixed frames over two pipes,
  JSON and bytes, never a pickle from the child;
* the parent waits at most ``BotLimits.timeout`` seconds for an answer (``select``), and the
  child runs under ``RLIMIT_AS`` = ``BotLimits.memory_mb``. A bot that overruns, crashes, runs out
  of memory or answers what is not a legal action fails the decision: its team forfeits the hand
  (``on_error="forfeit"``: fastsheng.engine.pybatch scores it, the ``forfeit`` column names the
  seat) or the run stops (``"stop"``), with one line naming the bot, its seat and the decision.
  A failed child is killed; the seat's next hand starts a fresh one.

Children are killed, with any process they started (each leads a process group of its own),
when their batch ends, however it ends (an exception, Ctrl-C), and on Linux die with the thread
that started them (``PR_SET_PDEATHSIG``) if that is killed outright. The
isolation is between processes, not a sandbox: the child runs as the same user and can read what
that user can (files such as a run's run.json, which records the seed; other processes' command
lines). For untrusted bots in a tournament, run each bot under its own user or in a container
too.
"""

from __future__ import annotations

import base64
import functools
import json
import numbers
import os
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "BotLimits",
    "IsolatedBot",
    "BotFailure",
    "NO_FORFEIT",
    "ON_BOT_ERROR",
    "authors",
    "isolated_bot_seed",
    "isolation_problem",
    "mixed_authors",
    "probe_bot",
]

ON_BOT_ERROR = ("forfeit", "stop")
DEFAULT_TIMEOUT = 5.0  # seconds per decision
DEFAULT_MEMORY_MB = 2048  # the child's address space (interpreter, numpy and fastsheng included)
START_TIMEOUT = 60.0  # seconds for a child to start: import fastsheng, the bot's module, make it
MAX_ANSWER = 1 << 20  # bytes of one answer from a child
NO_FORFEIT = 255  # the forfeiting seat of a hand played out (a null in the forfeit column)
# The isolated bots' random streams: SeedSequence(ISOLATED_ENTROPY, spawn_key=(batch, 1 + seat,
# restart)). A fixed label, not a secret and not the run's seed (see isolated_bot_seed).
ISOLATED_ENTROPY = int.from_bytes(b"fastsheng isolated bots", "big")


@dataclass(frozen=True)
class BotLimits:
    """What an isolated bot may use: ``timeout`` seconds per decision (its reset before a hand
    counts with the hand's first decision), ``memory_mb`` MB of address space for its whole
    process, and what a failure costs: ``on_error`` "forfeit" (the bot's team loses the hand)
    or "stop" (the run stops, as a Python bot's error does in process); None: "forfeit" in
    hands mode, "stop" in matches mode (a match cannot be scored with a hand forfeited)."""

    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int = DEFAULT_MEMORY_MB
    on_error: str | None = None

    def __post_init__(self):
        t = self.timeout
        if isinstance(t, bool) or not isinstance(t, numbers.Real) or not 0 < t <= 86_400:
            raise ValueError(f"bot timeout must be a number of seconds in (0, 86400], not {t!r}")
        object.__setattr__(self, "timeout", float(t))
        m = self.memory_mb
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or not 64 <= m <= 1 << 24:
            raise ValueError(f"bot memory must be a whole number of MB, 64 or more, not {m!r}")
        object.__setattr__(self, "memory_mb", int(m))
        if self.on_error is not None and self.on_error not in ON_BOT_ERROR:
            raise ValueError(f"on bot error: {' or '.join(ON_BOT_ERROR)}, not {self.on_error!r}")

    def error_mode(self, mode: str) -> str:
        """What a failure costs in a batch of this mode ("hands" or "matches"); ValueError for
        a forfeit asked in matches mode."""
        if self.on_error is None:
            return "forfeit" if mode == "hands" else "stop"
        if self.on_error == "forfeit" and mode != "hands":
            raise ValueError(
                "a bot error can forfeit a hand in hands mode only (a match goes on from each "
                "hand's result): use on bot error 'stop' in matches mode"
            )
        return self.on_error

    def to_dict(self) -> dict[str, Any]:
        """The three limits as a dict (``timeout``, ``memory_mb``, ``on_error``), for
        manifests."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> BotLimits:
        """Inverse of ``to_dict`` (validated like the constructor)."""
        return cls(**dict(data))


def isolated_bot_seed(batch: int, seat: int, restart: int = 0) -> int:
    """The seed of an isolated bot's ``random.Random``: a function of the batch, the seat and
    how many times the seat's process was restarted in the batch, never of the run's seed.

    Any function of the run's seed, however one-way, would give the seed away to a bot that
    tries every seed until one makes its numbers (a seed typed on the command line is small, a
    drawn one 32 bits), and the seed deals every hand. So the stream is reproducible (a run is
    still a pure function of its options) and says nothing about the cards; the price is that
    runs with other seeds give an isolated bot the same numbers in the same batch and seat
    (they meet other deals)."""
    import numpy as np

    ss = np.random.SeedSequence(ISOLATED_ENTROPY, spawn_key=(int(batch), 1 + int(seat), restart))
    return int.from_bytes(ss.generate_state(4, np.uint32).tobytes(), "little")


def authors(bots: Iterable[Any]) -> set[str]:
    """Who wrote the Python bots of a line-up (or of several): the top-level package of each
    ``module:Class`` (a bot object's class module). The built-in bots, C or ``py-random``, are
    fastsheng's and count for no one."""
    from fastsheng.bots.names import PY_RANDOM, is_python_bot, resolve_bot

    out = set()
    for b in bots:
        if not is_python_bot(b):
            continue
        name = str(resolve_bot(b))
        if name == PY_RANDOM:
            continue
        out.add(name.partition(":")[0].split(".")[0])
    return out


def mixed_authors(bots: Iterable[Any]) -> bool:
    """Whether the Python bots come from two or more authors (:func:`authors`): where the
    isolated mode is the default, since each could read the others' cards in process."""
    return len(authors(bots)) > 1


def isolation_problem(bot: Any) -> str | None:
    """Why a Python bot cannot play in a process of its own (None: it can). A name is imported
    there; a bot object travels pickled, and its class must import there by its module's name
    (a class of the running script, ``__main__``, cannot: the child would have to run the
    script, seed and all)."""
    import pickle

    from fastsheng.bots.names import BotRef

    script = "the running script (__main__), which a bot process cannot import"
    if not isinstance(bot, BotRef):
        return f"it names a class of {script}" if str(bot).startswith("__main__:") else None
    kind = bot.target if isinstance(bot.target, type) else type(bot.target)
    if kind.__module__ == "__main__":
        return f"its class is defined in {script}"
    try:
        pickle.dumps(bot)
    except Exception as e:
        return f"it does not pickle ({type(e).__name__}: {e})"
    return None


def probe_bot(bot: Any, limits: BotLimits | None = None) -> None:
    """Make `bot` (a ``module:Class`` name or a bot object) in a bot process of its own and end
    it: a typo or a bot that cannot be made fails before any work, and the bot's module runs
    only there, never in the process that will hold the game. ValueError in one line."""
    _probe(bot, type(getattr(bot, "target", None)), limits or BotLimits())


@functools.lru_cache(maxsize=64)
def _probe(bot: Any, _kind: type, limits: BotLimits) -> None:
    from fastsheng.rules import get_rules

    with IsolatedBot(bot, 0, get_rules("standard"), 0, limits) as proc:
        try:
            proc.start()
        except BotFailure as f:
            raise ValueError(f.detail or f"bot {bot} {f.text}") from None


# --------------------------------------------------------------------------------------------
# The parent's side


class BotFailure(Exception):
    """An isolated bot failed a decision. ``text`` completes "bot NAME (seat S) ..." with
    what happened ("took longer than 5 s", "raised RuntimeError: oops", "died (signal 9)");
    ``in_reset``: it failed in ``reset`` before the hand; ``fatal``: its process could not be
    started (every hand would fail alike)."""

    def __init__(self, text: str, *, in_reset: bool = False, fatal: bool = False, detail: str = ""):
        super().__init__(text)
        self.text, self.in_reset, self.fatal = text, in_reset, fatal
        self.detail = detail  # a refusal that names the bot itself (a module that won't import)


_FRAME = struct.Struct(">I")
_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from fastsheng.engine.isolation import _child_main; _child_main()"
)
# one bot process keeps to one core: numeric libraries' thread pools would multiply its address
# space (the memory limit) and compete with the workers
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def _clean(text: Any, limit: int = 300) -> str:
    """A child's text as one short printable line (it is the bot's, so trusted with nothing)."""
    s = " ".join(str(text).split())
    s = "".join(ch if ch.isprintable() else "?" for ch in s)
    return s if len(s) <= limit else s[: limit - 3] + "..."


class IsolatedBot:
    """One Python bot seat of a batch, played in a child process (started at its first
    decision, again after a failure). ``decide`` sends an observation and the offer and
    returns the child's answer (a dict: ``{"i": index}``, ``{"a": [kind, cards, id]}``,
    ``{"v": value}`` or ``{"r": text}``) or raises :class:`BotFailure`. ``close`` kills the
    child; so does leaving a ``with`` block."""

    def __init__(self, name: Any, seat: int, rules: Any, batch: int, limits: BotLimits):
        self.name, self.seat, self.rules, self.batch = name, seat, rules, batch
        self.limits = limits
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        self._reset_pending = False
        self._buf = bytearray()  # bytes read from the child past the last answer

    def __enter__(self) -> IsolatedBot:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- the process ------------------------------------------------------------------------

    def _hello(self) -> dict[str, Any]:
        import pickle

        from fastsheng.bots.names import BotRef

        hello = {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "rng": isolated_bot_seed(self.batch, self.seat, self.restarts),
            "memory_mb": self.limits.memory_mb,
            "name": str(self.name),
            "pickled": None,
        }
        if isinstance(self.name, BotRef):
            hello["pickled"] = base64.b64encode(pickle.dumps(self.name)).decode()
        return hello

    def start(self) -> None:
        """Start the child and make the bot there; BotFailure (fatal) if that fails."""
        env = dict(os.environ)
        for var in _THREAD_VARS:
            env.setdefault(var, "1")
        cmd = [sys.executable, "-I", "-c", _BOOT, json.dumps(sys.path)]
        try:
            # a session of its own: Ctrl-C is the parent's to handle, and a kill of the
            # process group takes along whatever the bot started
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                close_fds=True,
                start_new_session=True,
            )
        except OSError as e:
            raise BotFailure(f"could not start a process of its own: {e}", fatal=True) from None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._buf = bytearray()
        deadline = time.monotonic() + max(START_TIMEOUT, self.limits.timeout)
        try:
            self._send(json.dumps(self._hello()).encode(), deadline)
            reply = self._receive(deadline)
        except BotFailure as f:
            self.close()
            raise BotFailure(
                f"could not start in its own process: it {f.text}", fatal=True
            ) from None
        if reply.get("ok") is not True:
            self.close()
            why = _clean(reply.get("err", "no answer"))
            detail = _clean(reply.get("refusal") or "")
            raise BotFailure(
                f"could not be made in its own process: {why}", fatal=True, detail=detail
            )
        self._reset_pending = False

    def close(self) -> None:
        """Kill the child (if any) with its process group, and reap it."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            try:
                proc.kill()
            except OSError:
                pass
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a zombie the kernel keeps
            pass

    def restart_next_hand(self) -> None:
        """After a failure: the child is gone; the next decision starts a fresh one (a fresh
        bot, a fresh random stream)."""
        self.close()
        self.restarts += 1

    # --- a decision -------------------------------------------------------------------------

    def new_hand(self) -> None:
        """The bot's ``reset`` runs before its next decision (in the child)."""
        self._reset_pending = True

    def decide(self, observation: Any, legal: tuple) -> dict[str, Any]:
        """The child's answer to one decision, within the time limit."""
        reset = self._reset_pending
        if self.proc is None:
            self.start()
            reset = True
        self._reset_pending = False
        obs = observation.to_bytes(rules=False)
        offer = json.dumps([[a.kind, a.cards, a.id] for a in legal]).encode()
        message = b"A" + bytes([reset]) + _FRAME.pack(len(obs)) + obs + offer
        deadline = time.monotonic() + self.limits.timeout
        self._send(message, deadline)
        answer = self._receive(deadline)
        if "err" in answer:
            where = answer.get("in")
            text = f"raised {_clean(answer['err'])}"
            if "MemoryError" in text:
                text += f" (its memory limit: {self.limits.memory_mb} MB)"
            raise BotFailure(text, in_reset=where == "reset")
        return answer

    def _send(self, payload: bytes, deadline: float) -> None:
        data = memoryview(_FRAME.pack(len(payload)) + payload)
        fd = self.proc.stdin.fileno()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timeout()
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                continue
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise self._died() from None
            data = data[n:]

    def _read(self, n: int, deadline: float) -> bytes:
        """`n` bytes from the child (read in as large chunks as it wrote: one system call for a
        whole answer, mostly)."""
        fd = self.proc.stdout.fileno()
        buf = self._buf
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timeout()
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, max(n - len(buf), 1 << 16))
            if not chunk:
                raise self._died()
            buf += chunk
        out = bytes(buf[:n])
        del buf[:n]
        return out

    def _receive(self, deadline: float) -> dict[str, Any]:
        (n,) = _FRAME.unpack(self._read(4, deadline))
        if n > MAX_ANSWER:
            raise BotFailure(f"answered with {n:,} bytes (at most {MAX_ANSWER:,})")
        try:
            answer = json.loads(self._read(n, deadline))
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict):
            raise BotFailure("answered with something that is not an answer")
        return answer

    def _timeout(self) -> BotFailure:
        self.close()
        return BotFailure(f"took longer than {self.limits.timeout:g} s")

    def _died(self) -> BotFailure:
        proc = self.proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        self.close()
        if code is not None and code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
            how += f"; its memory limit: {self.limits.memory_mb} MB"
        elif code is not None:
            how = f"exited with code {code}"
        else:
            how = "closed its pipe"
        return BotFailure(f"died ({how})")


# --------------------------------------------------------------------------------------------
# The child's side


def _read_frame(fd: int) -> bytes | None:
    """One frame from the parent (None at the end of the pipe: the parent is gone)."""

    def exactly(n: int) -> bytes | None:
        out = bytearray()
        while len(out) < n:
            chunk = os.read(fd, n - len(out))
            if not chunk:
                return None
            out += chunk
        return bytes(out)

    head = exactly(4)
    if head is None:
        return None
    return exactly(_FRAME.unpack(head)[0])


def _write_frame(fd: int, doc: Any) -> None:
    data = json.dumps(doc, default=_plain).encode()
    data = _FRAME.pack(len(data)) + data
    while data:
        data = data[os.write(fd, data) :]


def _plain(value: Any) -> Any:
    """JSON for what a bot may return besides plain values: numpy integers and arrays."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _die_with_parent() -> None:
    """On Linux, SIGKILL this process when the thread that started it dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return


def _limit_memory(mb: int) -> None:
    import resource

    size = mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _describe(e: BaseException) -> str:
    if isinstance(e, SystemExit):
        return f"SystemExit (sys.exit({e.code!r}))"
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _make_bot(hello: dict[str, Any]) -> Any:
    from fastsheng.engine.agents import bot as make_bot

    if hello.get("pickled"):
        import pickle

        return pickle.loads(base64.b64decode(hello["pickled"])).make()  # the parent's bytes
    return make_bot(hello["name"])


def _answer(choice: Any, legal: tuple) -> dict[str, Any]:
    """The bot's choice as the parent reads it: the index of an offered action, an action of
    its own (kind, cards, id), a value (cards, a name...) or, for what is no JSON, its repr."""
    from fastsheng.engine.actions import Action

    if isinstance(choice, Action):
        for i, a in enumerate(legal):
            if a is choice:
                return {"i": i}
        return {"a": [choice.kind, choice.cards, choice.id]}
    return {"v": choice}


def _child_main() -> None:
    """A bot process: read the hello, make the bot, then answer decisions until the parent
    closes the pipe. Everything a bot does wrong is an answer; the parent decides."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    fd_in, fd_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # the bot's prints go to stderr, never into the answers
    hello = json.loads(_read_frame(fd_in) or b"{}")
    try:
        import random

        from fastsheng.engine.actions import Action
        from fastsheng.engine.game import Game  # noqa: F401 - registers the world maker
        from fastsheng.engine.observation import Observation
        from fastsheng.rules import Rules

        rules = Rules.from_dict(hello["rules"])
        rng = random.Random(hello["rng"])
        seat = int(hello["seat"])
        _limit_memory(int(hello["memory_mb"]))
        bot = _make_bot(hello)
    except BaseException as e:
        from fastsheng.errors import BotError

        # load_bot's own refusals name the bot and the problem ("cannot import 'x'"): kept whole
        refusal = str(e) if isinstance(e, ValueError | BotError) else ""
        _write_frame(fd_out, {"err": _describe(e), "in": "start", "refusal": refusal})
        os._exit(1)
    _write_frame(fd_out, {"ok": True})
    while True:
        frame = _read_frame(fd_in)
        if frame is None:
            os._exit(0)
        try:
            reset = frame[1]
            (n,) = _FRAME.unpack_from(frame, 2)
            observation = Observation.from_bytes(frame[6 : 6 + n], rules)
            legal = tuple(Action(k, tuple(c), i) for k, c, i in json.loads(frame[6 + n :]))
        except BaseException as e:  # pragma: no cover - the parent's own bytes
            _write_frame(fd_out, {"err": f"bad request ({_describe(e)})", "in": "protocol"})
            continue
        if reset:
            try:
                if getattr(bot, "reset", None) is not None:
                    bot.reset(seat, rules, rng)
            except BaseException as e:
                _write_frame(fd_out, {"err": _describe(e), "in": "reset"})
                continue
        try:
            doc = _answer(bot.act(observation, legal), legal)
        except BaseException as e:
            doc = {"err": _describe(e), "in": "act"}
        try:
            _write_frame(fd_out, doc)
        except (TypeError, ValueError, RecursionError):  # no JSON: named by its repr
            try:
                text = _clean(repr(doc.get("v", doc.get("a"))), 200)
            except BaseException:
                text = "an object that cannot be shown"
            _write_frame(fd_out, {"r": text})
