"""Series named by several columns together (``data.id_col=[store,item]``), and the refusal of repeated timestamps
naming the columns that would name each row's series."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.reader import _series_codes, read_panel
from forecast.data.series_ids import id_name, id_parts


def _stores(tmp_path: Path, rows: int = 60) -> Path:
    days = pd.date_range("2013-01-01", periods=rows, freq="D").strftime("%Y-%m-%d")
    frames = [pd.DataFrame({"date": days, "store": store, "item": item,
                            "sales": np.arange(rows) * 0.5 + 10 * k})
              for k, (store, item) in enumerate([("1", "001"), ("1", "002"), ("2", "001")])]
    csv = tmp_path / "sales.csv"
    pd.concat(frames).to_csv(csv, index=False)
    return csv


def test_two_columns_name_the_series_together(tmp_path: Path) -> None:
    csv = _stores(tmp_path)
    panel = read_panel(csv, id_col=["store", "item"])
    assert panel.id_col == "store + item" and panel.ids == ["1 / 001", "1 / 002", "2 / 001"]
    np.testing.assert_array_equal(panel.series[2].frame["sales"].to_numpy(), np.arange(60) * 0.5 + 20)
    assert list(panel.series[0].frame.columns) == ["sales"]
    assert panel.notes == (f"{csv}: detected series named by columns 'store' and 'item' together ('store + item')",)


def test_a_trained_model_joins_the_columns_again_by_the_joined_name(tmp_path: Path) -> None:
    csv = _stores(tmp_path)
    first, again = read_panel(csv, id_col=["store", "item"]), read_panel(csv, id_col="store + item")
    assert again.ids == first.ids
    for a, b in zip(first.series, again.series):
        pd.testing.assert_frame_equal(a.frame, b.frame)


def test_the_data_module_takes_a_list(tmp_path: Path) -> None:
    dm = ForecastDataModule(path=str(_stores(tmp_path)), id_col=["store", "item"], seq_len=8, label_len=4,
                            pred_len=2)
    dm.setup("fit")
    assert dm.spec.id_col == "store + item" and dm.spec.series_ids == ("1 / 001", "1 / 002", "2 / 001")


@pytest.mark.parametrize("id_col,named", [
    (None, "if columns 'store' and 'item' together name each row's series (long format), pass "
           "data.id_col=[store,item]"),
    ("store", "if columns 'store' and 'item' together name each row's series (long format), pass "
              "data.id_col=[store,item]"),
])
def test_repeated_timestamps_name_the_columns_of_the_series(tmp_path: Path, id_col: str | None, named: str) -> None:
    csv = _stores(tmp_path)
    with pytest.raises(DataError) as caught:
        read_panel(csv, id_col=id_col)
    series = "" if id_col is None else " of series 1"
    assert str(caught.value) == (f"{csv}: line 62: duplicate timestamp 2013-01-01 00:00:00{series} (also on line 2, "
                                 f"with another 'item'); remove or aggregate duplicates; {named}")


def test_one_column_of_labels_names_the_series_alone(tmp_path: Path) -> None:
    csv = tmp_path / "firms.csv"
    pd.DataFrame({"firm": ["GM"] * 5 + ["IBM"] * 5, "year": list(range(1935, 1940)) * 2,
                  "invest": np.arange(10.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.id_col == "firm" and panel.ids == ["GM", "IBM"] and panel.timestamp_col == "year"
    np.testing.assert_array_equal(panel.series[1].frame["invest"].to_numpy(), np.arange(5.0, 10.0))


def test_labels_name_no_series_where_few_timestamps_repeat(tmp_path: Path) -> None:
    """A repeated hour among many (the Metro traffic file's rows of two weathers in one hour) is no panel: refused
    naming the aggregation of readings, not the column of labels that would tell the two rows apart."""
    csv = tmp_path / "readings.csv"
    hours = pd.date_range("2021-01-01", periods=40, freq="h").strftime("%Y-%m-%d %H:%M:%S").tolist()
    pd.DataFrame({"time": hours[:20] + hours[19:39], "sky": ["clear"] * 20 + ["rain"] * 20,
                  "load": np.arange(40.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as caught:
        read_panel(csv)
    assert str(caught.value) == (f"{csv}: line 22: duplicate timestamp 2021-01-01 19:00:00 (also on line 21, with "
                                 f"another 'load'); remove or aggregate duplicates; or aggregate the readings into "
                                 f"steps: data.resample=FREQ (e.g. h), data.agg=mean|sum|...")  # not 'sky' as the id


@pytest.mark.parametrize("given,parts,name", [(["a", "b"], ["a", "b"], "a + b"), ("a + b", ["a", "b"], "a + b"),
                                              ("store", [], "store"), (["store"], [], "store"), (None, [], None),
                                              ([], [], None)])
def test_id_names_and_parts(given, parts: list[str], name: str | None) -> None:
    assert id_parts(given) == parts and id_name(given) == name


def test_values_written_with_decimal_commas_keep_the_joined_ids(tmp_path: Path) -> None:
    csv = tmp_path / "sales.csv"
    days = pd.date_range("2013-01-01", periods=4, freq="D").strftime("%Y-%m-%d")
    rows = [f"{d};{s};{i};{k},5" for s, i in (("1", "001"), ("2", "001")) for k, d in enumerate(days)]
    csv.write_text("date;store;item;sales\n" + "\n".join(rows) + "\n")
    panel = read_panel(csv, id_col=["store", "item"])
    assert panel.ids == ["1 / 001", "2 / 001"]
    np.testing.assert_array_equal(panel.series[1].frame["sales"].to_numpy(), [0.5, 1.5, 2.5, 3.5])


def test_a_column_missing_from_the_id_is_named(tmp_path: Path) -> None:
    csv = _stores(tmp_path)
    with pytest.raises(DataError) as caught:
        read_panel(csv, id_col=["store", "shelf"])
    assert str(caught.value) == (f"{csv}: no id column 'shelf' of the series id 'store + shelf' (columns: date, store, "
                                 f"item, sales); set data.id_col")


def _long(tmp_path: Path, names: tuple[str, str, str], ids: tuple[str, ...] = ("u1", "u2", "u3")) -> Path:
    series, stamp, value = names
    hours = pd.date_range("2021-01-01", periods=30, freq="h").strftime("%Y-%m-%d %H:%M:%S")
    frames = [pd.DataFrame({series: name, stamp: hours, value: np.arange(30) + 100.0 * k})
              for k, name in enumerate(ids)]
    csv = tmp_path / "long.csv"
    pd.concat(frames).to_csv(csv, index=False)
    return csv


@pytest.mark.parametrize("names", [("unique_id", "ds", "y"), ("item_id", "timestamp", "target"),
                                   ("Series_ID", "date", "value")])
def test_a_column_named_as_a_series_id_by_convention_names_the_series(tmp_path: Path,
                                                                      names: tuple[str, str, str]) -> None:
    csv = _long(tmp_path, names)
    panel = read_panel(csv, timestamp_col="date")
    assert panel.id_col == names[0] and panel.ids == ["u1", "u2", "u3"]
    np.testing.assert_array_equal(panel.series[1].frame[names[2]].to_numpy(), np.arange(30) + 100.0)
    assert f"series named by column {names[0]!r} (long format)" in panel.notes[0]


def test_the_data_module_keeps_the_conventional_id_for_prediction(tmp_path: Path) -> None:
    dm = ForecastDataModule(path=str(_long(tmp_path, ("unique_id", "ds", "y"))), seq_len=8, label_len=4, pred_len=2)
    dm.setup("fit")
    assert dm.spec.id_col == "unique_id" and dm.spec.series_ids == ("u1", "u2", "u3")
    assert dm.spec.target_columns == ("y",)


def test_a_conventional_id_of_one_value_and_unrepeated_timestamps_is_no_series(tmp_path: Path) -> None:
    panel = read_panel(_long(tmp_path, ("unique_id", "ds", "y"), ids=("only",)), timestamp_col="date")
    assert panel.id_col is None and len(panel.series) == 1
    assert list(panel.series[0].frame.columns) == ["y"]


def test_a_long_files_row_numbers_are_left_out(tmp_path: Path) -> None:
    """Favorita's ``id`` numbers the rows of a file sorted by date: within a series it steps by the series' count,
    so no series' counter finds it."""
    days = pd.date_range("2016-01-01", periods=20, freq="D").strftime("%Y-%m-%d")
    frame = pd.DataFrame([(d, store, 100.0 * store + k) for k, d in enumerate(days) for store in (1, 2, 3)],
                         columns=["date", "store_nbr", "sales"])
    frame.insert(0, "id", np.arange(len(frame)))
    csv = tmp_path / "train.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv, id_col="store_nbr")
    assert list(panel.series[0].frame.columns) == ["sales"]
    assert panel.notes == (f"{csv}: detected column(s) numbering the file's rows left out ('id')",)
    assert list(read_panel(csv, id_col="store_nbr", columns=["id", "sales"]).series[1].frame["id"][:2]) == [1.0, 4.0]


def test_a_key_on_every_row_is_left_out(tmp_path: Path) -> None:
    """A traffic file's ``ID`` writes each row's date, hour and junction as one number: a key, not a value to
    forecast (read as one, it was the default target, the last column)."""
    hours = pd.date_range("2015-11-01", periods=30, freq="h")
    frame = pd.concat([pd.DataFrame({"DateTime": hours.strftime("%Y-%m-%d %H:%M:%S"), "Junction": j,
                                     "Vehicles": np.arange(30) % 7 + j,
                                     "ID": hours.strftime("%Y%m%d%H").astype(np.int64) * 10 + j}) for j in (1, 2)])
    csv = tmp_path / "traffic.csv"
    frame.to_csv(csv, index=False)
    panel = read_panel(csv, id_col="Junction")
    assert [list(s.frame.columns) for s in panel.series] == [["Vehicles"], ["Vehicles"]]
    assert panel.notes == (f"{csv}: detected timestamps in column 'DateTime', column(s) keying each row (a different "
                           f"value on every row) left out ('ID')",)
    named = read_panel(csv, id_col="Junction", columns=["Vehicles", "ID"]).series[1].frame
    assert list(named["ID"][:2]) == [20151101002.0, 20151101012.0]
    assert list(read_panel(csv, id_col="Junction", keep=["ID"]).series[0].frame.columns) == ["Vehicles", "ID"]


@pytest.mark.parametrize("name, cells, left_out", [
    ("id", ["a9f3", "07bc", "e211", "5d0a"], True),  # text keys, none empty
    ("row_id", [17, 3, 950, 41], True),
    ("id", [17, 3, 17, 41], False),  # a value repeats: not a key
    ("id", ["a9f3", "", "e211", "5d0a"], False),  # a row without its key
    ("id", [1.5, 3.0, 950.0, 41.0], False),  # not whole numbers
    ("NO", [17, 3, 950, 41], False),  # nitric oxide, a measurement
    ("number", [17, 3, 950, 41], False),
])
def test_a_key_is_named_so_and_differs_on_every_row(tmp_path: Path, name: str, cells: list, left_out: bool) -> None:
    days = pd.date_range("2020-01-01", periods=len(cells), freq="D").strftime("%Y-%m-%d")
    csv = tmp_path / "one.csv"
    pd.DataFrame({"date": days, name: cells, "sales": [1.0, 2.0, 4.0, 3.0]}).to_csv(csv, index=False)
    if not left_out and isinstance(cells[0], str):
        with pytest.raises(DataError, match=f"column {name!r} has non-numeric value"):
            read_panel(csv)
        return
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == (["sales"] if left_out else [name, "sales"])
    assert any(f"keying each row (a different value on every row) left out ({name!r})" in n
               for n in panel.notes) == left_out


def _owid(tmp_path: Path, codes: tuple[str, ...] = ("AFG", "", "ZWE")) -> Path:
    """Our World in Data's layout: ``Entity,Code,Year,<value>``, a region's code empty."""
    csv = tmp_path / "owid.csv"
    rows = [(entity, code, year, 40.0 + k + 0.5 * (year - 1950))
            for k, (entity, code) in enumerate(zip(("Afghanistan", "Africa", "Zimbabwe"), codes))
            for year in range(1950, 1980)]
    pd.DataFrame(rows, columns=["Entity", "Code", "Year", "Life expectancy"]).to_csv(csv, index=False)
    return csv


def test_a_text_column_of_one_label_per_series_is_left_out(tmp_path: Path) -> None:
    csv = _owid(tmp_path)
    panel = read_panel(csv)
    assert panel.id_col == "Entity" and panel.ids == ["Afghanistan", "Africa", "Zimbabwe"]
    assert list(panel.series[2].frame.columns) == ["Life expectancy"]
    np.testing.assert_array_equal(panel.series[2].frame["Life expectancy"].to_numpy()[:2], [42.0, 42.5])
    assert panel.notes[0].endswith("column(s) labelling each series left out ('Code': AFG, ZWE)")
    with pytest.raises(DataError, match=r"line 2: column 'Code' has non-numeric value 'AFG'"):
        read_panel(csv, columns=["Code", "Life expectancy"])  # named: read, and refused as no number


def test_a_label_that_changes_within_a_series_is_no_label_of_it(tmp_path: Path) -> None:
    csv = _owid(tmp_path)
    frame = pd.read_csv(csv, keep_default_na=False)
    frame.loc[5, "Code"] = "AFX"
    frame.to_csv(csv, index=False)
    notes = read_panel(csv).notes[0]  # four labels: a few categories, left out as such
    assert "labelling each series" not in notes and "column(s) of categories left out ('Code': AFG, AFX, ZWE)" in notes
    frame["Code"] = [f"C{k}" for k in range(len(frame))]  # a label on every row: no label of a series
    frame.to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"line 2: column 'Code' has non-numeric value 'C0'"):
        read_panel(csv)


def test_numbers_of_one_value_in_each_series_label_it(tmp_path: Path) -> None:
    """Statistics Canada's tables: a series a ``VECTOR`` (a place and a product), its ``GEO``, ``Products``,
    ``UOM_ID`` and ``COORDINATE`` on each of its rows."""
    months = pd.period_range("2015-01", periods=24, freq="M").astype(str)
    rows = [(m, geo, product, 17, f"{k + 1}.{q + 1}", f"v{41690974 + 2 * k + q}", 100.0 + k + j / 2)
            for k, geo in enumerate(("Canada", "Ontario")) for q, product in enumerate(("All-items", "Food"))
            for j, m in enumerate(months)]
    csv = tmp_path / "18100004.csv"
    pd.DataFrame(rows, columns=["REF_DATE", "GEO", "Products", "UOM_ID", "COORDINATE", "VECTOR", "VALUE"]).to_csv(
        csv, index=False)
    panel = read_panel(csv)
    assert panel.id_col == "VECTOR" and len(panel.series) == 4 and list(panel.series[0].frame.columns) == ["VALUE"]
    assert panel.notes[0].endswith("column(s) labelling each series left out ('GEO': Canada, Ontario, 'Products': "
                                   "All-items, Food, 'UOM_ID': 17, ...)")
    kept = read_panel(csv, keep=["COORDINATE"])  # a column named to keep stays
    assert list(kept.series[0].frame.columns) == ["COORDINATE", "VALUE"]
    assert kept.series[3].frame["COORDINATE"].iloc[0] == 2.2


PAIRS = [(t, r) for t in ("conventional", "organic") for r in ("Albany", "Atlanta")]


def test_kaggles_avocado_file_names_its_label_columns_and_leaves_its_index_out(tmp_path: Path) -> None:
    """``,Date,AveragePrice,...,type,year,region``: pandas' index restarting in each series, each written newest
    first; the columns of labels that name the series come after eight others."""
    weeks = pd.date_range("2015-01-04", periods=20, freq="W-SUN")
    frames = [pd.DataFrame({"Date": weeks.strftime("%Y-%m-%d"), "AveragePrice": 1.0 + k + np.arange(20) / 100,
                            **{f"v{j}": j + np.arange(20) / 2 for j in range(6)}, "type": typ, "year": weeks.year,
                            "region": region}).iloc[::-1].reset_index(drop=True)
              for k, (typ, region) in enumerate(PAIRS)]
    csv = tmp_path / "avocado.csv"
    pd.concat(frames).to_csv(csv)
    with pytest.raises(DataError, match=r"if columns 'type' and 'region' together name each row's series \(long "
                                        r"format\), pass data.id_col=\[type,region\]$"):
        read_panel(csv)
    panel = read_panel(csv, id_col=["type", "region"])
    assert panel.ids == ["conventional / Albany", "conventional / Atlanta", "organic / Albany", "organic / Atlanta"]
    assert list(panel.series[0].frame.columns) == ["AveragePrice", *(f"v{j}" for j in range(6))]
    assert panel.series[3].frame["AveragePrice"].iloc[0] == 4.0
    assert "column(s) numbering the file's rows left out ('Unnamed: 0')" in panel.notes[0]


def test_an_empty_series_id_is_refused_at_its_line(tmp_path: Path) -> None:
    csv = tmp_path / "long.csv"
    csv.write_text("date,store,sales\n2021-01-01,a,1\n2021-01-02,a,2\n2021-01-01, ,3\n")
    with pytest.raises(DataError) as caught:
        read_panel(csv, id_col="store")
    assert str(caught.value) == f"{csv}: line 4: empty series id in column 'store'; give every row its series"


def test_categories_name_the_series_as_their_text_does() -> None:
    """A DataFrame's ids stored as categories: series in order of first appearance, labels equal once stripped
    one series, as the same ids written as text; a missing id refused (it stopped at a TypeError)."""
    days = list(pd.date_range("2021-01-01", periods=6, freq="D"))
    frame = pd.DataFrame({"date": days[:3] + days[:3] + days[3:], "sales": np.arange(9.0),
                          "store": pd.Categorical(["b"] * 3 + ["a"] * 3 + ["b "] * 3, categories=["a", "b", "b "])})
    panel = read_panel(frame, id_col="store")
    got = [(s.series_id, s.frame["sales"].tolist()) for s in panel.series]
    assert got == [("b", [0.0, 1.0, 2.0, 6.0, 7.0, 8.0]), ("a", [3.0, 4.0, 5.0])]
    as_text = read_panel(frame.assign(store=frame["store"].astype(str)), id_col="store")
    assert got == [(s.series_id, s.frame["sales"].tolist()) for s in as_text.series]
    frame["store"] = frame["store"].cat.set_categories(["a", "b"])  # "b " no category: missing
    with pytest.raises(DataError, match=r"<DataFrame>: row 6: empty series id in column 'store'; give every row its series"):
        read_panel(frame, id_col="store")


def test_a_melted_tables_categories_number_the_series_by_their_labels() -> None:
    ids = pd.Series(pd.Categorical.from_codes([1, 1, 0, 2, -1, 0], categories=["x", "y", "y "]))
    codes, names = _series_codes(ids)
    assert codes.tolist() == [0, 0, 1, 0, 2, 1] and names.tolist() == ["y", "x", ""]


def test_a_series_stepping_by_a_multiple_of_the_others_step_names_the_fill(tmp_path: Path) -> None:
    """Walmart's sales by store and department: one department sold every seventh week only."""
    weeks = pd.date_range("2010-02-05", periods=70, freq="W-FRI")
    rows = [("1", dept, week, 100.0 + k) for dept in ("1", "2") for k, week in enumerate(weeks)]
    rows += [("1", "99", week, 5.0) for week in weeks[::7]]
    csv = tmp_path / "walmart.csv"
    pd.DataFrame(rows, columns=["Store", "Dept", "Date", "Weekly_Sales"]).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, id_col=["Store", "Dept"])
    assert str(err.value) == (f"{csv}: the timestamps of series 1 / 99 step by '7W-FRI', not by 'W-FRI' as the other "
                              f"series do (no two of its rows are 'W-FRI' apart): pass data.fill_missing_dates=true "
                              f"with data.fill=ffill|interpolate to add its missing steps, or leave the series out of "
                              f"the file")
    panel = read_panel(csv, id_col=["Store", "Dept"], fill="ffill", fill_missing_dates=True)
    assert panel.freq == "W-FRI" and [len(s.frame) for s in panel.series] == [70, 70, 64]


def test_a_long_file_starting_on_an_autumn_night_names_its_series_not_a_zone(tmp_path: Path) -> None:
    """Every hour written once per junction from 2015-11-01 00:00: the repeats are series, not a clock going back."""
    hours = pd.date_range("2015-11-01", periods=48, freq="h")
    csv = tmp_path / "traffic.csv"
    pd.DataFrame({"DateTime": np.tile(hours, 3), "Junction": np.repeat([1, 2, 3], 48),
                  "Vehicles": np.arange(144.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 50: duplicate timestamp 2015-11-01 00:00:00 (also on line 2, with "
                              f"another 'Junction'); remove or aggregate duplicates; if column 'Junction' names each "
                              f"row's series (long format), pass data.id_col=Junction")
