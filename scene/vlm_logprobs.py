"""Likelihoods of the values in a model's JSON reply from the log-probabilities of its tokens.

The rule: a value's likelihood is the probability the model gave to writing it, ``exp`` of the sum
of the log-probabilities of every token that overlaps the value's characters (for a string, the
characters between the quotes). A token that holds a quote or a comma besides a character of the
value counts whole; a token of quotes, commas or spaces alone is the JSON's, not the value's. It is the
joint probability of the value's tokens given what came before them, so a long name the model was
sure of stays near 1 and one it hesitated over at any token is lower. Tokens are placed by their
UTF-8 bytes (the ``bytes`` field where the server gives it), so a character split over two tokens
is still found; when the tokens do not spell the reply, no likelihood comes from them at all.

Example:
    >>> text = '{"name": "mug"}'
    >>> written = [('{"', 0.0), ("name", 0.0), ('": "', 0.0), ("m", -0.1), ("ug", -0.2), ('"}', 0.0)]
    >>> tokens = [TokenLogprob(token, logprob) for token, logprob in written]
    >>> round(ValueLikelihoods(text, tokens).likelihood(("name",)), 4)
    0.7408
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

JsonPath = tuple[str | int, ...]  # keys and list indices from the root to a value

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token, its log-probability and (when the server gives them) its exact bytes."""

    token: str
    logprob: float
    token_bytes: bytes | None = field(default=None, compare=False)

    @property
    def utf8(self) -> bytes:
        return self.token_bytes if self.token_bytes is not None else self.token.encode("utf-8")


def value_spans(text: str) -> dict[JsonPath, tuple[int, int]]:
    """Character span of every scalar in a JSON text (strings without their quotes), by path."""
    # The standard json module reads values but not where they are, and no installed parser reports
    # positions; this walk lets json's decoder read each scalar and key and only tracks offsets.
    spans: dict[JsonPath, tuple[int, int]] = {}
    _walk(text, 0, (), spans)
    return spans


def _skip(text: str, i: int) -> int:
    match = _SPACE.match(text, i)
    return match.end() if match else i


def _walk(text: str, i: int, path: JsonPath, spans: dict[JsonPath, tuple[int, int]]) -> int:
    i = _skip(text, i)
    opener = text[i]
    if opener not in "[{":
        _, end = _DECODER.raw_decode(text, i)
        # a string's span is its characters, without the quotes
        spans[path] = (i + 1, end - 1) if opener == '"' else (i, end)
        return end
    closer, index = ("]" if opener == "[" else "}"), 0
    i = _skip(text, i + 1)
    while text[i] != closer:
        if opener == "{":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i) + 1  # past the colon
            i = _walk(text, i, (*path, key), spans)
        else:
            i = _walk(text, i, (*path, index), spans)
            index += 1
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return i + 1


class ValueLikelihoods:
    """The likelihood of each scalar of a JSON reply from the tokens that wrote it."""

    def __init__(self, text: str, tokens: Sequence[TokenLogprob]) -> None:
        encoded = text.encode("utf-8")
        self._aligned = b"".join(t.utf8 for t in tokens) == encoded
        self._tokens = tuple(tokens)
        ends, total = [], 0
        for t in tokens:
            total += len(t.utf8)
            ends.append(total)
        self._ends = ends
        self._spans: dict[JsonPath, tuple[int, int]] = {}
        if self._aligned:
            try:
                self._spans = value_spans(text)
            except (ValueError, IndexError):  # not JSON: the caller rejects the reply anyway
                self._aligned = False
        # character offset -> byte offset, for replies with characters beyond ASCII
        self._byte_at = None if text.isascii() else [len(text[:k].encode("utf-8")) for k in range(len(text) + 1)]

    @property
    def aligned(self) -> bool:
        """Whether the tokens spell the reply exactly (if not, no value gets a likelihood)."""
        return self._aligned

    def likelihood(self, path: JsonPath) -> float | None:
        """``exp`` of the summed log-probabilities of the tokens over the value at `path`; None when unknown."""
        span = self._spans.get(path)
        if span is None or span[0] >= span[1]:
            return None
        start, end = span if self._byte_at is None else (self._byte_at[span[0]], self._byte_at[span[1]])
        first = bisect_right(self._ends, start)  # the first token ending after the value starts
        total = 0.0
        for k in range(first, len(self._tokens)):
            if self._ends[k] - len(self._tokens[k].utf8) >= end:
                break
            total += self._tokens[k].logprob
        return min(1.0, math.exp(total))
