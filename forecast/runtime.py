"""Process set-up shared by the command-line entry points and the Python API: where the configs and the
checkout are, the malloc tuning, the config resolvers."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
import warnings
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from forecast.data.errors import DataError

PACKAGE_DIR = Path(__file__).resolve().parent
# the repository checkout the package sits in (where data/ lives); an installed package has none
PROJECT_ROOT = PACKAGE_DIR.parent
CONF_DIR = PACKAGE_DIR / "conf"  # shipped inside the package, so an installed forecast finds it

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_BIG = 1 << 34  # 16 GiB: keep large tensors on the heap


def tune_malloc() -> bool:
    """Keep big allocations on glibc's heap (like ``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_``).

    With the default thresholds each large tensor is a fresh mmap and CPU step times become erratic
    (page faults); see ``docs/performance.md``. Returns True when applied (glibc only).
    """
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        ok_trim = libc.mallopt(_M_TRIM_THRESHOLD, ctypes.c_int(min(_BIG, 2**31 - 1)))
        ok_mmap = libc.mallopt(_M_MMAP_THRESHOLD, ctypes.c_int(min(_BIG, 2**31 - 1)))
    except (OSError, AttributeError):
        return False
    return bool(ok_trim and ok_mmap)


# loggers whose INFO lines are the libraries' own chatter (devices found, tips, checkpoint restores)
CHATTY_LOGGERS = ("lightning", "lightning.pytorch", "lightning.fabric", "matplotlib")
# warnings raised inside the libraries that a user of forecast cannot act on
UNACTIONABLE_WARNINGS = (
    r".*isinstance\(treespec, LeafSpec\)` is deprecated",  # Lightning's pytree helper on newer torch
    r"The number of training batches .* is smaller than the logging interval",  # a short round: logged at its end
    # Lightning on over 2 cores: a batch is one gather from memory, so workers would only add processes
    r"The '\w+' does not have many workers which may be a bottleneck",
    r".* attention defaults to a non-deterministic algorithm",  # torch's CUDA attention kernels in backward
)


def console(verbose: bool) -> None:
    """Set what a training run prints besides its own lines and the progress bar.

    Quiet (the default) keeps the libraries' loggers at WARNING and drops ``UNACTIONABLE_WARNINGS``;
    ``verbose`` keeps their INFO lines (devices, restores, the model summary's neighbours) and every
    warning. Either way each line is printed once: Lightning's own console handler is removed where
    the root logger has handlers (Hydra's job logging), which print it already.
    """
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO if verbose else logging.WARNING)
    lightning = logging.getLogger("lightning")
    if logging.getLogger().handlers:
        for handler in [h for h in lightning.handlers if type(h) is logging.StreamHandler]:
            lightning.removeHandler(handler)
    for message in UNACTIONABLE_WARNINGS:
        if verbose:
            warnings.filters[:] = [f for f in warnings.filters if f[1] is None or f[1].pattern != message]
        else:
            warnings.filterwarnings("ignore", message=message)


def _period_for(freq: str | None) -> int | None:
    from forecast.data.season import period_for

    return period_for(freq)


def _profiles_for(freq: str | None) -> list[str]:
    from forecast.data.season import profiles_for

    return profiles_for(freq)


def in_checkout() -> bool:
    """Whether the package sits in its repository checkout (not, say, in an installed site-packages)."""
    return (PROJECT_ROOT / "pyproject.toml").is_file() and (PROJECT_ROOT / "data").is_dir()


def project_root(*, _node_: Any = None) -> str:
    """``${project_root:}``: the checkout's root, or a :class:`DataError` naming the key for an installed package.

    The shipped ``data/ETTh1.csv`` (``data=etth1``, the default) lives in the repository, not in the
    installed package; an install without a checkout trains on a file given by path instead.
    """
    if in_checkout():
        return str(PROJECT_ROOT)
    key = _node_._get_full_key(None) if _node_ is not None else "a setting"
    raise DataError(f"{key} is under ${{project_root:}}, the repository checkout, and this forecast is installed "
                    f"without one ({PACKAGE_DIR}): give the file's path ({key}=FILE), or train on your own CSV "
                    f"with data=csv data.path=FILE data.target=COLUMN")


def register_resolvers() -> None:
    """Register the config resolvers.

    * ``${project_root:}``: the repository checkout's root (where ``data/`` lives); an installed package
      without a checkout refuses it with one line naming the key (:func:`project_root`).
    * ``${period_for:${data.freq}}``: the default season length of a pandas frequency (``h`` -> 24,
      ``15min`` -> 96, ``D`` -> 7, ``B`` -> 5, ``W`` -> 52, ``MS`` -> 12), null when the frequency is null
      (inferred from the data) or has no default season.
    * ``${profiles_for:${data.freq}}``: the calendar profiles the frequency holds (``h`` -> ``[day, week]``,
      ``D`` -> ``[week]``, ``MS`` -> ``[year]``, ``W`` -> ``[]``).
    * ``${when_resuming:${resume},A,B}``: A when ``resume`` is set, else B (the run dir of a resumed run).
    """
    if not OmegaConf.has_resolver("project_root"):
        OmegaConf.register_new_resolver("project_root", project_root)
    if not OmegaConf.has_resolver("period_for"):
        OmegaConf.register_new_resolver("period_for", _period_for)
    if not OmegaConf.has_resolver("profiles_for"):
        OmegaConf.register_new_resolver("profiles_for", _profiles_for)
    if not OmegaConf.has_resolver("when_resuming"):
        OmegaConf.register_new_resolver("when_resuming", lambda resume, then, otherwise: otherwise if resume is None
                                        else then)
