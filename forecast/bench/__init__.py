"""Attention benchmarks: time and peak memory of every backend against sequence length.

``scripts/bench_attention.py`` is the command line; the pieces live here:

* :mod:`forecast.bench.spec` - what one measurement asks for and what it returns (one CSV row);
* :mod:`forecast.bench.backends` - the registry (``forecast/conf/attention/*.yaml``) and the two baselines;
* :mod:`forecast.bench.worker` - one measurement, run inside its own process;
* :mod:`forecast.bench.runner` - one process per measurement, timeouts, memory guard, skips;
* :mod:`forecast.bench.report` - CSV, log-log plot and markdown summary.
"""
