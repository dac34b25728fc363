"""What models, wrappers and baselines share: the forecaster contract, parameter counting, config errors.

Nothing here imports ``forecast.models``, ``forecast.wrappers`` or ``forecast.baselines``, so all three
build on it without a cycle.
"""
