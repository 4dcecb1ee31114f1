"""What training a small program writer (a student distilled from generated pairs) costs on this machine.

A student is trained on pairs of a question and its program, as the model writes it (nested
syntax). This script times optimiser steps of two students on the CPU with PyTorch, with batches
as long as the pairs are: the length is the 95th percentile, in tokens of SmolLM2's tokenizer, of
the default bank's questions with their nested programs and the chat frame around them.

- ``decoder-135m``: SmolLM2-135M's shape (30 layers, width 576), every weight trained;
- ``decoder-135m-frozen``: the same with only the norms trained, the cost floor of adapters
  (LoRA): gradients still run back through every layer;
- ``encoder-decoder-44m``: MiniLM-L6's shape as the encoder (6 layers, width 384, the bundled
  embedder) and a 4-layer decoder of the same width.

Weights are random: the cost of a step does not depend on them. Prints seconds a step and the
hours for `--steps` steps (default 20,000: five passes over 64,000 pairs at 16 a batch), writes
bench/results/student_training_cost.json, and exits 1 when the smallest student's hours exceed
`--budget-hours` (default 3, what one working stretch on this machine can spend). Needs torch and
transformers (`make install`), and llama-cpp-python with the SmolLM2 wheel for the tokenizer.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from theory.nested import format_nested  # noqa: E402
from translators.examples.bank import load_bank  # noqa: E402
from translators.model.backends.models import model_path  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "student_training_cost.json"
BANK = ROOT / "translators" / "data" / "bank.jsonl"
BATCH = 16
FRAME = "<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n{program}<|im_end|>"


def pair_tokens() -> int:
    """The 95th percentile of a bank pair's length in SmolLM2's tokens."""
    from llama_cpp import Llama

    vocab = Llama(model_path=str(model_path("smollm2-135m")), vocab_only=True, verbose=False)
    lengths = sorted(
        len(vocab.tokenize(FRAME.format(question=e.question, program=format_nested(e.program)).encode(), special=True))
        for e in load_bank(BANK)
    )
    return lengths[int(0.95 * (len(lengths) - 1))]


def _students():  # noqa: ANN202 - (name, model) pairs with torch types
    from transformers import (
        BertConfig,
        BertLMHeadModel,
        BertModel,
        EncoderDecoderModel,
        LlamaConfig,
        LlamaForCausalLM,
    )

    decoder = LlamaConfig(
        vocab_size=49152,
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
    )
    yield "decoder-135m", LlamaForCausalLM(decoder)
    frozen = LlamaForCausalLM(decoder)
    for name, parameter in frozen.named_parameters():
        parameter.requires_grad = "norm" in name
    yield "decoder-135m-frozen", frozen
    # MiniLM-L6's width (the bundled embedder's encoder) on both sides; the decoder is shallower.
    width = {"vocab_size": 30522, "hidden_size": 384, "num_attention_heads": 12, "intermediate_size": 1536}
    encoder = BertConfig(num_hidden_layers=6, **width)
    small = BertConfig(num_hidden_layers=4, is_decoder=True, add_cross_attention=True, **width)
    model = EncoderDecoderModel(encoder=BertModel(encoder), decoder=BertLMHeadModel(small))
    model.config.decoder_start_token_id = 101
    model.config.pad_token_id = 0
    yield "encoder-decoder-44m", model


def time_steps(model, tokens: int, steps: int) -> float:  # noqa: ANN001
    """Median seconds of an AdamW step on a batch of `BATCH` sequences of `tokens` tokens."""
    import torch

    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=1e-4)
    ids = torch.randint(5, 30000, (BATCH, tokens))  # within both vocabularies
    seconds = []
    for step in range(steps + 1):
        started = time.perf_counter()
        if model.config.is_encoder_decoder:
            question = ids[:, : tokens // 3]
            output = model(input_ids=question, labels=ids[:, tokens // 3 :].contiguous())
        else:
            output = model(input_ids=ids, labels=ids)
        output.loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        if step:  # the first step allocates
            seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="optimiser steps a training would take")
    parser.add_argument("--timed", type=int, default=3, help="steps timed per student")
    parser.add_argument("--budget-hours", type=float, default=3.0)
    args = parser.parse_args()
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(os.cpu_count() or 1)
    tokens = pair_tokens()
    students = {}
    for name, model in _students():
        parameters = sum(p.numel() for p in model.parameters())
        seconds = time_steps(model, tokens, args.timed)
        students[name] = {
            "parameters_m": round(parameters / 1e6, 1),
            "seconds_a_step": round(seconds, 2),
            "hours": round(seconds * args.steps / 3600, 1),
        }
        print(
            f"{name}: {parameters / 1e6:.0f} M parameters, {seconds:.2f} s a step, {students[name]['hours']} h for {args.steps} steps"
        )
        del model
    cheapest = min(s["hours"] for s in students.values())
    report = {
        "data": "the default bank's pairs for the length only (the project's own examples)",
        "cpu_threads": torch.get_num_threads(),
        "batch": BATCH,
        "tokens": tokens,
        "steps": args.steps,
        "students": students,
        "budget_hours": args.budget_hours,
        "within_budget": cheapest <= args.budget_hours,
    }
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"batch {BATCH} x {tokens} tokens; cheapest {cheapest} h against a budget of {args.budget_hours} h")
    sys.exit(0 if report["within_budget"] else 1)


if __name__ == "__main__":
    main()
