"""Early stopping replayed on finished runs (docs/results.md §13.5, §13.7): where would each run have stopped,
and which round would it have kept, had a round needed to beat the best so far by a share of it, or had the
run been allowed fewer rounds?

    python studies/patience_replay.py RUN_DIR [RUN_DIR ...] [--min-gain 0 0.0025 0.005 0.01] [--max-rounds 4] \
        [--patience 1 2]

Reads each run's ``metrics.json`` (``start/val_loss``, ``val/loss_per_round``, ``round_steps``) and applies
the default's rule to the rounds it trained: a round resets the patience (rounds without a new best that end
the run; 2 unless ``--patience``) when it is below the best so far (the start included) by more than
``min_gain`` of it; while none has, the first round to end after 200 steps stops the run. A replay can only
end a run earlier than it ended, so every round it needs was trained (replay runs trained with patience 2 or
more). Prints one line a run: the rounds relative to the start, and rounds trained / best round under each
share (with ``--max-rounds``, under each share and cap: ``0.005 <=4: 4/3``; with ``--patience``, under each
patience too: ``p1 0.005: 2/1``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

START_PATIENCE_STEPS = 200


def replay(start: float, losses: list[float], min_gain: float, round_steps: int, patience: int = 2) -> int:
    """Rounds trained before the rule stops the run."""
    best, waited, beaten = start, 0, False
    for done, loss in enumerate(losses, start=1):
        if loss < best * (1 - min_gain):
            best, waited, beaten = loss, 0, True
        else:
            waited += 1
        if waited >= patience or (not beaten and done * round_steps >= START_PATIENCE_STEPS):
            return done
    return len(losses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--min-gain", nargs="+", type=float, default=[0.0, 0.0025, 0.005, 0.01])
    parser.add_argument("--max-rounds", nargs="+", type=int, default=[],
                        help="also stop after this many rounds (trainer.max_epochs)")
    parser.add_argument("--patience", nargs="+", type=int, default=[2],
                        help="rounds without a new best that end a run (callbacks.early_stopping.patience)")
    args = parser.parse_args()
    for run in args.runs:
        if not (run / "metrics.json").is_file():
            continue
        m = json.loads((run / "metrics.json").read_text())
        start, losses = m.get("start/val_loss"), m.get("val/loss_per_round") or []
        if start is None or len(losses) < 2:
            continue
        cells = []
        for patience in args.patience:
            label = f"p{patience} " if len(args.patience) > 1 else ""
            for gain in args.min_gain:
                n = replay(start, losses, gain, int(m["round_steps"]), patience)
                for cap in [None, *args.max_rounds]:
                    trained = n if cap is None else min(n, cap)
                    best = min(range(trained), key=lambda i: losses[i]) + 1
                    cells.append(f"{label}{gain:g}{'' if cap is None else f' <={cap}'}: {trained}/{best}")
        ratios = " ".join(f"{loss / start:.4f}" for loss in losses)
        print(f"{run.name}  steps {m['round_steps']}  rounds/start {ratios}  |  " + "  ".join(cells))


if __name__ == "__main__":
    main()
