"""Train the student from the project's own bank and GQA's programs (``aspvqa student train``, or
``make student``, writes ``translators/data/student/``).

Training needs PyTorch (the ``llm`` extra has it). It reads each question through the ONNX token
graph the service uses (`TokenStates`), learns on two cores in about 35 minutes at the default
steps, keeps a checkpoint in the user cache every 250 steps and resumes from it when run again
with the same pairs, sizes and steps.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from theory.cache import cache_dir
from translators.examples.bundled import default_bank
from translators.model.student.composed import composed_pairs
from translators.model.student.encoder import TokenStates
from translators.model.student.pairs import Pair, bank_pairs, gqa_pairs, structure_tokens
from translators.model.student.vocabulary import PAD, ProgramVocabulary
from translators.model.student.writer import DEFAULT_STEPS
from translators.wording.ontology import bundled_ontology

# GQA's real wordings are few beside the generated ones; each is seen this many times an epoch.
GQA_REPEATS = 8


def training_pairs(gqa_dir: Path | None, exclude: Collection[str] = ()) -> list[Pair]:
    """The bank's pairs, some of them with an object described further (`composed_pairs`), and
    GQA's (each `GQA_REPEATS` times), but for GQA's ids in `exclude`."""
    pairs = list(bank_pairs(default_bank()))
    pairs += list(composed_pairs(pairs, bundled_ontology()))
    if gqa_dir is not None and gqa_dir.exists():
        pairs += [p for p in gqa_pairs(gqa_dir, exclude) for _ in range(GQA_REPEATS)]
    return pairs


def _batches(lengths: Sequence[int], size: int, rng: random.Random) -> list[list[int]]:
    """Index batches of similar question lengths, in a shuffled order."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    batches = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(batches)
    return batches


def _digest(pairs: Sequence[Pair], shape: object, steps: int) -> str:
    digest = hashlib.sha256(repr(shape).encode() + str(steps).encode())
    for pair in pairs:
        digest.update(pair.question.encode() + b"\0" + " ".join(pair.tokens).encode() + b"\1")
    return digest.hexdigest()[:12]


def train(
    pairs: Sequence[Pair], out: Path, steps: int = DEFAULT_STEPS, batch: int = 64, seed: int = 0
) -> dict[str, float]:
    """Train on `pairs`, save the weights to `out` and return the steps and the last loss."""
    import torch
    from tqdm import tqdm

    from translators.model.student.network import Shape, Student

    torch.manual_seed(seed)
    rng = random.Random(seed)
    vocabulary = ProgramVocabulary.build([p.tokens for p in pairs])
    shape = Shape(vocabulary=len(vocabulary.tokens))
    targets = [vocabulary.ids(p.tokens)[: shape.max_tokens + 1] for p in pairs]
    reader = TokenStates()
    questions = sorted({p.question for p in pairs})
    states: dict[str, np.ndarray] = {}
    for start in tqdm(range(0, len(questions), 128), desc="reading questions", unit="batch"):
        chunk = questions[start : start + 128]
        values, mask = reader.states(chunk)
        for i, question in enumerate(chunk):
            states[question] = values[i, mask[i]].astype(np.float16)
    model = Student(shape)
    optimiser = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
    warmup = min(300, steps // 10 + 1)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: min((s + 1) / warmup, max(0.05, 1 - s / steps)))
    checkpoint = cache_dir() / "student" / f"checkpoint-{_digest(pairs, shape, steps)}.pt"
    step = 0
    if checkpoint.exists():
        saved = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(saved["model"])
        optimiser.load_state_dict(saved["optimiser"])
        schedule.load_state_dict(saved["schedule"])
        step, rng = saved["step"], saved["rng"]
    pad = vocabulary.index[PAD]
    lengths = [len(states[p.question]) for p in pairs]
    losses: list[float] = []
    bar = tqdm(total=steps, initial=step, desc="training the student", unit="step")
    model.train()
    while step < steps:
        for indices in _batches(lengths, batch, rng):
            if step >= steps:
                break
            width = max(lengths[i] for i in indices)
            x = np.zeros((len(indices), width, shape.states), dtype=np.float32)
            x_mask = np.zeros((len(indices), width), dtype=bool)
            span = max(len(targets[i]) for i in indices)
            y = np.full((len(indices), span), pad, dtype=np.int64)
            for row, i in enumerate(indices):
                value = states[pairs[i].question]
                x[row, : len(value)], x_mask[row, : len(value)] = value, True
                y[row, : len(targets[i])] = targets[i]
            tokens = torch.from_numpy(y)
            logits = model(torch.from_numpy(x), torch.from_numpy(x_mask), tokens[:, :-1])
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, shape.vocabulary), tokens[:, 1:].reshape(-1), ignore_index=pad
            )
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            losses.append(loss.item())
            bar.update(1)
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.4f}")
            if step % 250 == 0 or step == steps:
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
                temporary = checkpoint.with_suffix(".tmp")
                state = {"model": model.state_dict(), "optimiser": optimiser.state_dict()}
                torch.save(state | {"schedule": schedule.state_dict(), "step": step, "rng": rng}, temporary)
                temporary.replace(checkpoint)
    bar.close()
    save_weights(model, vocabulary, out, structure_tokens(pairs))
    return {"steps": step, "loss_last_50": float(np.mean(losses[-50:])) if losses else float("nan")}


def save_weights(  # noqa: ANN001 - a torch module
    model, vocabulary: ProgramVocabulary, out: Path, structure: Collection[str] = ()
) -> None:
    """The weights as float16 arrays by name, the sizes, the vocabulary and the structure tokens
    (`structure_tokens`: the constants the writer may use whatever the question says)."""
    out.mkdir(parents=True, exist_ok=True)
    arrays = {name: value.detach().numpy().astype(np.float16) for name, value in model.state_dict().items()}
    np.savez_compressed(out / "weights.npz", **arrays)
    (out / "shape.json").write_text(json.dumps(model.shape.as_dict(), indent=1), encoding="utf-8")
    vocabulary.save(out / "vocabulary.json")
    (out / "structure.json").write_text(json.dumps(sorted(structure)), encoding="utf-8")
