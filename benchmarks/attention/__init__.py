"""Attention benchmarks: time and peak memory of every backend against sequence length.

``benchmarks/bench_attention.py`` is the command line; the pieces live here:

* :mod:`benchmarks.attention.spec` - what one measurement asks for and what it returns (one CSV row);
* :mod:`benchmarks.attention.backends` - the registry (``forecast/conf/attention/*.yaml``) and the two baselines;
* :mod:`benchmarks.attention.worker` - one measurement, run inside its own process;
* :mod:`benchmarks.attention.runner` - one process per measurement, timeouts, memory guard, skips;
* :mod:`benchmarks.attention.report` - CSV, log-log plot and markdown summary.
"""
