"""Every option of every config group composes and instantiates."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from hydra.utils import get_object, instantiate
from omegaconf import OmegaConf

from forecast.attention.base import AttentionBackend
from forecast.runtime import CONF_DIR
from forecast.core.forecaster import Forecaster, build_forecaster, describe_composition
from forecast.training.precision import apply_precision
from tests.conftest import ETTH1, ETTH2, compose_train

DIMS = {"enc_in": 7, "c_out": 7, "n_time_features": 4, "n_future": 0, "seq_len": 96, "label_len": 48, "pred_len": 24,
        "target_index": list(range(7))}


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


@pytest.mark.parametrize("name", options("attention"))
def test_attention_option_instantiates_a_backend(name: str) -> None:
    backend = instantiate(OmegaConf.load(CONF_DIR / "attention" / f"{name}.yaml"))()
    assert isinstance(backend, AttentionBackend)


@pytest.mark.parametrize("name", options("model"))
def test_model_option_instantiates(name: str, tmp_path: Path) -> None:
    cfg = compose_train([f"model={name}", "attention=full"], tmp_path)
    dims = dict(DIMS, **({"n_time_features": 4, "seq_len": cfg.data.seq_len, "label_len": cfg.data.label_len,
                         "pred_len": cfg.data.pred_len}))
    assert build_forecaster(cfg.model, dims) is not None


@pytest.mark.parametrize("group", ["data", "trainer", "callbacks", "logger", "task"])
def test_group_options_compose(group: str, tmp_path: Path) -> None:
    for name in options(group):
        overrides = [f"{group}={name}"]
        if group == "data" and name == "csv":
            overrides += [f"data.path={ETTH1}", "data.target=OT"]
        cfg = compose_train(overrides, tmp_path)
        node = cfg[group]
        if group == "data" and (name != "etth2" or ETTH2.exists()):
            dm = instantiate(node)
            dm.setup()
            assert dm.n_inputs == 7
        elif group in ("callbacks", "logger"):
            for sub in (node or {}).values():
                instantiate(sub)
        elif group == "trainer" and name not in ("gpu", "ddp"):
            apply_precision(cfg)  # as the pipeline does: trainer.precision=auto resolved first
            instantiate(cfg[group])


@pytest.mark.parametrize("name", [str(p.relative_to(CONF_DIR / "experiment").with_suffix(""))
                                  for p in sorted((CONF_DIR / "experiment").rglob("*.yaml"))])
def test_experiment_overlays_compose_and_build_their_model(name: str, tmp_path: Path) -> None:
    cfg = compose_train([f"experiment={name}"], tmp_path)
    dims = dict(DIMS, seq_len=cfg.data.seq_len, label_len=cfg.data.label_len, pred_len=cfg.data.pred_len)
    assert build_forecaster(cfg.model, dims) is not None


def test_attention_sets_both_self_attention_roles_and_cross_stays_full(tmp_path: Path) -> None:
    cfg = compose_train(["model=informer_floor", "attention=full"], tmp_path)
    informer = cfg.model.net.net  # FloorResidual(net=InstanceNorm(net=Informer))
    assert informer.encoder_attention._target_ == informer.decoder_attention._target_ == \
        "forecast.attention.full.FullAttention"
    assert informer.cross_attention._target_.endswith("FullAttention")
    cfg = compose_train(["model=informer_floor", "attention=prob", "attention@cross_attention=prob",
                         "attention@encoder_attention=full"], tmp_path)
    informer = cfg.model.net.net
    assert informer.encoder_attention._target_.endswith("FullAttention")
    assert informer.decoder_attention._target_.endswith("ProbSparseAttention")
    assert informer.cross_attention._target_.endswith("ProbSparseAttention")
    assert "factor" not in informer.encoder_attention


def test_models_without_attention_get_no_attention_arguments(tmp_path: Path) -> None:
    for model in ("naive", "mean", "linear", "linear_profile", "dlinear", "dlinear_floor", "mlp_floor"):
        resolved = OmegaConf.to_container(compose_train([f"model={model}"], tmp_path).model, resolve=True)
        assert "encoder_attention" not in str(resolved), model


def test_paper_row_uses_the_reference_windows(tmp_path: Path) -> None:
    cfg = compose_train(["experiment=informer_etth2_720"], tmp_path)
    assert (cfg.data.seq_len, cfg.data.label_len, cfg.data.pred_len) == (720, 336, 720)
    assert (cfg.model.e_layers, cfg.model.d_layers, cfg.model.d_model) == (3, 2, 512)
    assert cfg.model.mix is True and cfg.model.decoder_attention.lazy == "cumsum"
    assert cfg.model.encoder_attention.factor == 5


def test_the_default_trains_at_most_4_rounds_and_the_paper_rows_6_whole_epochs(tmp_path: Path) -> None:
    default = compose_train([], tmp_path)
    assert (default.trainer.max_epochs, default.train.schedule) == (4, "budget")
    for overrides in (["experiment=informer_etth1_24"], ["experiment=informer_etth2_720"],
                      ["+experiment/paper=etth1_48", "model=linear"], ["experiment=compare_paper_etth1",
                                                                      "+experiment/paper=etth1_24"]):
        cfg = compose_train(overrides, tmp_path)
        assert (cfg.trainer.max_epochs, cfg.train.schedule) == (6, "epochs"), overrides
        assert (cfg.callbacks.early_stopping.patience, cfg.callbacks.early_stopping.min_gain) == (3, 0.0), overrides
    assert compose_train(["experiment=informer_etth1_24", "trainer.max_epochs=2"], tmp_path).trainer.max_epochs == 2


def test_the_default_model_stops_after_one_round_without_a_new_best_and_others_after_two(tmp_path: Path) -> None:
    def patience(*overrides: str) -> int:
        return compose_train(list(overrides), tmp_path).callbacks.early_stopping.patience

    assert patience() == 1
    assert patience("model=informer_small") == patience("model=dlinear") == 2
    assert patience("experiment=informer_etth1_24") == 3
    assert patience("callbacks.early_stopping.patience=3") == 3
    assert patience("round_patience=2") == 2


def test_a_model_config_brings_its_learning_rate_and_the_command_line_still_wins(tmp_path: Path) -> None:
    assert compose_train(["model=dlinear"], tmp_path).task.optimizer.lr == 5e-3
    assert compose_train(["model=informer_small"], tmp_path).task.optimizer.lr == 1e-4
    assert compose_train([], tmp_path).task.optimizer.lr == 1e-3  # the default residual brings its own
    assert compose_train(["experiment=informer_etth1_24"], tmp_path).task.optimizer.lr == 1e-4  # the paper's
    assert compose_train(["task.optimizer.lr=3e-4"], tmp_path).task.optimizer.lr == 3e-4
    assert compose_train(["model=dlinear", "task.optimizer.lr=0.01"], tmp_path).task.optimizer.lr == 0.01
    swept = compose_train(["experiment=compare_modern_etth1", "model=dlinear"], tmp_path)
    assert swept.task.optimizer.lr == 5e-3 and swept.model._target_.endswith("DLinear")


@pytest.mark.parametrize("model,composition", [
    ("informer_floor", "FloorResidual(BestFloor(RidgeFloor, CalendarResidual), InstanceNorm(Informer))"),
    ("informer_plus", "CalendarResidual(FloorResidual(RidgeFloor, InstanceNorm(Informer)))"),
    ("informer_small", "InstanceNorm(Informer)"),
    ("linear_profile", "CalendarResidual(RidgeFloor)"),
    ("dlinear_floor", "FloorResidual(RidgeFloor, DLinear)"),
    ("mlp_floor", "FloorResidual(BestFloor(RidgeFloor, CalendarResidual), InstanceNorm(WindowMLP))"),
])
def test_presets_compose_what_they_document(model: str, composition: str, tmp_path: Path) -> None:
    cfg = compose_train([f"model={model}"], tmp_path)
    assert describe_composition(cfg.model) == composition


@pytest.mark.parametrize("name", options("ridge"))
def test_ridge_part_options_compose_and_build_into_the_floor(name: str, tmp_path: Path) -> None:
    key = {"random_features": "features", "huber": "huber"}[name]
    cfg = compose_train(["model=linear", f"+ridge@model.{key}={name}"], tmp_path)
    dims = dict(DIMS, seq_len=cfg.data.seq_len, label_len=cfg.data.label_len, pred_len=cfg.data.pred_len)
    floor = build_forecaster(cfg.model, dims)
    assert type(getattr(floor, key)).__name__ == describe_composition(cfg.model[key])


@pytest.mark.parametrize("name", options("model"))
def test_every_forecaster_of_a_model_takes_the_data_sizes_as_one_dims(name: str, tmp_path: Path) -> None:
    def targets(node: object) -> list[str]:
        if not isinstance(node, dict):
            return []
        own = [node["_target_"]] if "_target_" in node and not str(node["_target_"]).startswith("forecast.attention")\
            else []
        return own + [t for key, value in node.items() if not key.endswith("_attention") for t in targets(value)]

    model = OmegaConf.to_container(compose_train([f"model={name}"], tmp_path).model, resolve=True)
    forecasters = [t for t in targets(model) if issubclass(get_object(t), Forecaster)]
    assert forecasters
    for target in forecasters:
        parameters = inspect.signature(get_object(target)).parameters
        assert "dims" in parameters and not set(parameters) & set(DIMS), target
