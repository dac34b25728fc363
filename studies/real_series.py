"""Write the real series that docs/results.md §8 checks the default on, from the packages that ship them.

    pip install pvlib pmdarima
    python studies/real_series.py OUT_DIR

Writes ``tmy_greensboro.csv`` (pvlib's typical-meteorological-year file 723170TYA: hourly irradiance,
temperature, dew point, humidity, pressure and wind; the TMY months come from different years, so the
timestamps are one regular hourly year), ``msft.csv`` (pmdarima's daily MSFT prices from 2000, numbered
as consecutive business days) and ``taylor.csv`` (pmdarima's half-hourly electricity demand).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pandas as pd

TMY_COLUMNS = {"GHI (W/m^2)": "ghi", "DNI (W/m^2)": "dni", "DHI (W/m^2)": "dhi", "Dry-bulb (C)": "temp",
               "Dew-point (C)": "dew", "RHum (%)": "rh", "Pressure (mbar)": "pressure", "Wspd (m/s)": "wind"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write the CSV files to")
    args = parser.parse_args()
    try:
        import pmdarima.datasets as datasets
        import pvlib
    except ImportError as exc:
        sys.exit(f"error: {exc.name} is not installed; pip install pvlib pmdarima")
    args.out.mkdir(parents=True, exist_ok=True)
    tmy = pd.read_csv(Path(os.path.dirname(pvlib.__file__)) / "data" / "723170TYA.CSV", skiprows=1)
    tmy = tmy[list(TMY_COLUMNS)].rename(columns=TMY_COLUMNS)
    tmy.insert(0, "date", pd.date_range("2001-01-01 01:00", periods=len(tmy), freq="h"))
    tmy.to_csv(args.out / "tmy_greensboro.csv", index=False)
    msft = datasets.load_msft()
    msft = msft[msft.Date >= "2000-01-01"][["Open", "High", "Low", "Close"]].reset_index(drop=True)
    msft.insert(0, "date", pd.bdate_range("2000-01-03", periods=len(msft)))
    msft.to_csv(args.out / "msft.csv", index=False)
    taylor = datasets.load_taylor()
    pd.DataFrame({"date": pd.date_range("2000-06-05", periods=len(taylor), freq="30min"), "load": taylor}
                 ).to_csv(args.out / "taylor.csv", index=False)
    print(f"wrote tmy_greensboro.csv, msft.csv and taylor.csv to {args.out}")


if __name__ == "__main__":
    main()
