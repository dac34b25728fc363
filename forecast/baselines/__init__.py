"""Honest baselines with the Informer contract: ``forward(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.

Every baseline takes the data's sizes (``dims``, :class:`~forecast.core.forecaster.DataDims`) and its own
options, and no attention arguments, so any of them is ``model=<name>``.

* :class:`~forecast.baselines.naive.Naive`: repeat the last input value.
* :class:`~forecast.baselines.mean.WindowMean`: the input window's mean.
* :class:`~forecast.baselines.seasonal_naive.SeasonalNaive`: repeat the last season.
* :class:`~forecast.baselines.ridge.RidgeFloor`: closed-form ridge regression on the window (the ridge floor).
* :class:`~forecast.baselines.dlinear.DLinear`: trend/seasonal decomposition + two linear maps (trained).
"""
