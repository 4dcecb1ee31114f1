"""The student's network (PyTorch, for training only): MiniLM's token states, adapted by one encoder
layer, read by a small Transformer decoder that writes program tokens.

The layers are PyTorch's own pre-norm Transformer layers, so `translators.model.student.writer` can run
the saved weights with NumPy alone, in the service, without importing PyTorch.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class Shape:
    """The network's sizes; saved beside its weights."""

    vocabulary: int
    states: int = 384
    width: int = 256
    heads: int = 4
    feed_forward: int = 1024
    encoder_layers: int = 1
    decoder_layers: int = 2
    max_tokens: int = 64

    def as_dict(self) -> dict[str, int]:
        """The sizes by name."""
        return asdict(self)


class Student(nn.Module):
    """Token states and a program prefix in, the next token's logits at every position out."""

    def __init__(self, shape: Shape, dropout: float = 0.1) -> None:
        super().__init__()
        self.shape = shape
        d = shape.width
        self.adapter = nn.Linear(shape.states, d)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d, shape.heads, shape.feed_forward, dropout, batch_first=True, norm_first=True),
            shape.encoder_layers,
            enable_nested_tensor=False,
        )
        self.embed = nn.Embedding(shape.vocabulary, d)
        # The output reads the embeddings too (tied): at unit scale its first logits would be ~16 wide.
        nn.init.normal_(self.embed.weight, std=d**-0.5)
        self.position = nn.Embedding(shape.max_tokens, d)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d, shape.heads, shape.feed_forward, dropout, batch_first=True, norm_first=True),
            shape.decoder_layers,
        )
        self.norm = nn.LayerNorm(d)

    def forward(self, states: torch.Tensor, state_mask: torch.Tensor, prefix: torch.Tensor) -> torch.Tensor:
        """Logits (batch, prefix tokens, vocabulary); `state_mask` is True on real question tokens."""
        memory = self.encoder(self.adapter(states), src_key_padding_mask=~state_mask)
        length = prefix.shape[1]
        x = self.embed(prefix) * math.sqrt(self.shape.width) + self.position(torch.arange(length))
        causal = torch.triu(torch.full((length, length), float("-inf")), diagonal=1)
        hidden = self.decoder(x, memory, tgt_mask=causal, memory_key_padding_mask=~state_mask)
        return self.norm(hidden) @ self.embed.weight.T
