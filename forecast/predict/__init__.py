"""Forecast new CSVs from a trained checkpoint (``forecast-predict``): one-shot and rolling backtest."""

from forecast.predict.trained_model import TrainedModel
from forecast.predict.rolling import Backtest, run_backtest

__all__ = ["Backtest", "TrainedModel", "run_backtest"]
