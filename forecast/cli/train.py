"""``forecast-train``: train and test a forecaster from the Hydra config in ``forecast/conf/``.

Examples::

    forecast-train                                   # the best floor and an MLP residual on data/ETTh1.csv
    forecast-train experiment=informer_etth1_24      # the paper's ETTh1 horizon-24 row
    forecast-train model=informer_floor attention=full              # an Informer residual, full attention
    forecast-train -m model=informer_floor attention=full,prob,local  # sweep backends
    forecast-train -v                                # also Lightning's own lines, the model summary, warnings
    forecast-train data.pred_len=48 resume=outputs/2026-11-23/02-40-00-123456  # continue a run that stopped
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import ConfigCompositionException, OverrideParseException
from omegaconf import DictConfig
from omegaconf.errors import MissingMandatoryValue

from forecast.cli.sweep import in_sweep, record_failed_job
from forecast.io import remove_unfinished_run
from forecast.runtime import CONF_DIR, register_resolvers, tune_malloc
from forecast.training.read_first import read_first
from forecast.user_errors import check_required, config_error, user_error


register_resolvers()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="train")
def _hydra_main(cfg: DictConfig) -> float:
    try:
        check_required(cfg)
        prepared = read_first(cfg.data)  # bad data refused before Lightning is imported
        from forecast.training.pipeline import train  # Lightning and torch's compiler stack: seconds to import

        metrics = train(cfg, prepared=prepared)
    except Exception as exc:  # noqa: BLE001 - user errors become one line; anything else re-raises
        message = user_error(exc)
        if message is None:
            raise
        if cfg.get("resume"):  # a refused resume leaves the run dir as it found it
            shutil.rmtree(Path(cfg.paths.output_dir) / HydraConfig.get().output_subdir, ignore_errors=True)
        remove_unfinished_run(cfg.paths.output_dir)
        if in_sweep():  # the other jobs still run; the sweep exits with status 2 at its end
            print(f"error: {record_failed_job(message)}", file=sys.stderr)
            return float("nan")
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)
    return float(metrics.get(cfg.get("optimized_metric", "val/mse"), float("nan")))


CONFIG_ERRORS = (ConfigCompositionException, OverrideParseException, MissingMandatoryValue)
VERBOSE_FLAGS = ("-v", "--verbose")


def verbose_override(argv: list[str]) -> list[str]:
    """``argv`` with ``-v``/``--verbose`` written as the override ``verbose=true`` (Hydra knows no such flag)."""
    return [("verbose=true" if arg in VERBOSE_FLAGS else arg) for arg in argv]


def main() -> None:
    """Console entry point.

    ``-v`` (``--verbose``) stands for ``verbose=true``: the libraries' own lines and warnings too.
    A configuration the command line got wrong (an unknown key or option, an unparsable override)
    stops with one ``error:`` line and exit status 2 before any run directory exists: Hydra is asked
    to raise such errors (``HYDRA_FULL_ERROR``) instead of printing them, and they are caught here.
    """
    tune_malloc()
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")
    sys.argv[1:] = verbose_override(sys.argv[1:])
    try:
        _hydra_main()
    except CONFIG_ERRORS as exc:
        print(f"error: {config_error(exc)}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
