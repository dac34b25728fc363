"""Forecast new CSVs from a trained checkpoint (``forecast-predict``): one-shot and rolling backtest."""

from forecast.predict.forecaster import Forecaster
from forecast.predict.rolling import Backtest, run_backtest

__all__ = ["Backtest", "Forecaster", "run_backtest"]
