"""Thin wrapper: ``python scripts/predict.py CHECKPOINT INPUT.csv ...`` is ``forecast-predict``."""

from forecast.cli.predict import main

if __name__ == "__main__":
    main()
