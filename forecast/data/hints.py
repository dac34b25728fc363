"""What to tell the user to do, in the words of the command that read the file.

``forecast-train`` is configured by Hydra keys (``data.fill=ffill``), ``forecast-predict`` by
options (``--fill ffill``), a model :func:`forecast.api.load` gives by keywords (``fill='ffill'``); the
same problem gets the same message with the right remedy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNQUOTED = re.compile(r"[\w\-+.$%*@?|/:]+")  # what a Hydra override may hold without quotes


@dataclass(frozen=True)
class Hints:
    """Remedies named in :class:`~forecast.data.errors.DataError` messages and notes.

    Attributes:
        timestamp: what to do when the timestamp column is missing.
        fill: the setting that fills empty, NaN and infinite cells.
        header: the setting that reads a file without a header row.
        fill_missing_dates: the setting that adds the rows missing from the timestamps.
        freq: the setting that names the frequency.
        id_col: the setting that names the series id column.
        setting: how a reading option (``forecast.data.dialect``) is set, with ``{key}`` and ``{value}``.
        columns: how to leave a column of the file out ("" where the command reads only the columns it needs).
        resample: how to aggregate readings at irregular or repeated times into steps, as the end of a message
            (``; or aggregate them ...``; "" where the model's steps are fixed).
        encoding: the setting that names the file's text encoding.
    """

    timestamp: str
    fill: str
    header: str
    fill_missing_dates: str
    freq: str
    id_col: str
    setting: str = "data.{key}={value}"
    columns: str = ""
    resample: str = ""
    encoding: str = "data.encoding=NAME"

    @property
    def leave_out(self) -> str:
        """:attr:`columns` as a remedy of its own (``leave the column out: ...``); "" where there is none."""
        return self.columns.removeprefix("or ")

    def set(self, key: str, value: str) -> str:
        """The remedy that sets the reading option ``key`` (``data.dayfirst=true``)."""
        return self.setting.format(key=key, value=value)

    def set_list(self, key: str, item: str) -> str:
        """The remedy that sets the reading option ``key`` to a list of ``item``, quoted where an override must
        quote it, for a shell too: ``data.na_values=[n/a]``, ``"data.na_values=['<1']"``."""
        if _UNQUOTED.fullmatch(item):
            return self.set(key, f"[{item}]")
        override = self.setting.format(key=key, value="{value}").split(" ")[0]  # data.na_values={value}
        quoted = override.format(value="['" + item.replace("'", "\\'") + "']")
        return self.setting.format(key=key, value="{value}").replace(override, f'"{quoted}"')


TRAIN = Hints(timestamp="set data.timestamp_col=NAME, or data.timestamp_col=null for rows without timestamps",
              fill="data.fill=ffill|interpolate", header="data.header=false",
              fill_missing_dates="data.fill_missing_dates=true", freq="set data.freq", id_col="set data.id_col",
              columns="or leave the column out: data.columns=[the columns to use]",
              resample="; or aggregate the readings into steps: data.resample=FREQ (e.g. h), data.agg=mean|sum|...")
PREDICT = Hints(timestamp="pass --timestamp-col NAME, or --timestamp-col none for rows without timestamps",
                fill="--fill ffill|interpolate", header="--no-header", fill_missing_dates="--fill-missing-dates",
                freq="resample the file", id_col="the model was trained with that id column",
                setting="data.{key}={value} when training (forecast-predict reads the checkpoint's)",
                encoding="--encoding NAME")
PYTHON = Hints(timestamp="pass timestamp_col='NAME', or timestamp_col=None for rows without timestamps",
               fill="fill='ffill'|'interpolate'", header="header=False", fill_missing_dates="fill_missing_dates=True",
               freq="resample the data", id_col="the model was trained with that id column",
               setting="data.{key}={value} when training (forecast.load reads the checkpoint's)",
               encoding="encoding='NAME'")
