"""The default against its floors on real series from packages, under the evidence keep rule (docs/results.md §12).

    python studies/keep_rule.py OUT_DIR [--seeds 2021 1 2] [--series taylor msft ...] [--floors-only]
                                        [--set train.round_min=1 ...]

Writes the series (statsmodels, pmdarima and pvlib datasets, two generated ones, ETTh1/ETTh2 from ../shared/data) to
``OUT_DIR/data``, runs ``forecast-train`` (the default model, ``threads=1``) on each, one run per seed, and
appends one row per run to ``OUT_DIR/runs.csv``: every floor's validation and test MSE, the floor the
rule chose and the one the lowest validation MSE would have chosen, the decision between the start and
the best epoch (gain, later-half gain, statistic, p-value), the default's test MSE, the best epoch's test
MSE (a rolling backtest of its checkpoint where the rule kept the start), and the test MSE the previous
rule (keep the best epoch whenever its validation MSE is lower) would have given. Where the two rules
choose different floors, a second run with the previous rule (``evidence.ALPHA = 1``, no later-half
check) gives that number. ``--floors-only`` skips training and also scores a per-channel floor choice
on the multivariate files (``per_channel.csv``).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"

# name: (file, target, features, seq_len, label_len, pred_len, extra overrides)
SERIES: dict[str, tuple[str, str, str, int, int, int, list[str]]] = {
    "taylor": ("taylor.csv", "load", "S", 96, 48, 24, []),
    "msft": ("msft.csv", "Close", "M", 96, 48, 24, []),
    "dated": ("dated.tar.gz", "y", "S", 96, 48, 24, []),
    "sunspots_monthly": ("sunspots_monthly.csv", "sunspots", "S", 96, 48, 24, []),
    "co2_weekly": ("co2_weekly.csv", "co2", "S", 96, 48, 24, ["data.fill=interpolate"]),
    "elnino": ("elnino.csv", "temp", "S", 48, 24, 12, []),
    "sunspots_yearly": ("sunspots_yearly.csv", "activity", "S", 24, 12, 6, []),
    "macrodata": ("macrodata.csv", "realgdp", "M", 16, 8, 4, []),
    "wineind": ("wineind.csv", "sales", "S", 24, 12, 6, []),
    "ausbeer": ("ausbeer.csv", "beer", "S", 16, 8, 4, []),
    "airpassengers": ("airpassengers.csv", "passengers", "S", 24, 12, 6, []),
    "austres": ("austres.csv", "residents", "S", 16, 8, 4, []),
    "lynx": ("lynx.csv", "lynx", "S", 24, 12, 6, []),
    "woolyrnq": ("woolyrnq.csv", "wool", "S", 16, 8, 4, []),
    "weather_greensboro": ("weather_greensboro.csv", "temp_air", "M", 96, 48, 24, []),
    "weather_sandpoint": ("weather_sandpoint.csv", "temp_air", "M", 96, 48, 24, []),
    "particulates": ("particulates.csv", "PM2_5", "M", 96, 48, 24, []),
    "weather_miami": ("weather_miami.csv", "temp_air", "M", 96, 48, 24, []),
    "goog": ("goog.csv", "close", "M", 96, 48, 24, []),
    "stocks_monthly": ("stocks_monthly.csv", "GSPC", "M", 24, 12, 6, []),
    "eeg": ("eeg.csv", "ch1", "M", 48, 24, 12, ["data.timestamp_col=null"]),
    "nile": ("nile.csv", "volume", "S", 12, 6, 3, []),
    "interest_inflation": ("interest_inflation.csv", "R", "M", 16, 8, 4, []),
    "elec_equip": ("elec_equip.csv", "orders", "S", 24, 12, 6, []),
    "elec_vic": ("elec_vic.csv", "demand", "S", 96, 48, 24, []),
    "unemployment": ("unemployment.csv", "rate", "S", 24, 12, 6, ["data.timestamp_col=null"]),
    "gnp_quarterly": ("gnp_quarterly.csv", "gnp", "S", 16, 8, 4, ["data.timestamp_col=null"]),
    "baa_yield": ("baa_yield.csv", "baa", "S", 24, 12, 6, ["data.timestamp_col=null"]),
    "sp500_monthly": ("sp500_monthly.csv", "sp500", "S", 24, 12, 6, ["data.timestamp_col=null"]),
    "housing_starts": ("housing-data.csv", "HOUSTNSA", "S", 24, 12, 6, ["data.timestamp_col=DATE"]),
    "us_macro": ("2016-06-29.csv", "INDPRO", "MS", 24, 12, 6, ["data.timestamp_col=Date", "data.fill=interpolate"]),
    "wpi": ("results_wpi1_ar3_stata.csv", "wpi", "S", 16, 8, 4, ["data.timestamp_col=t", "data.columns=[wpi]"]),
    "industrial_growth": ("mar_filardo.csv", "dlip", "MS", 24, 12, 6,
                          ["data.timestamp_col=null", "data.columns=[dlip,dmdlleading]"]),
    "heart_rate": ("heart_rate.csv", "rate", "S", 16, 8, 4, ["data.timestamp_col=null"]),
    "german_macro": ("german_macro.csv", "invest", "M", 16, 8, 4, []),
    "german_rates": ("german_rates.csv", "i_short", "M", 24, 12, 6, []),
    "chirp": ("chirp.csv", "y", "S", 96, 48, 24, []),
    "fm_sine": ("fm_sine.csv", "y", "S", 96, 48, 24, []),
    "etth1": ("ETTh1.csv", "OT", "M", 96, 48, 24, []),
    "etth2": ("ETTh2.csv", "OT", "M", 96, 48, 24, []),
}
ETT = {"etth1": "data=etth1", "etth2": "data=etth2"}
#: generated series whose right answer is known (a residual can learn them; 20,000 rows, 12-20 min a run at one
#: thread), left out of the default list like ETT
GENERATED = ("chirp", "fm_sine")
#: real series that no choice of the default was measured on (matplotlib's sample data, statsmodels), left out of the
#: default list: the check of a rule on files it was not tuned on
FRESH = ("goog", "stocks_monthly", "eeg", "nile", "interest_inflation", "elec_equip", "elec_vic", "unemployment",
         "gnp_quarterly", "baa_yield", "sp500_monthly")
#: real series no choice of the default was measured on, added after §12.15's rule (12/06): statsmodels' test data
#: (US housing starts, the FRBNY nowcast's US macro file, the US wholesale price index, Filardo's industrial
#: production growth, Lütkepohl's West German macro and interest-rate files) and pmdarima's heart rate; the
#: first four read from the package's file as it is
LATEST = ("housing_starts", "us_macro", "wpi", "industrial_growth", "heart_rate", "german_macro", "german_rates")
FRESH = (*FRESH, *LATEST)
FLOORS = ("naive", "mean", "seasonal_naive", "ridge")
PROFILES = ("day_profile", "week_profile", "year_profile")


def write_series(out: Path) -> None:
    """The package datasets as CSV files with a ``date`` column, and pmdarima's ``dated.tar.gz`` as it ships."""
    import pmdarima.datasets as pm
    import statsmodels.api as sm

    import shutil

    out.mkdir(parents=True, exist_ok=True)

    def save(name: str, dates: pd.DatetimeIndex, columns: dict[str, Any]) -> None:
        pd.DataFrame({"date": dates, **columns}).to_csv(out / name, index=False)

    # pmdarima's 327 days of a daily series (y,date), read as shipped (a .tar.gz of one CSV)
    shutil.copyfile(Path(pm.__file__).parent / "data" / "dated.tar.gz", out / "dated.tar.gz")

    taylor = pm.load_taylor()
    save("taylor.csv", pd.date_range("2000-06-05", periods=len(taylor), freq="30min"), {"load": taylor})
    msft = pm.load_msft()
    msft = msft[msft.Date >= "2000-01-01"][["Open", "High", "Low", "Close"]].reset_index(drop=True)
    save("msft.csv", pd.bdate_range("2000-01-03", periods=len(msft)), dict(msft.items()))
    spots = pm.load_sunspots()
    save("sunspots_monthly.csv", pd.date_range("1749-01-01", periods=len(spots), freq="MS"), {"sunspots": spots})
    co2 = sm.datasets.co2.load_pandas().data
    save("co2_weekly.csv", pd.DatetimeIndex(co2.index), {"co2": co2["co2"].to_numpy()})
    nino = sm.datasets.elnino.load_pandas().data
    temps = nino.drop(columns="YEAR").to_numpy().reshape(-1)
    first = f"{int(nino.YEAR.iloc[0])}-01-01"
    save("elnino.csv", pd.date_range(first, periods=len(temps), freq="MS"), {"temp": temps})
    yearly = sm.datasets.sunspots.load_pandas().data
    save("sunspots_yearly.csv", pd.date_range("1700-01-01", periods=len(yearly), freq="YS"),
         {"activity": yearly.SUNACTIVITY.to_numpy()})
    macro = sm.datasets.macrodata.load_pandas().data.drop(columns=["year", "quarter"])
    save("macrodata.csv", pd.date_range("1959-01-01", periods=len(macro), freq="QS"), dict(macro.items()))
    wine = pm.load_wineind()
    save("wineind.csv", pd.date_range("1980-01-01", periods=len(wine), freq="MS"), {"sales": wine})
    beer = pm.load_ausbeer()
    beer = beer[~np.isnan(beer)]  # the last quarter is missing
    save("ausbeer.csv", pd.date_range("1956-01-01", periods=len(beer), freq="QS"), {"beer": beer})
    save("airpassengers.csv", pd.date_range("1949-01-01", periods=144, freq="MS"),
         {"passengers": pm.load_airpassengers()})
    save("austres.csv", pd.date_range("1971-04-01", periods=89, freq="QS"), {"residents": pm.load_austres()})
    save("lynx.csv", pd.date_range("1821-01-01", periods=114, freq="YS"), {"lynx": pm.load_lynx()})
    save("woolyrnq.csv", pd.date_range("1965-01-01", periods=119, freq="QS"), {"wool": pm.load_woolyrnq()})
    write_pvlib_series(out, save)
    write_fresh_series(out, save)
    write_latest_series(out)
    dates = pd.date_range("2020-01-01", periods=20_000, freq="h")
    for name, values in generated_series(len(dates)).items():
        save(f"{name}.csv", dates, {"y": values})


def generated_series(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Two hourly series of ``n`` steps, noise from one generator (chirp's drawn first): ``chirp``, a sine whose
    period sweeps from 48 to 8 steps over every 1,000 (noise sd 0.1), and ``fm_sine``, a sine of frequency
    ``(1 + 0.5 sin(2 pi t / 300)) / 24`` per step (noise sd 0.05)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    period = 48 - 40 * (t % 1000) / 1000.0  # (n,)
    chirp = np.sin(np.cumsum(2 * np.pi / period)) + rng.normal(0, 0.1, n)
    frequency = (1 + 0.5 * np.sin(2 * np.pi * t / 300)) / 24  # (n,)
    fm = np.sin(np.cumsum(2 * np.pi * frequency)) + rng.normal(0, 0.05, n)
    return {"chirp": chirp, "fm_sine": fm}


WEATHER = ("ghi", "dni", "dhi", "temp_air", "temp_dew", "relative_humidity", "pressure", "wind_direction",
           "wind_speed", "precipitable_water", "albedo", "TotCld (tenths)", "OpqCld (tenths)", "Hvis (m)")


# visibility and ceiling height are left out: their codes (9999 missing, 77777 unlimited) fill the file's last months
TMY2 = ("GHI", "DNI", "DHI", "temp_air", "DewPoint", "RHum", "Pressure", "Wdir", "Wspd", "TotCld", "OpqCld", "Pwat",
        "AOD")


def write_pvlib_series(out: Path, save: Any) -> None:
    """pvlib's hourly files: three typical meteorological years (TMY3 and TMY2; the first 12 columns of ``WEATHER``
    or ``TMY2`` that vary) and a year of rain and particulate matter (the soiling example's inputs)."""
    import pvlib

    data_dir = Path(pvlib.__file__).parent / "data"
    for name, file in (("weather_greensboro.csv", "723170TYA.CSV"), ("weather_sandpoint.csv", "703165TY.csv")):
        tmy, _ = pvlib.iotools.read_tmy3(data_dir / file, map_variables=True)
        columns = [c for c in WEATHER if tmy[c].std() > 0][:12]
        save(name, pd.date_range("2001-01-01", periods=len(tmy), freq="h"),
             {c.split(" (")[0]: tmy[c].to_numpy() for c in columns})
    tmy2, _ = pvlib.iotools.read_tmy2(data_dir / "12839.tm2")  # Miami
    tmy2 = tmy2.rename(columns={"DryBulb": "temp_air"})
    columns = [c for c in TMY2 if tmy2[c].std() > 0][:12]
    save("weather_miami.csv", pd.date_range("2001-01-01", periods=len(tmy2), freq="h"),
         {c: tmy2[c].to_numpy() for c in columns})
    soiling = pd.read_csv(data_dir / "soiling_hsu_example_inputs.csv", parse_dates=["TimeStamp"])
    save("particulates.csv", pd.DatetimeIndex(soiling.TimeStamp), {c: soiling[c].to_numpy() for c in ("rain", "PM2_5", "PM10")})


def write_fresh_series(out: Path, save: Any) -> None:
    """The ``FRESH`` series: matplotlib's sample prices (Google's trading days, 2004-2008; seven monthly prices,
    1990-2022, the month starts only: the file also holds dividend dates with no prices), its four-channel EEG
    (no timestamps), the Nile's yearly volume, statsmodels' quarterly inflation and interest rate, its monthly
    index of new orders for electrical equipment in the euro area, 1995-2016, and three series of its test data:
    Victoria's hourly electricity demand (150 days of 2012), Schwert's monthly unemployment rate, BAA bond yield and
    S&P 500 index and a quarterly real GNP (these four without dates)."""
    import matplotlib.cbook as cbook
    import statsmodels.api as sm
    from statsmodels.datasets import elec_equip

    def sample(name: str) -> str:
        return cbook.get_sample_data(name, asfileobj=False)

    goog = np.load(sample("goog.npz"))["price_data"]
    save("goog.csv", pd.DatetimeIndex(goog["date"]), {c: goog[c] for c in ("open", "high", "low", "close", "volume")})
    stocks = pd.read_csv(sample("Stocks.csv"), comment="#", parse_dates=["Date"])
    stocks = stocks[stocks.Date.dt.day == 1].dropna(axis=1, how="any").iloc[:-1]  # the last row repeats May's
    save("stocks_monthly.csv", pd.DatetimeIndex(stocks.Date),
         {c.lstrip("^"): stocks[c].to_numpy() for c in stocks.columns if c != "Date"})
    eeg = np.fromfile(sample("eeg.dat"), dtype=float).reshape(800, 4)
    pd.DataFrame({f"ch{i + 1}": eeg[:, i] for i in range(4)}).to_csv(out / "eeg.csv", index=False)
    nile = sm.datasets.nile.load_pandas().data
    save("nile.csv", pd.date_range("1871-01-01", periods=len(nile), freq="YS"), {"volume": nile.volume.to_numpy()})
    rates = sm.datasets.interest_inflation.load_pandas().data
    save("interest_inflation.csv", pd.date_range("1972-04-01", periods=len(rates), freq="QS"),
         {"Dp": rates.Dp.to_numpy(), "R": rates.R.to_numpy()})
    orders = elec_equip.load().data
    save("elec_equip.csv", pd.DatetimeIndex(orders.index), {"orders": orders.iloc[:, 0].to_numpy()})
    tests = Path(sm.__file__).parent / "tsa"
    vic = pd.read_csv(tests / "stl" / "tests" / "results" / "mstl_elec_vic.csv", parse_dates=["ds"])
    save("elec_vic.csv", pd.DatetimeIndex(vic.ds), {"demand": vic.y.to_numpy()})
    results = tests / "tests" / "results"
    for name, file, column in (("unemployment.csv", "UN.csv", "rate"), ("gnp_quarterly.csv", "rgnpq.csv", "gnp"),
                               ("baa_yield.csv", "BAA.csv", "baa"), ("sp500_monthly.csv", "SP500.csv", "sp500")):
        pd.DataFrame({column: pd.read_csv(results / file).iloc[:, 0].to_numpy()}).to_csv(out / name, index=False)


def _jmulti(path: Path) -> pd.DataFrame:
    """A JMulTi data file (a ``/* ... */`` comment, ``<1960 Q1>``, a header and a whitespace table) with its dates."""
    text = path.read_text()
    body = text[text.index("*/") + 2:].strip().splitlines()
    year, period = body[0].strip("<> ").split()
    frame = pd.read_csv(io.StringIO("\n".join(body[1:])), sep=r"\s+")
    months = 3 if period.startswith("Q") else 1
    first = pd.Timestamp(year=int(year), month=(int(period[1:]) - 1) * months + 1, day=1)
    frame.insert(0, "date", pd.date_range(first, periods=len(frame), freq="QS" if months == 3 else "MS"))
    return frame


def write_latest_series(out: Path) -> None:
    """The ``LATEST`` series: four files of statsmodels' test data copied as they are (the housing starts; the FRBNY
    nowcast's file, month starts written ``1/1/85``, 29 columns that start at different months; Stata's export of the
    wholesale price index, quarters ``1960q1``, and Filardo's industrial production growth, both with result columns
    beside the data and CR line ends), two of its JMulTi files as CSV (West German quarterly investment, income
    and consumption, 1960-1982; monthly short and long interest rates, 1960-1987) and pmdarima's 150 heart-rate
    readings (no timestamps)."""
    import shutil

    import pmdarima.datasets as pm
    import statsmodels

    tsa = Path(statsmodels.__file__).parent / "tsa"
    for file in ("holtwinters/tests/results/housing-data.csv",
                 "statespace/tests/results/frbny_nowcast/Nowcasting/data/US/2016-06-29.csv",
                 "statespace/tests/results/results_wpi1_ar3_stata.csv",
                 "regime_switching/tests/results/mar_filardo.csv"):
        shutil.copyfile(tsa / file, out / Path(file).name)
    var = tsa / "vector_ar" / "tests" / "results"
    _jmulti(var / "e1.dat").to_csv(out / "german_macro.csv", index=False)
    _jmulti(var / "e5.dat").to_csv(out / "german_rates.csv", index=False)
    pd.DataFrame({"rate": pm.load_heartrate()}).to_csv(out / "heart_rate.csv", index=False)


def ensure_series(data_dir: Path) -> None:
    """Write the package series under ``data_dir`` unless every one is there."""
    if not all((data_dir / SERIES[name][0]).is_file() for name in SERIES if name not in ETT):
        write_series(data_dir)


def data_overrides(name: str, data_dir: Path) -> list[str]:
    """The ``forecast-train`` overrides of a series' data."""
    file, target, features, seq_len, label_len, pred_len, extra = SERIES[name]
    if name in ETT:
        base = [ETT[name], f"data.path={SHARED / file}"]
    else:
        base = ["data=csv", f"data.path={data_dir / file}", f"data.target={target}"]
    return [*base, f"data.features={features}", f"data.seq_len={seq_len}", f"data.label_len={label_len}",
            f"data.pred_len={pred_len}", *extra]


def train(overrides: list[str], run_dir: Path, *, previous_rule: bool = False,
          logger: str = "none") -> dict[str, Any]:
    """One ``forecast-train`` run in a subprocess; its ``metrics.json``. ``logger``: the logger config
    (``default`` keeps each round's metrics in ``logs/metrics.csv``)."""
    if (run_dir / "metrics.json").is_file():
        return json.loads((run_dir / "metrics.json").read_text())
    prelude = ("import forecast.training.evidence as e; e.ALPHA = 1.0; e.CONFIRM_LATER = False; "
               if previous_rule else "")
    code = (f"{prelude}import sys; from forecast.cli.train import main; "
            "sys.argv = ['forecast-train', *sys.argv[1:]]; main()")
    args = [*overrides, "threads=1", "plot=false", f"logger={logger}", "trainer.enable_progress_bar=false",
            "trainer.enable_model_summary=false", f"hydra.run.dir={run_dir}"]
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{run_dir}: {proc.stderr[-3000:]}")
    return json.loads((run_dir / "metrics.json").read_text())


def backtest_mse(checkpoint: Path, csv_path: Path, out: Path, fill: list[str]) -> float:
    """Test MSE of ``checkpoint`` by a rolling backtest over the test span (equal to the run's ``test/mse``);
    ``fill``: the run's ``--fill`` for a file with empty cells."""
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.predict", str(checkpoint), str(csv_path), "--rolling",
                           "--span", "test", "--output", str(out), "--overwrite", *fill], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{checkpoint}: {proc.stderr[-3000:]}")
    return float(json.loads(out.with_suffix(".json").read_text())["metrics"]["model"]["mse"])


def csv_of(name: str, data_dir: Path) -> Path:
    return SHARED / SERIES[name][0] if name in ETT else data_dir / SERIES[name][0]


def one_run(name: str, seed: int, out: Path, extra: list[str]) -> dict[str, Any]:
    """The row of one (series, seed) run; ``extra``: more ``forecast-train`` overrides."""
    data_dir = out / "data"
    run_dir = out / "runs" / f"{name}-{seed}"
    overrides = [*data_overrides(name, data_dir), f"seed={seed}", *extra]
    m = train(overrides, run_dir)
    floors = m["floors"]
    by_val = min(floors, key=lambda f: floors[f]["val/mse"])
    chosen = m["floor_choice"]["chosen"]
    keep = m.get("keep", {})
    start_test = floors[chosen]["test/mse"]
    weighed = "gain" in keep  # an epoch beat the start on val/loss, so the two were weighed
    if not weighed:
        trained_test = None
    elif keep["decision"] == "trained":
        trained_test = m["test/mse"]
    else:
        best = sorted((run_dir / "checkpoints").glob("best*.ckpt"))
        fill = [f"--fill={o.split('=', 1)[1]}" for o in SERIES[name][6] if o.startswith("data.fill=")]
        trained_test = backtest_mse(best[-1], csv_of(name, data_dir), run_dir / "best_epoch_backtest.csv", fill)
    if by_val == chosen:
        previous = trained_test if weighed else start_test
    else:
        previous = train(overrides, out / "runs" / f"{name}-{seed}-previous", previous_rule=True)["test/mse"]
    best_on_test = min(floors, key=lambda f: floors[f]["test/mse"])
    return {
        "series": name, "seed": seed, "windows_val": m["floor_choice"]["comparisons"][0]["windows"],
        "test_windows": m["test_windows"],
        **{f"{f}_val": floors.get(f, {}).get("val/mse") for f in FLOORS},
        **{f"{f}_test": floors.get(f, {}).get("test/mse") for f in FLOORS},
        "floor_by_val": by_val, "floor_chosen": chosen, "best_floor_on_test": best_on_test,
        "start_test": start_test, "decision": keep.get("decision"), "gain": keep.get("gain"),
        "later_gain": keep.get("later_gain"), "statistic": keep.get("statistic"), "p_value": keep.get("p_value"),
        "trained_test": trained_test, "default_test": m["test/mse"], "previous_rule_test": previous,
        "epochs": m["epochs"], "wall_seconds": m["wall_seconds"],
    }


def fitted_floors(overrides: list[str]) -> tuple[Any, dict[str, Any]]:
    """The data module of ``forecast-train``'s ``overrides``, set up, and its floors with the ridge fitted on
    every training window (as the run's report fits it)."""
    import torch
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from forecast.baselines.best_floor import RIDGE
    from forecast.training.floors import build_floors

    with initialize_config_dir(str(ROOT / "forecast" / "conf"), version_base="1.3"):
        cfg = compose("train", overrides=[*overrides, "paths.output_dir=/tmp/unused"])
    dm = instantiate(cfg.data)
    dm.setup("fit")
    floors = build_floors(dm.model_dims(), dm.spec.freq)
    with torch.random.fork_rng(devices=[]):
        floors[RIDGE].fit_closed_form(dm.ordered_dataloader("train"))
    return dm, floors


def per_channel(name: str, out: Path) -> list[dict[str, Any]]:
    """Floors only: one floor for every channel against one floor per channel, both by the evidence rule."""
    import torch

    from forecast.baselines.best_floor import choose_floor
    from forecast.training.evidence import hac_lag

    dm, floors = fitted_floors(data_overrides(name, out / "data"))

    @torch.no_grad()
    def losses(split: str) -> dict[str, np.ndarray]:  # {floor: (W, C_out)}
        parts: dict[str, list[np.ndarray]] = {f: [] for f in floors}
        for b in dm.ordered_dataloader(split):
            for f, floor in floors.items():
                parts[f].append((floor(b.x_enc, b.x_mark_enc, b.x_mark_dec) - b.y).double().square().mean(1).numpy())
        return {f: np.concatenate(p) for f, p in parts.items()}

    val, test = losses("val"), losses("test")
    lag, names = hac_lag(dm.pred_len), list(floors)

    def choose(v: dict[str, np.ndarray]) -> str:
        return choose_floor(v, lag=lag)[0]

    whole = choose({f: v.mean(1) for f, v in val.items()})
    by_val = min(names, key=lambda f: val[f].mean())
    per = [choose({f: v[:, c] for f, v in val.items()}) for c in range(val[names[0]].shape[1])]
    test_per = float(np.mean([test[f][:, c].mean() for c, f in enumerate(per)]))
    return [{"series": name, "channels": len(per), "by_val": by_val, "by_val_test": float(test[by_val].mean()),
             "one_floor": whole, "one_floor_test": float(test[whole].mean()),
             "per_channel": " ".join(per), "per_channel_test": test_per,
             "best_floor_on_test": float(min(t.mean() for t in test.values()))}]


def table(out: Path) -> str:
    """The markdown table of ``runs.csv`` (one row per series, seeds pooled) and the goals' summary lines."""
    runs = pd.read_csv(out / "runs.csv").drop_duplicates(["series", "seed"], keep="last")
    # the decision at the current level from the recorded statistics (they do not depend on the level,
    # and neither do training or the floor choice where the floor had the lowest validation MSE)
    from forecast.training import evidence

    trained = (runs.gain > 0) & (runs.p_value < evidence.ALPHA) & (runs.later_gain > 0)
    runs["decision"] = np.where(trained, "trained", "start")
    runs["default_test"] = np.where(trained, runs.trained_test, runs.start_test)
    lines = ["| data | windows val / test | seeds | naive | mean | seasonal naive | ridge | day / week / year profile "
             "| floor chosen (by val MSE) "
             "| best epoch against the start (p) | previous rule | **default** | default / its start "
             "| default / best floor on test |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios, previous_ratios, all_floor_ratios = [], [], []

    def cell(values: pd.Series) -> str:
        values = values.astype(float)
        spread = values.std() if len(values) > 1 else 0.0
        return f"{values.mean():.4g}" + (f" ± {spread:.2g}" if spread > 1e-6 * abs(values.mean()) else "")

    def metrics(row: pd.Series) -> dict[str, Any]:
        return json.loads((out / "runs" / f"{row.series}-{row.seed}" / "metrics.json").read_text())

    for name, rows in runs.groupby("series", sort=False):
        first = rows.iloc[0]
        floors = [f"{first[f + '_test']:.4g}" if pd.notna(first[f + "_test"]) else "–" for f in FLOORS]
        best = float(rows[[f + "_test" for f in FLOORS]].min(axis=1).iloc[0])
        saved = metrics(first)
        windows = saved["floor_choice"]["comparisons"][0]["windows"]
        profile_tests = [saved["floors"][f]["test/mse"] if f in saved["floors"] else None for f in PROFILES]
        best_all = min([best, *(t for t in profile_tests if t is not None)])
        all_floor_ratios += list(rows.default_test / best_all)
        kept = ", ".join(("trained" if d == "trained" else "start") for d in rows.decision)
        p_values = [f"{p:.2g}" for p in rows.p_value if pd.notna(p)]
        decisions = kept + (f" (p {', '.join(p_values)})" if p_values else " (no epoch ahead of the start)")
        chosen = ", ".join(sorted(set(rows.floor_chosen)))
        by_val = ", ".join(sorted(set(rows.floor_by_val)))
        ratio = rows.default_test / rows.start_test
        ratios += list(rows.default_test / best)
        previous_ratios += list(rows.previous_rule_test / best)
        shown = " / ".join("–" if t is None else f"{t:.4g}" for t in profile_tests)
        lines.append(f"| {name} | {windows} / {first.test_windows} | {len(rows)} | {' | '.join(floors)} "
                     f"| {shown} "
                     f"| {chosen} ({by_val}) | {decisions} "
                     f"| {cell(rows.previous_rule_test)} | **{cell(rows.default_test)}** | {ratio.max():.4f} (max) "
                     f"| {cell(rows.default_test / best)} |")
    geo = float(np.exp(np.mean(np.log(ratios))))
    geo_previous = float(np.exp(np.mean(np.log(previous_ratios))))
    worst = float((runs.default_test / runs.start_test).max())
    geo_all = float(np.exp(np.mean(np.log(all_floor_ratios))))
    lines += ["", f"runs {len(runs)}; default / its start at most {worst:.4f}; geometric mean of default / "
              f"best floor on test {geo:.3f} (previous rule {geo_previous:.3f}; the profiles counted as floors "
              f"{geo_all:.3f})"]
    return "\n".join(lines)


def append(path: Path, rows: list[dict[str, Any]]) -> None:
    new = not path.is_file()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[2021])
    parser.add_argument("--series", nargs="+", default=[s for s in SERIES if s not in (*ETT, *GENERATED, *FRESH)],
                        choices=list(SERIES))
    parser.add_argument("--floors-only", action="store_true")
    parser.add_argument("--table", action="store_true", help="print the table of OUT/runs.csv and stop")
    parser.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                        help="more forecast-train overrides for every run (give them an OUT of their own)")
    args = parser.parse_args()
    if args.table:
        print(table(args.out))
        return
    ensure_series(args.out / "data")
    for name in args.series:
        if args.floors_only:
            append(args.out / "per_channel.csv", per_channel(name, args.out))
            continue
        for seed in args.seeds:
            row = one_run(name, seed, args.out, args.set)
            append(args.out / "runs.csv", [row])
            print(json.dumps({k: row[k] for k in ("series", "seed", "floor_chosen", "decision", "p_value",
                                                  "start_test", "default_test", "previous_rule_test")}), flush=True)


if __name__ == "__main__":
    main()
