"""Informer (Zhou et al., AAAI 2021): distilling encoder + generative decoder, swappable attention.

The paper's architecture only. Instance normalisation, channel independence, the calendar profile
and a residual over a closed-form floor are wrappers around any forecaster (``forecast.wrappers``).
"""

from __future__ import annotations

from typing import Callable, Sequence

from torch import Tensor, nn

from forecast.attention.base import AttentionBackend
from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims, Forecaster
from forecast.models.decoder import Decoder, DecoderLayer
from forecast.models.embedding import DataEmbedding, Embed
from forecast.models.encoder import DistilConv, Encoder, EncoderLayer, EncoderStack
from forecast.models.gau import GAUDecoderLayer, GAUEncoderLayer
from forecast.models.layers import Activation
from forecast.models.multihead import MultiHeadAttention
from forecast.models.patch import PatchEmbedding
from forecast.models.start_token import decoder_input

AttentionFactory = Callable[[], AttentionBackend]


class Informer(Forecaster):
    """Informer encoder-decoder forecaster; one forward pass emits the whole horizon.

    The decoder input has the encoder's ``enc_in`` channels; both embeddings map the known-future
    columns of the marks, so the encoder sees their history and the decoder their values over the
    start token and the horizon.

    Args:
        dims: the data's sizes.
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
        patch_len: patch tokens (PatchTST-style) for the encoder: one token per ``patch_len`` steps
            instead of one per step (``forecast.models.patch``); None keeps step tokens. The decoder
            keeps one token per step and cross-attends to the patch tokens.
        patch_stride: steps between patch starts; None = ``patch_len`` (no overlap).

    Raises:
        ConfigError: an impossible setting (a start token longer than the window, patch options).
        ValueError: a backend cannot fill the role it was given (e.g. a non-causal backend in the
            decoder self-attention).
    """

    def __init__(self, *, dims: DataDims, encoder_attention: AttentionFactory, decoder_attention: AttentionFactory,
                 cross_attention: AttentionFactory, d_model: int = 512, n_heads: int = 8, e_layers: int = 2,
                 d_layers: int = 1, d_ff: int = 2048, dropout: float = 0.05, activation: Activation = "gelu",
                 embed: Embed = "timeF", distil: bool = True, mix: bool = False,
                 stack_layers: Sequence[int] | None = None, patch_len: int | None = None,
                 patch_stride: int | None = None) -> None:
        super().__init__()
        enc_in, c_out, n_time_features = dims["enc_in"], dims["c_out"], dims["n_time_features"]
        seq_len, label_len, pred_len = dims["seq_len"], dims["label_len"], dims["pred_len"]
        n_future = dims["n_future"]
        if label_len > seq_len:
            raise ConfigError(f"label_len ({label_len}) cannot exceed seq_len ({seq_len})")
        sizes = {"d_model": d_model, "n_heads": n_heads, "e_layers": e_layers, "d_layers": d_layers, "d_ff": d_ff}
        small = next((f"{key} ({value})" for key, value in sizes.items() if value < 1), None)
        if small is not None:
            raise ConfigError(f"the Informer's {small} must be at least 1")
        if not 0.0 <= dropout < 1.0:
            raise ConfigError(f"the Informer's dropout ({dropout}) must be in [0, 1)")
        self.seq_len, self.label_len, self.pred_len = seq_len, label_len, pred_len
        self.enc_in = enc_in
        self.target_index = [int(i) for i in dims["target_index"]]
        if patch_len is None and patch_stride is not None:
            raise ConfigError("patch_stride needs patch_len: set both, or patch_len alone for patches without overlap")
        self.enc_embedding: DataEmbedding | PatchEmbedding = (
            DataEmbedding(enc_in, d_model, n_time_features, embed, dropout, n_future) if patch_len is None
            else PatchEmbedding(enc_in, d_model, n_time_features, embed, dropout, patch_len=patch_len,
                                stride=patch_len if patch_stride is None else patch_stride, n_future=n_future))
        self.enc_embedding.first(seq_len)  # refuses patches longer than the window now, not mid-training
        self.dec_embedding = DataEmbedding(enc_in, d_model, n_time_features, embed, dropout, n_future)

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

    def zero_output_(self) -> None:
        """Zero the decoder's output projection: the forecast is exactly 0 until training moves it."""
        nn.init.zeros_(self.decoder.projection.weight)
        nn.init.zeros_(self.decoder.projection.bias)

    def output_is_zero(self) -> bool:
        """Whether the output projection is all zeros, so the forecast is exactly 0."""
        projection = self.decoder.projection
        return not (projection.weight.any() or projection.bias.any())

    def _in_input_channels(self, prior: Tensor) -> Tensor:
        """The target channels' forecast placed among all input channels, zeros elsewhere.

        Shapes: (B, P, C_out) -> (B, P, C_in).
        """
        if self.target_index == list(range(self.enc_in)):
            return prior
        full = prior.new_zeros(*prior.shape[:-1], self.enc_in)  # (B, P, C_in)
        full[..., self.target_index] = prior
        return full

    def takes_prior(self) -> bool:
        """True: a prior forecast fills the decoder's horizon placeholders (:meth:`forward`)."""
        return True

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor, prior: Tensor | None = None) -> Tensor:
        """Forecast the horizon.

        The decoder reads the start token and ``pred_len`` placeholders: zeros as in the paper, or, given
        ``prior`` (another forecaster's forecast of the target channels, e.g. a floor's), that forecast in the
        target channels and zeros in the others, so that the decoder sees what it is to correct.

        Shapes:
            x_enc: (B, seq_len, C_in); x_mark_enc: (B, seq_len, M); x_mark_dec: (B, T + P, M);
            prior: (B, P, C_out) or None -> (B, P, C_out).
        """
        placeholder = None if prior is None else self._in_input_channels(prior)  # (B, P, C_in)
        x_dec = decoder_input(x_enc, label_len=self.label_len, pred_len=self.pred_len,
                              placeholder=placeholder)  # (B, T+P, C_in)
        memory = self.encoder(self.enc_embedding(x_enc, x_mark_enc))  # (B, S, d_model)
        dec = self.dec_embedding(x_dec, x_mark_dec)  # (B, T+P, d_model)
        # times relative to the first encoder token: memory j at j * k_stride, decoder step i at q_offset + i
        first = self.enc_embedding.first(self.seq_len)
        # the decoder's last layer runs on the horizon rows only (exact: forecast.models.decoder)
        return self.decoder(dec, memory, q_offset=self.seq_len - self.label_len - first,
                            k_stride=self.encoder.stride * self.enc_embedding.stride,
                            keep_last=self.pred_len)  # (B, P, C_out)

