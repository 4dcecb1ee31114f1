"""An honest tuning/validation split of GQA questions for measuring translation on unseen questions.

The second part is the *validation* part: it was looked at while the translation rules were
written, so it validates them rather than testing them blind (it used to be called "test").

A question's *family* is its answer group (GQA's ``groups.global``) together with its program
*skeleton* (the operation spellings and dependencies, arguments blanked). Whole families go to
one part, so no validation question has a same-family, same-skeleton sibling in the tuning part (or
in a bank built from it); then every tuning question about an image that the validation part also
asks about is dropped, so no image is seen on both sides. Families are placed in a fixed
pseudo-random order (a digest of the family key) per stratum (structural and semantic type), so
the split does not depend on file order and each stratum keeps about the same share in both parts.

Linking questions by image *and* family at once leaves one component of ~80 % of GQA's val
sample, so the two conditions are met in this order instead.

Example:
    >>> q = {"a": {"imageId": "1", "groups": {"global": "color"}, "types": {"structural": "query"},
    ...            "semantic": [{"operation": "select", "argument": "x", "dependencies": []}]}}
    >>> family_key(q["a"])
    'color|select[]'
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from evaluation.gqa_json import QuestionJson, SemanticStep

VALIDATION_SHARE = 0.3  # of each structural type's questions, before tuning questions are dropped for images
TEST_SHARE = VALIDATION_SHARE  # the former name, kept for scripts that still import it

Part = Literal["tuning", "validation", "dropped"]
# Commands and files written before the rename name the validation part "test".
PART_ALIASES: Mapping[str, Part] = {
    "tuning": "tuning",
    "validation": "validation",
    "test": "validation",
    "dropped": "dropped",
}


def skeleton(semantic: Sequence[SemanticStep]) -> str:
    """The program with arguments blanked: ``select[] relate[0] query[1]``."""
    return " ".join(
        f"{' '.join(str(s['operation']).split())}[{','.join(map(str, s.get('dependencies') or []))}]" for s in semantic
    )


def family_key(record: QuestionJson) -> str:
    """``global group | skeleton``: questions of one template and answer kind share it."""
    group = (record.get("groups") or {}).get("global") or "-"
    return f"{group}|{skeleton(record.get('semantic') or [])}"


def _rank(key: str, seed: str) -> str:
    return hashlib.sha256(f"{seed}|{key}".encode()).hexdigest()


@dataclass(frozen=True)
class Split:
    """Question ids of each part, and the tuning questions dropped because their image is validated on."""

    tuning: tuple[str, ...]
    validation: tuple[str, ...]
    dropped: tuple[str, ...]

    @property
    def test(self) -> tuple[str, ...]:
        """The validation part under its former name (scripts written before the rename read it)."""
        return self.validation

    def part(self, name: str) -> tuple[str, ...]:
        """The ids of the part `name`: ``tuning``, ``validation`` (or its former name ``test``), ``dropped``."""
        chosen = PART_ALIASES.get(name)
        if chosen is None:
            raise ValueError(f"unknown part {name!r}; use tuning, validation or dropped")
        return {"tuning": self.tuning, "validation": self.validation, "dropped": self.dropped}[chosen]

    def part_of(self, question_id: str) -> Part | None:
        """``tuning``, ``validation``, ``dropped`` or None for an unknown id."""
        parts: tuple[tuple[Part, tuple[str, ...]], ...] = (
            ("tuning", self.tuning),
            ("validation", self.validation),
            ("dropped", self.dropped),
        )
        for name, ids in parts:
            if question_id in ids:
                return name
        return None


def split_questions(
    questions: Mapping[str, QuestionJson],
    validation_share: float = VALIDATION_SHARE,
    seed: str = "aspvqa-split-1",
    *,
    test_share: float | None = None,
) -> Split:
    """Split GQA question records (id -> record) by family, then by image (see the module docstring).

    `test_share` is the former name of `validation_share`, still accepted from older callers."""
    share = validation_share if test_share is None else test_share
    members: dict[str, list[str]] = defaultdict(list)
    strata: dict[str, Counter[str]] = defaultdict(Counter)
    for qid in sorted(questions):
        record = questions[qid]
        key = family_key(record)
        types = record.get("types") or {}
        members[key].append(qid)
        strata[key][f"{types.get('structural') or '-'}/{types.get('semantic') or '-'}"] += 1
    # A family belongs to the stratum most of its questions are in, so it is never split.
    families: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for key, ids in members.items():
        stratum = min(strata[key].items(), key=lambda kv: (-kv[1], kv[0]))[0]
        families[stratum][key] = ids
    validation: set[str] = set()
    for stratum in sorted(families):
        by_family = families[stratum]
        wanted = share * sum(len(ids) for ids in by_family.values())
        taken = 0
        # A family that would overshoot the share is passed over, so one large template cannot
        # fill a stratum's whole validation share.
        for key in sorted(by_family, key=lambda k: _rank(k, seed)):
            if taken + len(by_family[key]) <= wanted + 2:
                validation.update(by_family[key])
                taken += len(by_family[key])
    validated_images = {questions[q].get("imageId") for q in validation}
    tuning: list[str] = []
    dropped: list[str] = []
    for qid in sorted(questions):
        if qid in validation:
            continue
        (dropped if questions[qid].get("imageId") in validated_images else tuning).append(qid)
    return Split(tuple(tuning), tuple(sorted(validation)), tuple(dropped))
