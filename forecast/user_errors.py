"""One line for each user error of a training run (bad data, a setting missing, unknown or unusable, a backend
in a role it cannot fill): what ``forecast-train`` prints and :func:`forecast.api.train` raises."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Collection

from hydra.errors import OverrideParseException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import InterpolationResolutionError, MissingMandatoryValue

from forecast.core.errors import BackendRoleError, ConfigError
from forecast.data.errors import DataError, require_file
from forecast.data.files import many_files
from forecast.runtime import CONF_DIR


#: torch.compile's backend failures (torch._dynamo's, torch._inductor's), matched by name: nothing is imported
COMPILE_ERRORS = ("BackendCompilerFailed", "InductorError")
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
        if type(seen).__name__ in COMPILE_ERRORS:
            return compile_error(seen)
    return None


def compile_error(exc: BaseException) -> str:
    """The line for ``compile=true`` where torch.compile's backend cannot build the model (no working C++
    toolchain for Inductor's kernels, a code-generation bug of the installed torch): its cause's first line."""
    inner = getattr(exc, "inner_exception", None) or exc
    first = next((line.strip() for line in str(inner).splitlines() if line.strip()), "")[:200]
    return (f"compile=true: torch.compile could not build the model on this machine ({type(inner).__name__}: "
            f"{first}); run again without compile=true")


REQUIRED = {"data.path": ("FILE", " (the CSV file)")}


def not_set(key: str) -> str:
    """The line for a mandatory key (``???`` in the config) the command line left unset."""
    value, what = REQUIRED.get(key, ("VALUE", ""))
    return f"{key} is not set: add {key}={value}{what} to the command line"


def check_required(cfg: DictConfig) -> None:
    """Raise DataError for the first of ``REQUIRED`` left at ``???``, or for a data.path that is not a file (nor a
    folder or pattern of files), before anything is imported to train."""
    for key in REQUIRED:
        parent, _, leaf = key.rpartition(".")
        node = OmegaConf.select(cfg, parent)
        if isinstance(node, DictConfig) and OmegaConf.is_missing(node, leaf):
            raise DataError(not_set(key))
    path = OmegaConf.select(cfg, "data.path")
    if isinstance(path, str) and many_files(path) is None:  # a folder or a pattern: files of one series each
        require_file(Path(path))


def config_error(exc: BaseException, keywords: Collection[str] = ()) -> str:
    """One line for a configuration the command line got wrong: a missing mandatory key, an unknown
    key or option, an override that does not parse.

    The messages name the key and what to set; Hydra's own text is kept to its first line. An unknown key
    among ``keywords`` (the Python API's settings, ``trainer__max_epochs``) is named, with the keys it may
    mean, as a keyword.
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
        if key.replace(".", "__") in keywords:
            key, near = key.replace(".", "__"), [k.replace(".", "__") for k in near]
        if near:
            return f"unknown setting {key}: did you mean {' or '.join(near)}?"
        return f"unknown setting {key} (check the spelling; +{key}=VALUE adds a key the configuration does not have)"
    if "hydra/sweeper/optuna" in str(exc):
        return 'hparams_search=optuna needs the Optuna sweeper plugin: pip install -e ".[search]"'
    missing = re.search(r"Could not find '([^'/]+)/([^']+)'", first)
    if missing:
        group, option = missing.groups()
        options = re.findall(r"^\t(\S+)$", str(exc).split("Config search path")[0], flags=re.M)
        return f"unknown option {group}={option}; available: {', '.join(options) or 'see forecast/conf/' + group}"
    if isinstance(exc, OverrideParseException):
        quoted = _quoted(first)
        if quoted:
            return f"cannot parse the command line: {first}; quote a value with other characters: {quoted}"
        return f"cannot parse the command line: {first} (overrides are key=value, e.g. data.seq_len=96)"
    return f"configuration: {first}"


def _quoted(message: str) -> str:
    """For an override ``key=value`` named in Hydra's parse error, whose value holds characters an unquoted value
    cannot (letters outside ASCII, brackets, spaces): the override quoted for the shell and Hydra; "" otherwise."""
    found = re.search(r"(?:override '|Exception: )([\w.@/]+)=([^'\s][^']*?)'?$", message)
    if found is None or "'" in found.group(2) or re.fullmatch(r"[\w.:/-]*", found.group(2), flags=re.ASCII):
        return ""
    return f"\"{found.group(1)}='{found.group(2)}'\""


def _near_keys(key: str) -> list[str]:
    """Keys of the default config that ``key`` may mean: the same name one level or more further down
    (``target`` -> ``data.target``), else the keys next to it with a similar name (a misspelt override)."""
    import difflib

    from hydra import compose, initialize_config_dir

    parent, _, leaf = key.rpartition(".")
    try:
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            node = compose("train")
        for part in parent.split(".") if parent else []:
            node = node[part]
        names = [str(k) for k in node.keys() if not str(k).startswith("_")]  # not _target_, _partial_
        tree = OmegaConf.to_container(node, resolve=False)
        below = sorted(_paths_to(tree, leaf), key=lambda path: (path.count("."), path))[:2]
    except Exception:  # noqa: BLE001 - a suggestion only; never hide the real message
        return []
    prefix = f"{parent}." if parent else ""
    return [prefix + n for n in below or difflib.get_close_matches(leaf, names, n=2, cutoff=0.6)]


def _paths_to(tree: dict, leaf: str) -> list[str]:
    """The dotted paths below ``tree`` (a config as plain dicts; not ``tree``'s own keys) that end in the key
    ``leaf``."""
    found = []
    for name, child in tree.items():
        if isinstance(child, dict):
            found += [f"{name}.{leaf}"] if leaf in child else []
            found += [f"{name}.{path}" for path in _paths_to(child, leaf)]
    return found
