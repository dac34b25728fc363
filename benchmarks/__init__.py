"""Speed and scale benchmarks of ``forecast``: the ``bench_*.py`` command lines and their helpers
(``attention/``: time and memory of every backend against length; ``train_step.py``: the whole
model's training step and inference). Not part of the installed package; run from a checkout."""
