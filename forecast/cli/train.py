"""``forecast-train``: train and test a forecaster from the Hydra config in ``forecast/conf/``.

Examples::

    forecast-train                                   # small Informer on data/ETTh1.csv
    forecast-train experiment=informer_etth1_24      # the paper's ETTh1 horizon-24 row
    forecast-train attention=full                    # swap the self-attention backend
    forecast-train -m attention=full,prob,local      # sweep backends
    forecast-train attention=full resume=outputs/2026-11-23/02-40-00-123456  # continue a run that stopped
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import ConfigCompositionException, OverrideParseException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import InterpolationResolutionError, MissingMandatoryValue

from forecast.cli.runtime import CONF_DIR, register_resolvers, tune_malloc
from forecast.cli.sweep import in_sweep, record_failed_job
from forecast.core.errors import BackendRoleError, ConfigError
from forecast.data.errors import DataError, require_file


ROLE_KEYS = {"encoder self-attention": "encoder_attention", "decoder self-attention": "decoder_attention",
             "cross-attention": "cross_attention"}


def user_error(exc: BaseException) -> str | None:
    """The one-line message of a user error (bad data, a setting that is missing or cannot work, a
    backend in a role it cannot fill), else None.

    Hydra wraps errors raised while instantiating a config, and OmegaConf those raised by a resolver
    (``${project_root:}`` in an installed package); the cause chain is searched, a DataError anywhere first.
    """
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    data_errors = [e for e in chain if isinstance(e, DataError)]
    if data_errors:
        return str(data_errors[0])
    for seen in chain:
        if isinstance(seen, ConfigError):  # a message that starts with its key needs no label
            label = "" if re.match(r"[\w.]+ must be ", str(seen)) else "model settings: "
            return f"{label}{seen}; change that setting and run again"
        if isinstance(seen, BackendRoleError):
            key = ROLE_KEYS.get(seen.role)
            return f"{seen} (e.g. attention@{key}=full)" if key else str(seen)
        if isinstance(seen, (MissingMandatoryValue, InterpolationResolutionError)):
            return config_error(seen)
    return None


REQUIRED = {"data.path": ("FILE", " (the CSV file)"), "data.target": ("COLUMN", " (the column to forecast)")}


def not_set(key: str) -> str:
    """The line for a mandatory key (``???`` in the config) the command line left unset."""
    value, what = REQUIRED.get(key, ("VALUE", ""))
    return f"{key} is not set: add {key}={value}{what} to the command line"


def check_required(cfg: DictConfig) -> None:
    """Raise DataError for the first of ``REQUIRED`` left at ``???``, or for a data.path that is not a file,
    before anything is imported to train."""
    for key in REQUIRED:
        parent, _, leaf = key.rpartition(".")
        node = OmegaConf.select(cfg, parent)
        if isinstance(node, DictConfig) and OmegaConf.is_missing(node, leaf):
            raise DataError(not_set(key))
    path = OmegaConf.select(cfg, "data.path")
    if isinstance(path, str):
        require_file(Path(path))


def config_error(exc: BaseException) -> str:
    """One line for a configuration the command line got wrong: a missing mandatory key, an unknown
    key or option, an override that does not parse.

    The messages name the key and what to set; Hydra's own text is kept to its first line.
    """
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, MissingMandatoryValue):
        return not_set(str(getattr(exc, "full_key", "") or ""))
    if isinstance(exc, InterpolationResolutionError):
        key = str(getattr(exc, "full_key", "") or "")
        return f"{key}: {first}; set {key} directly on the command line"
    unknown = re.match(r"Could not override '([^']+)'", first)
    if unknown:
        key = unknown.group(1)
        near = _near_keys(key)
        return (f"unknown setting {key}{': did you mean ' + ' or '.join(near) + '?' if near else ''} "
                f"(check the spelling, or write +{key}=VALUE to add a new key)")
    if "hydra/sweeper/optuna" in str(exc):
        return 'hparams_search=optuna needs the Optuna sweeper plugin: pip install -e ".[search]"'
    missing = re.search(r"Could not find '([^'/]+)/([^']+)'", first)
    if missing:
        group, option = missing.groups()
        options = re.findall(r"^\t(\S+)$", str(exc).split("Config search path")[0], flags=re.M)
        return f"unknown option {group}={option}; available: {', '.join(options) or 'see forecast/conf/' + group}"
    if isinstance(exc, OverrideParseException):
        return f"cannot parse the command line: {first} (overrides are key=value, e.g. data.seq_len=96)"
    return f"configuration: {first}"


def _near_keys(key: str) -> list[str]:
    """Keys of the default config next to ``key`` with a similar name (for a misspelt override)."""
    import difflib

    from hydra import compose, initialize_config_dir

    parent, _, leaf = key.rpartition(".")
    try:
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            node = compose("train")
        for part in parent.split(".") if parent else []:
            node = node[part]
        names = [str(k) for k in node.keys()]
    except Exception:  # noqa: BLE001 - a suggestion only; never hide the real message
        return []
    prefix = f"{parent}." if parent else ""
    return [prefix + n for n in difflib.get_close_matches(leaf, names, n=2, cutoff=0.6)]


def _remove_empty_run_dir(run_dir: Path) -> None:
    """Delete a run dir that holds nothing but Hydra's own bookkeeping (bad input: no partial output)."""
    if not run_dir.is_dir():
        return
    own = {".hydra", "train.log"}
    if all(p.name in own for p in run_dir.iterdir()):
        shutil.rmtree(run_dir, ignore_errors=True)


register_resolvers()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="train")
def _hydra_main(cfg: DictConfig) -> float:
    try:
        check_required(cfg)
        from forecast.cli.pipeline import train  # Lightning and torch's compiler stack: seconds to import

        metrics = train(cfg)
    except Exception as exc:  # noqa: BLE001 - user errors become one line; anything else re-raises
        message = user_error(exc)
        if message is None:
            raise
        if cfg.get("resume"):  # a refused resume leaves the run dir as it found it
            shutil.rmtree(Path(cfg.paths.output_dir) / HydraConfig.get().output_subdir, ignore_errors=True)
        _remove_empty_run_dir(Path(cfg.paths.output_dir))
        if in_sweep():  # the other jobs still run; the sweep exits with status 2 at its end
            print(f"error: {record_failed_job(message)}", file=sys.stderr)
            return float("nan")
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)
    return float(metrics.get(cfg.get("optimized_metric", "val/mse"), float("nan")))


CONFIG_ERRORS = (ConfigCompositionException, OverrideParseException, MissingMandatoryValue)


def main() -> None:
    """Console entry point.

    A configuration the command line got wrong (an unknown key or option, an unparsable override)
    stops with one ``error:`` line and exit status 2 before any run directory exists: Hydra is asked
    to raise such errors (``HYDRA_FULL_ERROR``) instead of printing them, and they are caught here.
    """
    tune_malloc()
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")
    try:
        _hydra_main()
    except CONFIG_ERRORS as exc:
        print(f"error: {config_error(exc)}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
