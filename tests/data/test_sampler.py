"""The window index and the seeded training stream: exact windows, passes, rounds, resume, sharding."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from forecast.data.index import WindowIndex, fixed_sample, one_each, sampled_series, stride_under_cap, window_count
from forecast.data.sampler import OrderedIds, StreamLoader, WindowStream
from forecast.data.windows import WindowDataset


def panel(lengths=(40, 25, 60), c_in=3, c_out=1, m=2, stride=1) -> tuple[WindowIndex, list[WindowDataset]]:
    n = sum(lengths)
    x = torch.randn(n, c_in, generator=torch.Generator().manual_seed(0))
    marks = torch.randn(n, m, generator=torch.Generator().manual_seed(1))
    starts = np.cumsum([0, *lengths[:-1]]) + 2  # each series' split range starts 2 rows in
    ends = np.cumsum(lengths)
    index = WindowIndex(x, x[:, -c_out:], marks, starts=starts, ends=ends, seq_len=8, label_len=4, pred_len=3,
                        stride=stride)
    parts = [WindowDataset(x, x[:, -c_out:], marks, start=int(s), end=int(e), seq_len=8, label_len=4, pred_len=3,
                           stride=stride) for s, e in zip(starts, ends)]
    return index, parts


@pytest.mark.parametrize("stride", [1, 3])
def test_a_gathered_batch_holds_exactly_the_windows_of_each_series(stride: int) -> None:
    index, parts = panel(stride=stride)
    singles = [p[i] for p in parts for i in range(len(p))]
    assert len(index) == len(singles) == sum(window_count(e - s, 8, 3, stride) for s, e in
                                               zip(index.starts, index.ends))
    ids = np.array([len(singles) - 1, 0, 5, len(parts[0]), 17])
    batch = index[ids]
    assert batch.x_enc.shape == (5, 8, 3) and batch.x_mark_dec.shape == (5, 7, 2) and batch.y.shape == (5, 3, 1)
    for row, i in enumerate(ids):
        for got, want in zip(batch, singles[i]):
            assert torch.equal(got[row], want)
    assert [index.origin(i) for i in range(len(index))] == [p.origin(i) for p in parts for i in range(len(p))]
    assert all(torch.equal(a, b) for a, b in zip(index[3], singles[3]))


def test_each_pass_visits_every_window_once_and_ranks_split_each_global_batch() -> None:
    one = WindowStream(100, 8, seed=3)
    assert one.per_pass == 12 and len(one) == 12
    first_pass = np.concatenate([one.batch(b) for b in range(12)])
    assert len(set(first_pass.tolist())) == 96 and set(first_pass.tolist()) <= set(range(100))
    assert not np.array_equal(one.permutation(0), one.permutation(1))  # each pass its own order
    ranks = [WindowStream(100, 4, seed=3, rank=r, world=2) for r in range(2)]
    for b in (0, 5, 13, 30):  # the same global batches whatever the number of processes
        assert np.array_equal(np.concatenate([r.batch(b) for r in ranks]), one.batch(b))


def test_rounds_resume_from_any_batch_and_leave_the_global_random_state_alone() -> None:
    stream = WindowStream(100, 8, seed=3, round_cap=5)
    rounds = [[ids.tolist() for ids in stream] for _ in range(3)]
    assert [len(r) for r in rounds] == [5, 5, 5] and stream.drawn == 15
    assert rounds[2][0] == stream.batch(10).tolist()
    resumed = WindowStream(100, 8, seed=3, round_cap=5)
    resumed.load_state_dict({"drawn": 7})  # in the middle of the second round: its rest, then whole rounds
    assert [ids.tolist() for ids in resumed] == rounds[1][2:]
    assert [ids.tolist() for ids in resumed] == rounds[2]
    index, _ = panel()
    torch_before, numpy_before = torch.get_rng_state(), np.random.get_state()[1].copy()
    loader = StreamLoader(index, WindowStream(len(index), 4, seed=0))
    batches = list(loader)
    assert len(batches) == len(loader) == len(index) // 4 and batches[0].x_enc.shape == (4, 8, 3)
    assert torch.equal(torch.get_rng_state(), torch_before) and np.array_equal(np.random.get_state()[1], numpy_before)
    assert loader.state_dict() == {"drawn": len(index) // 4}


def test_a_file_with_fewer_windows_than_a_batch_trains_on_all_of_them_each_step() -> None:
    stream = WindowStream(5, 32, seed=0)
    assert stream.batch_size == 5 and len(stream) == 1 and sorted(stream.batch(0).tolist()) == [0, 1, 2, 3, 4]


def test_ordered_ids_shard_without_padding() -> None:
    ids = np.arange(11)
    shards = [np.concatenate(list(OrderedIds(ids, 4, rank=r, world=3))) for r in range(3)]
    assert sorted(np.concatenate(shards).tolist()) == list(range(11))


def test_the_eval_cap_takes_the_smallest_stride_under_it_and_the_sample_is_fixed() -> None:
    index, _ = panel(lengths=(400, 250, 600))
    n = len(index)
    assert stride_under_cap(index, None) == stride_under_cap(index, n) == 1
    for cap in (100, 333, n - 1):
        stride = stride_under_cap(index, cap)
        assert len(index.with_stride(stride)) <= cap < len(index.with_stride(stride - 1))
    sample = fixed_sample(n, 50, seed=1)
    assert len(sample) == 50 and np.all(np.diff(sample) > 0) and np.array_equal(sample, fixed_sample(n, 50, seed=1))
    assert np.array_equal(fixed_sample(40, 50, seed=1), np.arange(40))


def test_a_panel_with_more_series_than_the_cap_keeps_one_window_a_series() -> None:
    index, _ = panel(lengths=(150, 200, 170, 260, 180))  # 5 series, a cap of 3 windows
    stride = stride_under_cap(index, 3)
    thinned = index.with_stride(stride)
    assert len(thinned) == 5 and len(index.with_stride(stride - 1)) > 5


@pytest.mark.parametrize("round_min, round_passes, cap, steps", [(40, 4, 500, 40), (40, 2, 500, 24), (40, 4, 30, 30),
                                                                 (5, 4, 500, 12), (40, 1, 500, 12)])
def test_a_short_pass_repeats_to_the_round_minimum(round_min: int, round_passes: int, cap: int, steps: int) -> None:
    stream = WindowStream(100, 8, seed=3, round_cap=cap, round_min=round_min, round_passes=round_passes)
    assert stream.per_pass == 12 and len(stream) == steps  # min(cap, max(12, min(round_min, passes x 12)))
    rounds = [[ids.tolist() for ids in stream] for _ in range(2)]
    assert [len(r) for r in rounds] == [steps, steps] and stream.drawn == 2 * steps
    assert rounds[1][0] == stream.batch(steps).tolist()  # the second round goes on where the first stopped
    first = np.concatenate(rounds[0][:12])
    assert len(set(first.tolist())) == 96  # each pass inside a round still visits every window once


def test_the_eval_stride_shares_no_factor_with_the_season() -> None:
    index, _ = panel(lengths=(400, 250, 600))

    def phases(stride: int) -> set[int]:  # phases of a 7-step season the first series' kept windows start at
        kept = index.with_stride(stride)
        origins = kept.origins(np.arange(len(kept)))
        return set(((origins[origins < index.ends[0]] - index.starts[0]) % 7).tolist())

    plain = stride_under_cap(index, 175)
    assert plain == 7 and phases(plain) == {0}
    stride = stride_under_cap(index, 175, season=7)
    assert stride == 8 and len(index.with_stride(stride)) <= 175 and phases(stride) == set(range(7))


def test_drawn_series_keep_their_place_and_score_one_window_each_at_a_drawn_origin() -> None:
    index, parts = panel(lengths=(40, 25, 60, 33, 50, 41, 70, 38))
    drawn = sampled_series(index, 5, seed=7)
    counts = np.diff(drawn.win_offsets)  # (8,)
    assert drawn.n_series == 8 and len(drawn) == 5 and set(counts.tolist()) == {0, 1}
    series = drawn.series_of(np.arange(5))  # positions still name the same series
    every = {s: [p.origin(i) for i in range(len(p))] for s, p in enumerate(parts)}
    origins = drawn.origins(np.arange(5))
    assert all(o in every[s] for s, o in zip(series, origins))
    for row, (s, o) in enumerate(zip(series, origins)):
        k = every[s].index(o)
        assert all(torch.equal(a, b) for a, b in zip(drawn[row], parts[s][k]))
    again = sampled_series(index, 5, seed=7)
    assert np.array_equal(again.origins(np.arange(5)), origins) and np.array_equal(again.starts, drawn.starts)
    others = [sampled_series(index, 5, seed=7, stream=1), sampled_series(index, 5, seed=8)]
    assert all(not np.array_equal(o.starts, drawn.starts) for o in others)
    firsts = sampled_series(index, 8, seed=7).origins(np.arange(8))
    assert not np.array_equal(firsts, index.starts)  # not every series' first origin


def test_one_window_each_is_told_from_a_stride_that_leaves_more() -> None:
    index, _ = panel(lengths=(40, 25, 60))
    assert one_each(index, 3, stride_under_cap(index, 3)) and not one_each(index, 20, stride_under_cap(index, 20))
    assert not one_each(index, None, 1) and not one_each(index, len(index), 1)
    short, _ = panel(lengths=(13, 13, 13))  # one window a series at any stride
    assert len(short) == 3 and one_each(short, 2, stride_under_cap(short, 2)) and not one_each(short, 3, 1)
