"""Seeded, resumable batches of window ids for training, and fixed ordered batches for evaluation.

Training draws from one stream of passes over the ``n`` training windows: pass ``k`` is
``Generator(PCG64([seed, k])).permutation(n)``, cut into global batches of ``batch_size x world`` ids (a
pass's partial last batch is dropped, as the reference drops it). Global batch ``b`` is position
``b % per_pass`` of pass ``b // per_pass``; process ``r`` of ``world`` takes its ``r``-th slice of
``batch_size`` ids, so the sequence of global batches does not depend on the number of processes. The
state is one integer, the global batches drawn; iterating never touches the global random state.

Windows are drawn uniformly (each window once per pass): the objective is the same mean over windows that an
epoch of the reference optimises. A round may end inside a pass (``round_cap``) or span several
(``round_min``); the stream goes on where it stopped.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from forecast.data.errors import DataError


class WindowStream(Sampler[np.ndarray]):
    """Batches of training window ids, a round of ``round_steps`` batches per iteration, resumable at any batch.

    Each ``iter()`` yields the batches from the cursor up to the end of its round (a whole round from a
    round boundary; the rest of it after a resume in the middle), so ``len`` is ``round_steps``.

    Args:
        n: training windows.
        batch_size: windows per process per step.
        seed: seed of the passes.
        round_cap: most batches in a round (None: a round is a whole pass, an epoch).
        round_min: fewest batches in a round (with ``round_cap``): a shorter pass is repeated, up to
            ``round_passes`` passes a round. The round is ``min(round_cap, max(pass, min(round_min,
            round_passes x pass)))`` batches.
        round_passes: most passes in a round that ``round_min`` lengthens.
        rank: this process.
        world: processes.
    """

    def __init__(self, n: int, batch_size: int, *, seed: int, round_cap: int | None = None, round_min: int = 1,
                 round_passes: int = 1, rank: int = 0, world: int = 1) -> None:
        if n < world:
            raise DataError(f"{n} training windows cannot feed {world} processes; use fewer devices or more data")
        self.n, self.seed, self.rank, self.world = n, int(seed), rank, world
        self.batch_size = min(batch_size, n // world)  # a file with fewer windows than a batch: one batch of all
        self.global_batch = self.batch_size * world
        self.per_pass = n // self.global_batch
        lengthened = max(self.per_pass, min(int(round_min), int(round_passes) * self.per_pass))
        self.round_steps = self.per_pass if round_cap is None else max(1, min(lengthened, int(round_cap)))
        self.drawn = 0  # global batches drawn so far, over all rounds
        self._pass: tuple[int, np.ndarray] | None = None

    def __len__(self) -> int:
        return self.round_steps

    def permutation(self, k: int) -> np.ndarray:
        """Pass ``k``: the order of the ``n`` ids, (n,)."""
        if self._pass is None or self._pass[0] != k:
            rng = np.random.Generator(np.random.PCG64([self.seed, k]))
            self._pass = (k, rng.permutation(self.n).astype(np.int64))
        return self._pass[1]

    def batch(self, b: int) -> np.ndarray:
        """This process's ids of global batch ``b``, (batch_size,)."""
        k, j = divmod(b, self.per_pass)
        first = j * self.global_batch + self.rank * self.batch_size
        return self.permutation(k)[first: first + self.batch_size]

    def __iter__(self) -> Iterator[np.ndarray]:
        end = (self.drawn // self.round_steps + 1) * self.round_steps
        while self.drawn < end:
            ids = self.batch(self.drawn)
            self.drawn += 1  # before the yield: a checkpoint taken while the batch trains counts it as drawn
            yield ids

    def state_dict(self) -> dict[str, int]:
        return {"drawn": self.drawn}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.drawn = int(state["drawn"])


class OrderedIds(Sampler[np.ndarray]):
    """Fixed ids in order, in batches; process ``r`` of ``world`` takes every ``world``-th id, unpadded.

    Args:
        ids: the ids, (W,).
        batch_size: ids per batch.
        rank: this process.
        world: processes.
    """

    def __init__(self, ids: np.ndarray, batch_size: int, *, rank: int = 0, world: int = 1) -> None:
        self.ids = np.asarray(ids, dtype=np.int64)[rank::world]
        self.batch_size = batch_size

    def __len__(self) -> int:
        return -(-len(self.ids) // self.batch_size)

    def __iter__(self) -> Iterator[np.ndarray]:
        for first in range(0, len(self.ids), self.batch_size):
            yield self.ids[first: first + self.batch_size]


class StreamLoader(DataLoader):
    """A DataLoader over batches of ids that Lightning checkpoints: its ``state_dict`` is the sampler's cursor.

    Each batch is one gather (``dataset[ids]``); the loader has its own generator, so iterating it leaves the
    global random state as it was.

    Args:
        dataset: a dataset indexed by arrays of ids (:class:`~forecast.data.index.WindowIndex`).
        sampler: yields arrays of ids (:class:`WindowStream`, :class:`OrderedIds`).
        num_workers: worker processes.
    """

    def __init__(self, dataset: Dataset, sampler: Sampler, *, num_workers: int = 0) -> None:
        super().__init__(dataset, sampler=sampler, batch_size=None, num_workers=num_workers,
                         persistent_workers=num_workers > 0, generator=torch.Generator())

    def state_dict(self) -> dict[str, Any]:
        state = getattr(self.sampler, "state_dict", None)
        return state() if state is not None else {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state and hasattr(self.sampler, "load_state_dict"):
            self.sampler.load_state_dict(state)
