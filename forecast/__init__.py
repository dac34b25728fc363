"""forecast: long-sequence time-series forecasting in the Informer family.

Shape glossary used in every docstring and reshape comment:

    B   batch size
    L   query length (time steps); ``Lq`` when it differs from the key length
    S   key / value length (``Lk``)
    H   attention heads
    E   query/key head dimension
    D   value head dimension
    C   channels (variables) of a series; ``C_in`` fed to the model, ``C_out`` predicted
    M   time-mark features per step (calendar features, see ``forecast.data.time_features``)
    P   forecast horizon (``pred_len``)
    T   start-token length (``label_len``)
"""

__version__ = "0.1.0"

__all__ = ["Model", "Run", "load", "train"]


def __getattr__(name: str) -> object:
    """``from forecast import train, load``: the Python API (:mod:`forecast.api`), imported on first use."""
    if name in __all__:
        from forecast import api

        return getattr(api, name)
    raise AttributeError(f"module 'forecast' has no attribute {name!r}")
