"""A shipped model file read for the C core: its SHA-256 checked, its arrays by name.

Every learned piece (fastsheng.bots._learned, the beliefs of fastsheng.bots._infer and fastsheng.
_card_belief) ships as a .npz under fastsheng/bots/models/ whose hash the registry pins: a retrained
model is a new version, never a silent change of a published name's play.
"""

from __future__ import annotations

import hashlib

import numpy as np


def read_checked(path, sha256: str, keys, what: str) -> dict[str, np.ndarray]:
    """The arrays `keys` of the .npz at `path`; ValueError naming `what` when the file's SHA-256
    is not `sha256`."""
    try:
        with open(path, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise ValueError(
            f"{what} {path} cannot be read ({e.strerror}): reinstall fastsheng to restore it"
        ) from None
    if got != sha256:
        raise ValueError(
            f"{what} {path}: SHA-256 {got}, expected {sha256}: the file is damaged; reinstall "
            "fastsheng to restore it"
        )
    with np.load(path) as z:
        return {k: np.asarray(z[k]) for k in keys}


def read_unchecked(path, keys, what: str) -> dict[str, np.ndarray]:
    """A research model file (a spec's ``*_path`` setting): the arrays of `keys` it holds, read
    as they are (no pinned hash: it is not a published name's); ValueError naming `what` when
    it cannot be read."""
    try:
        with np.load(path) as z:
            return {k: np.asarray(z[k]) for k in keys if k in z.files}
    except (OSError, ValueError) as e:
        raise ValueError(f"{what} {path}: cannot read it ({e})") from None
