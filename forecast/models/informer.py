"""Informer (Zhou et al., AAAI 2021): distilling encoder + generative decoder, swappable attention."""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable, Iterable, Literal, Sequence

import torch

from torch import Tensor, nn

from forecast.attention.base import AttentionBackend
from forecast.baselines.linear import RidgeFloor
from forecast.models.cycle import CalendarProfile, Period
from forecast.models.decoder import Decoder, DecoderLayer
from forecast.models.embedding import DataEmbedding, Embed
from forecast.models.encoder import DistilConv, Encoder, EncoderLayer, EncoderStack
from forecast.models.errors import ConfigError
from forecast.models.gau import GAUDecoderLayer, GAUEncoderLayer
from forecast.models.layers import Activation
from forecast.models.multihead import MultiHeadAttention
from forecast.models.patch import PatchEmbedding
from forecast.models.revin import RevIN
from forecast.models.start_token import decoder_input

AttentionFactory = Callable[[], AttentionBackend]


class Informer(nn.Module):
    """Informer encoder-decoder forecaster; one forward pass emits the whole horizon.

    Args:
        enc_in: input channels (C_in); the decoder input has the same channels.
        c_out: predicted channels (C_out).
        n_time_features: continuous time-feature columns of the marks (``timeF``).
        seq_len: encoder input length.
        label_len: start-token length.
        pred_len: horizon.
        target_index: positions of the predicted channels among the inputs.
        encoder_attention: factory of the encoder self-attention backend (called once per layer).
        decoder_attention: factory of the decoder (causal) self-attention backend.
        cross_attention: factory of the decoder-to-encoder attention backend.
        d_model: width.
        n_heads: heads.
        e_layers: encoder layers.
        d_layers: decoder layers.
        d_ff: feed-forward width.
        dropout: dropout.
        activation: feed-forward activation.
        embed: temporal embedding (``timeF``, ``fixed``, ``learned``).
        distil: distilling convs between encoder layers.
        mix: the reference's decoder-self-attention "mix" reshape (paper fidelity only).
        stack_layers: InformerStack layer counts per encoder (e.g. [3, 2, 1]); None = one encoder.
        revin: reversible instance normalisation of each input window.
        revin_affine: learn RevIN's affine parameters.
        channel_independent: model every channel as its own univariate series through shared
            weights (PatchTST-style); the encoder and decoder then see one channel at a time.
        skip: a path from the input window straight to the horizon, added to the decoder's output:
            ``none``; ``linear``, a trained linear map shared by all channels (DLinear style);
            ``ridge``, the closed-form ridge floor (``forecast.baselines.linear.RidgeFloor``) fitted on
            the training windows before training (``fit_closed_form``), with the decoder's projection
            zero-initialised so training starts at the floor and the encoder-decoder learns the
            residual (scaled by each window's std when RevIN is on).
        ridge_alpha: L2 penalty of the ``ridge`` skip (larger suits longer look-backs).
        ridge_lookbacks: the ``ridge`` skip as an ensemble of ridge regressions on the last L steps
            for each L (``RidgeFloor``'s ``lookbacks``); None for one on the whole window.
        ridge_random_features: random Fourier features of the ``ridge`` skip (``RidgeFloor``'s
            ``random_features``): a Gaussian-kernel ridge correction on top of its linear map.
        ridge_rf_gamma: their row norm over kernel width (``RidgeFloor``'s ``rf_gamma``).
        ridge_rf_lookback: the last steps of the window they read (``RidgeFloor``'s ``rf_lookback``).
        ridge_huber_quantile: fit the ``ridge`` skip robustly (``RidgeFloor``'s ``huber_quantile``): a
            Huber loss on each window's error, linear above this quantile of the errors.
        ridge_huber_steps: its reweighting rounds (``RidgeFloor``'s ``huber_steps``).
        patch_len: patch tokens (PatchTST-style) for the encoder: one token per ``patch_len`` steps
            instead of one per step (``forecast.models.patch``); None keeps step tokens. The decoder
            keeps one token per step and cross-attends to the patch tokens.
        patch_stride: steps between patch starts; None = ``patch_len`` (no overlap).
        cycle: a calendar profile (``forecast.models.cycle``): the training mean of each time-of-day
            (``day``) or time-of-week (``week``) slot, fitted in closed form before training, removed
            from the input window and restored on the forecast; None for none. The ridge skip is
            then fitted on the windows without the profile.

    Raises:
        ConfigError: an impossible setting; a ``ridge_*`` one the ridge skip refuses is named as
            given here, with its ``ridge_`` prefix.
        ValueError: a backend cannot fill the role it was given (e.g. a non-causal backend in the
            decoder self-attention).
    """

    def __init__(self, *, enc_in: int, c_out: int, n_time_features: int, seq_len: int, label_len: int,
                 pred_len: int, target_index: Sequence[int], encoder_attention: AttentionFactory,
                 decoder_attention: AttentionFactory, cross_attention: AttentionFactory, d_model: int = 512,
                 n_heads: int = 8, e_layers: int = 2, d_layers: int = 1, d_ff: int = 2048, dropout: float = 0.05,
                 activation: Activation = "gelu", embed: Embed = "timeF", distil: bool = True, mix: bool = False,
                 stack_layers: Sequence[int] | None = None, revin: bool = False,
                 revin_affine: bool = False, channel_independent: bool = False,
                 skip: Literal["none", "linear", "ridge"] = "none", ridge_alpha: float = 1.0,
                 ridge_lookbacks: Sequence[int] | None = None, ridge_random_features: int | None = None,
                 ridge_rf_gamma: float = 0.3, ridge_rf_lookback: int | None = None,
                 ridge_huber_quantile: float | None = None, ridge_huber_steps: int = 3,
                 patch_len: int | None = None, patch_stride: int | None = None,
                 cycle: Period | None = None) -> None:
        super().__init__()
        if label_len > seq_len:
            raise ConfigError(f"label_len ({label_len}) cannot exceed seq_len ({seq_len})")
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len
        self.target_index = list(target_index)
        self.cycle = CalendarProfile(enc_in, cycle) if cycle is not None else None
        self.revin = RevIN(enc_in, affine=revin_affine) if revin else None
        self.channel_independent = channel_independent
        if skip not in ("none", "linear", "ridge"):
            raise ConfigError(f"skip must be none, linear or ridge, got {skip!r}")
        for name, value in (("ridge_lookbacks", ridge_lookbacks), ("ridge_random_features", ridge_random_features),
                            ("ridge_rf_lookback", ridge_rf_lookback), ("ridge_huber_quantile", ridge_huber_quantile)):
            if value and skip != "ridge":
                raise ConfigError(f"{name} needs skip=ridge (skip is {skip!r}): set both, or drop {name}")
        self.skip = nn.Linear(seq_len, pred_len) if skip == "linear" else None
        try:
            self.ridge = RidgeFloor(enc_in=enc_in, c_out=c_out, n_time_features=n_time_features, seq_len=seq_len,
                                    label_len=label_len, pred_len=pred_len, target_index=target_index,
                                    alpha=ridge_alpha, lookbacks=ridge_lookbacks, random_features=ridge_random_features,
                                    rf_gamma=ridge_rf_gamma, rf_lookback=ridge_rf_lookback,
                                    huber_quantile=ridge_huber_quantile, huber_steps=ridge_huber_steps
                                    ) if skip == "ridge" else None
        except ConfigError as error:  # the floor names its own options; name the ones set here (_RIDGE_OPTION)
            raise ConfigError(_RIDGE_OPTION.sub(r"ridge_\1", str(error))) from error
        c_in, c_out = (1, 1) if channel_independent else (enc_in, c_out)
        if patch_len is None and patch_stride is not None:
            raise ConfigError("patch_stride needs patch_len: set both, or patch_len alone for patches without overlap")
        self.enc_embedding: DataEmbedding | PatchEmbedding = (
            DataEmbedding(c_in, d_model, n_time_features, embed, dropout) if patch_len is None
            else PatchEmbedding(c_in, d_model, n_time_features, embed, dropout, patch_len=patch_len,
                                stride=patch_len if patch_stride is None else patch_stride))
        self.enc_embedding.first(seq_len)  # refuses patches longer than the window now, not mid-training
        self.dec_embedding = DataEmbedding(c_in, d_model, n_time_features, embed, dropout)

        def build(factory: AttentionFactory, *, causal: bool, cross: bool, role: str,
                  concatenated: bool = False) -> AttentionBackend:
            backend = factory()
            backend.check_role(causal=causal, cross=cross, role=role, concatenated_keys=concatenated)
            return backend

        def mha(factory: AttentionFactory, *, causal: bool, cross: bool, role: str, mixed: bool = False,
                concatenated: bool = False) -> MultiHeadAttention:
            backend = build(factory, causal=causal, cross=cross, role=role, concatenated=concatenated)
            return MultiHeadAttention(backend, d_model=d_model, n_heads=n_heads, mix=mixed)

        def encoder_layer() -> nn.Module:
            backend = build(encoder_attention, causal=False, cross=False, role="encoder self-attention")
            if backend.replaces_layer:  # GAU (flash, flash_quad): replaces attention and FFN
                return GAUEncoderLayer(backend, d_model=d_model, dropout=dropout)
            return EncoderLayer(MultiHeadAttention(backend, d_model=d_model, n_heads=n_heads),
                                d_model=d_model, d_ff=d_ff, dropout=dropout, activation=activation)

        def decoder_layer() -> nn.Module:
            backend = build(decoder_attention, causal=True, cross=False, role="decoder self-attention")
            if backend.replaces_layer and mix:
                raise ConfigError("mix reshapes multi-head outputs; the GAU decoder layer is single-head")
            self_attn = None if backend.replaces_layer else MultiHeadAttention(backend, d_model=d_model,
                                                                               n_heads=n_heads, mix=mix)
            cross = mha(cross_attention, causal=False, cross=True, role="cross-attention", concatenated=stacked)
            if self_attn is None:  # GAU: replaces self-attention and FFN
                return GAUDecoderLayer(backend, cross, d_model=d_model, dropout=dropout)
            return DecoderLayer(self_attn, cross, d_model=d_model, d_ff=d_ff, dropout=dropout, activation=activation)

        def encoder(n_layers: int) -> Encoder:
            layers = [encoder_layer() for _ in range(n_layers)]
            convs = [DistilConv(d_model) for _ in range(n_layers - 1)] if distil else []
            return Encoder(layers, convs, d_model=d_model)

        stacked = stack_layers is not None
        self.encoder: nn.Module = (EncoderStack([encoder(n) for n in stack_layers]) if stacked
                                   else encoder(e_layers))
        self.decoder = Decoder([decoder_layer() for _ in range(d_layers)], d_model=d_model, c_out=c_out)
        if self.ridge is not None:  # start exactly at the ridge floor
            nn.init.zeros_(self.decoder.projection.weight)
            nn.init.zeros_(self.decoder.projection.bias)

    @torch.no_grad()
    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the calendar profile, then the ridge skip on the windows without it.

        Args:
            batches: the training windows, re-iterable (a DataLoader): one pass per closed-form part.

        Returns:
            Rows of the last closed-form fit (ridge rows, else profile slots seen); None when the
            configuration has no closed-form part.
        """
        rows = None
        if self.cycle is not None:
            rows = self.cycle.fit(batches)
            batches = self.cycle.residuals(batches, self.target_index)
        if self.ridge is not None:
            rows = self.ridge.fit_closed_form(batches)
        return rows

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """Forecast the horizon.

        Shapes:
            x_enc: (B, seq_len, C_in); x_mark_enc: (B, seq_len, M); x_mark_dec: (B, T + P, M)
            -> (B, P, C_out).
        """
        seasonal = None
        if self.cycle is not None:  # forecast what the calendar does not explain
            x_enc = x_enc - self.cycle(x_mark_enc)  # (B, seq_len, C_in)
            seasonal = self.cycle.at_horizon(x_mark_dec, self.pred_len, self.target_index)  # (B, P, C_out)
        out = self.forward_without_cycle(x_enc, x_mark_enc, x_mark_dec)  # (B, P, C_out)
        return out if seasonal is None else out + seasonal

    def forward_without_cycle(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """RevIN, channel independence and the skips around the encoder-decoder.

        Shapes: as :meth:`forward`: (B, seq_len, C_in), (B, seq_len, M), (B, T + P, M) -> (B, P, C_out).
        """
        floor = self.ridge(x_enc) if self.ridge is not None else None  # (B, P, C_out), scaled units
        stats = None
        if self.revin is not None:
            x_enc, stats = self.revin.normalize(x_enc)
        if self.channel_independent:
            b, length, c = x_enc.shape
            series = x_enc.permute(0, 2, 1).reshape(b * c, length, 1)  # (B*C, seq_len, 1)
            out = self.encode_decode(series, x_mark_enc.repeat_interleave(c, dim=0),
                                     x_mark_dec.repeat_interleave(c, dim=0))  # (B*C, P, 1)
            out = out.reshape(b, c, self.pred_len).permute(0, 2, 1)  # (B, P, C)
            out = out[..., self.target_index]  # (B, P, C_out)
        else:
            out = self.encode_decode(x_enc, x_mark_enc, x_mark_dec)  # (B, P, C_out)
        if self.skip is not None:
            window = x_enc[..., self.target_index].transpose(1, 2)  # (B, C_out, seq_len)
            out = out + self.skip(window).transpose(1, 2)  # (B, P, C_out)
        if floor is not None:  # residual over the ridge floor, in units of each window's std
            return floor + (out * stats[1][..., self.target_index] if stats is not None else out)
        if stats is not None:
            out = self.revin.denormalize(out, stats, self.target_index)
        return out

    def encode_decode(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """The encoder-decoder on (normalised) inputs.

        Shapes: x_enc (B, seq_len, C), x_mark_enc (B, seq_len, M), x_mark_dec (B, T + P, M) -> (B, P, C_out).
        """
        x_dec = decoder_input(x_enc, label_len=self.label_len, pred_len=self.pred_len)  # (B, T+P, C)
        memory = self.encoder(self.enc_embedding(x_enc, x_mark_enc))  # (B, S, d_model)
        dec = self.dec_embedding(x_dec, x_mark_dec)  # (B, T+P, d_model)
        # times relative to the first encoder token: memory j at j * k_stride, decoder step i at q_offset + i
        first = self.enc_embedding.first(self.seq_len)
        out = self.decoder(dec, memory, q_offset=self.seq_len - self.label_len - first,
                           k_stride=self.encoder.stride * self.enc_embedding.stride)  # (B, T+P, C_out)
        return out[:, -self.pred_len:, :]  # (B, P, C_out)


# RidgeFloor's option names, which the Informer takes with a ``ridge_`` prefix: read from the signature, so a
# new ``ridge_*`` argument is named right in refusals without a list to keep in step
_RIDGE_NAMES = [name.removeprefix("ridge_") for name in inspect.signature(Informer).parameters
                if name.startswith("ridge_")]
_RIDGE_OPTION = re.compile(rf"\b({'|'.join(_RIDGE_NAMES)})\b")
