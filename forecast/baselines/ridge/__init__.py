"""The ridge floor and its parts, each one piece the floor composes.

* :class:`~forecast.baselines.ridge.floor.RidgeFloor`: the floor, a forecaster.
* :class:`~forecast.baselines.ridge.stats.RidgeStats`: least-squares statistics and their ridge solution.
* :class:`~forecast.baselines.ridge.ensemble.LookbackEnsemble`: one ridge per look-back, averaged.
* :class:`~forecast.baselines.ridge.features.RandomFeatures`: random Fourier features of each row.
* :class:`~forecast.baselines.ridge.huber.Huber`: the reweighting of a robust (Huber) fit.
"""

from forecast.baselines.ridge.floor import RidgeFloor

__all__ = ["RidgeFloor"]
