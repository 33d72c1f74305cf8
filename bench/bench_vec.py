"""fastsheng.vec's speed (docs/learning.md), as rates and ratios measured in one run:

(a) controlled decisions per second of a VecEnv with all four seats controlled, random legal
    actions (drawn in C by ``random_actions``, or by a numpy policy over the masks) and the
    acting seat's observation written every step, with 1 thread (256 envs) and 2 threads (512
    envs), each per second of wall time and per CPU-second of the process (``process_time``:
    every thread's CPU time), with the machine's load average over the run;
(b) a hand through the VecEnv against a hand of ``simulate_hands`` with the random bot (the
    simulator's own loop, no observation): the cost per hand and per decision; target: at most
    8x (the observation, the mask and Python's share of a step are the difference);
(c) the speed-up over the PettingZoo environment (fastsheng.apps.env, random masked actions
    through ``env()`` with PettingZoo's wrappers and ``raw_env()``), per core; target >= 50x.

The target of (a), >= 1,000,000 decisions/s on 2 cores, is gated on the 2-thread run's
decisions per CPU-second times 2: what two cores that ran nothing else would give. The machine
is shared: its wall-clock rate with 2 threads is the share of two cores the other jobs left (at
load 3-5 on 2 cores, the 2 threads were given about one core and measured 0.95-2.2 million/s
over five runs), so a gate on it fails for the load, not for the code. The CPU-second rate
counts only the time the threads ran. Between steps a worker sleeps (nothing spins), so the
CPU time is the work of the step; the threading's own cost (the hand-over at every step, the
two threads' shared caches, sibling hyperthreads) is in it, which is why the 2-thread run is
gated rather than twice the 1-thread rate. What the load can still take from it (caches and
cores shared with the other jobs) lowers it, so the gate cannot pass on the load's account.
The one-thread wall rate is printed beside it, not gated: at load 3-5 it also fell to half.
What CPU time cannot see is threads that fail to overlap (a waiting thread costs nothing), so
the 2-thread run also prints the cores it used (its CPU-seconds per wall-second, up to 2 when
both threads ran at once: the overlap the other jobs allowed).
(b) and (c) are ratios of CPU-second rates of the same run, as robust to the load.

Each side is timed three times, interleaved with the others, the best of each used. The
default gates allow half the target for noise; FASTSHENG_BENCH_FULL=1 gates on the targets.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from fastsheng.engine.hands import simulate_hands
from fastsheng.vec import VecEnv

FULL = bool(os.environ.get("FASTSHENG_BENCH_FULL"))
SLACK = 1.0 if FULL else 0.5
TWO_CORE_TARGET = 1_000_000  # (a) controlled decisions/s on 2 cores
HAND_COST_TARGET = 8  # (b) a decision through the VecEnv over one in simulate_hands, at most
SPEEDUP_TARGET = 50  # (c) over the PettingZoo env, per core
N_ENVS = 256


def _vec_rate(n: int, steps: int, threads: int = 1, dtype=np.uint8, numpy_policy=False):
    """(decisions per CPU second, per wall second, hands ended) of `steps` steps of n envs."""
    env = VecEnv(n, "standard", seed=1, dtype=dtype, threads=threads)
    step = env.reset()
    rng = np.random.default_rng(0)
    hands = 0
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        if numpy_policy:  # a policy's share of the work: pick uniformly among the legal ids
            actions = (rng.random((n, 68)) * step.mask).argmax(1)
        else:
            actions = env.random_actions()
        step = env.step(actions)
        hands += int(step.terminated.sum())
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return n * steps / cpu, n * steps / wall, hands


def _simulate_rate(n: int) -> float:
    """simulate_hands' hands per CPU second with the random bot at every seat."""
    t = time.process_time()
    simulate_hands("standard", "random", seed=1, n=n)
    return n / (time.process_time() - t)


def _env_rate(make, episodes: int) -> float:
    """PettingZoo environment steps per CPU second, random masked actions."""
    e = make(seed=1)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    t = time.process_time()
    for k in range(episodes):
        if k:
            e.reset()
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.process_time() - t)


def _measure() -> tuple[dict[str, float], float]:
    """The best of three interleaved runs of each rate, and the decisions of a hand."""
    from fastsheng.apps.env import env, raw_env

    _env_rate(raw_env, 1)  # warm-up: the first hand's row imports the Arrow schema
    best: dict[str, float] = {}

    def keep(name, value):
        best[name] = max(best.get(name, 0.0), value)

    steps_per_hand = 0.0
    for _ in range(3):
        cpu, wall, hands = _vec_rate(N_ENVS, 800)
        keep("vec_1t_cpu", cpu)
        keep("vec_1t_wall", wall)
        steps_per_hand = N_ENVS * 800 / hands
        keep("vec_1t_f32_cpu", _vec_rate(N_ENVS, 400, dtype=np.float32)[0])
        keep("vec_1t_numpy_policy_cpu", _vec_rate(N_ENVS, 400, numpy_policy=True)[0])
        cpu2, wall2, _ = _vec_rate(2 * N_ENVS, 400, threads=2)
        keep("vec_2t_cpu", cpu2)
        keep("vec_2t_wall", wall2)
        keep("vec_2t_cores_used", wall2 / cpu2)
        keep("simulate_hands_random", _simulate_rate(20_000))
        keep("pettingzoo_raw_env", _env_rate(raw_env, 6))
        keep("pettingzoo_env", _env_rate(env, 6))
    return best, steps_per_hand


def _report(best: dict[str, float], steps_per_hand: float, load: tuple[float, float]) -> dict:
    per_hand_vec = steps_per_hand / best["vec_1t_cpu"]  # CPU seconds of a hand through the env
    per_hand_sim = 1 / best["simulate_hands_random"]
    return {
        **{k: round(v, 2) if k.endswith("cores_used") else round(v) for k, v in best.items()},
        "steps_per_hand": round(steps_per_hand, 1),
        "vec_hand_us": round(per_hand_vec * 1e6, 1),
        "simulate_hand_us": round(per_hand_sim * 1e6, 1),
        "vec_hand_over_simulate_hand": round(per_hand_vec / per_hand_sim, 2),
        "speedup_over_raw_env": round(best["vec_1t_cpu"] / best["pettingzoo_raw_env"], 1),
        "speedup_over_env": round(best["vec_1t_cpu"] / best["pettingzoo_env"], 1),
        "two_cores": round(2 * best["vec_2t_cpu"]),  # the gated figure of (a)
        "load_start": round(load[0], 2),
        "load_end": round(load[1], 2),
    }


def test_vec_speed(benchmark):
    pytest.importorskip("pettingzoo")
    load_start = os.getloadavg()[0]
    best, steps_per_hand = _measure()
    out = _report(best, steps_per_hand, (load_start, os.getloadavg()[0]))
    benchmark.pedantic(_vec_rate, args=(N_ENVS, 50), rounds=1, iterations=1)
    benchmark.extra_info.update(out)
    spd = steps_per_hand
    print(
        f"\nfastsheng.vec, four seats controlled, random legal actions, observations included "
        f"(load average {out['load_start']} at the start, {out['load_end']} at the end, "
        f"{os.cpu_count()} CPUs):\n"
        f"  1 thread, {N_ENVS} envs : {best['vec_1t_wall']:,.0f} decisions/wall-s, "
        f"{best['vec_1t_cpu']:,.0f} decisions/CPU-s (uint8 obs; float32 "
        f"{best['vec_1t_f32_cpu']:,.0f}; numpy policy over the masks "
        f"{best['vec_1t_numpy_policy_cpu']:,.0f} /CPU-s)\n"
        f"  2 threads, {2 * N_ENVS} envs: {best['vec_2t_wall']:,.0f} decisions/wall-s, "
        f"{best['vec_2t_cpu']:,.0f} decisions/CPU-s ({out['vec_2t_cores_used']} cores used)\n"
        f"  2 free cores (2 x the 2-thread rate per CPU-s): {out['two_cores']:,} decisions/s "
        f"(target {TWO_CORE_TARGET:,}, gate {SLACK * TWO_CORE_TARGET:,.0f})\n"
        f"  a hand: {spd:.0f} decisions, {out['vec_hand_us']:,.0f} us through the vec env vs "
        f"{out['simulate_hand_us']:,.0f} us in simulate_hands (random bot): "
        f"{out['vec_hand_over_simulate_hand']}x (gate {HAND_COST_TARGET / SLACK:g}x), "
        f"{out['vec_hand_us'] / spd * 1e3:,.0f} vs {out['simulate_hand_us'] / spd * 1e3:,.0f} ns "
        f"per decision\n"
        f"  PettingZoo env: {best['pettingzoo_env']:,.0f} steps/s (raw_env "
        f"{best['pettingzoo_raw_env']:,.0f}); speed-up {out['speedup_over_env']}x "
        f"({out['speedup_over_raw_env']}x over raw_env) per core"
    )
    assert out["two_cores"] >= SLACK * TWO_CORE_TARGET
    assert out["vec_hand_over_simulate_hand"] <= HAND_COST_TARGET / SLACK
    assert out["speedup_over_raw_env"] >= SLACK * SPEEDUP_TARGET
