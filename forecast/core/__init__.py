"""What models, wrappers and baselines share: the forecaster contract, the calendar profile, config errors.

Nothing here imports ``forecast.models`` or ``forecast.baselines``, so both build on it without a cycle.
"""
