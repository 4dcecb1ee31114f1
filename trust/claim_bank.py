"""The example pool for translating claims: statements and their yes/no programs.

A separate pool from the question bank, so that question translation (its bank, digest and
accuracy) is untouched: a few hand-written claims (the prompt's fixed examples, covering every
operation a claim uses) and claims generated from the project's own templates with the question
generator's slots (`translators.examples.synthetic`), filled with the bundled ontology's words. Built
deterministically and kept in the cache folder, next to its embedding index.

Example:
    >>> bank = hand_written_claims()
    >>> bank[0].question, sorted(bank[0].operations)
    ('There is a dog.', ['exist', 'scene', 'select'])
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from theory.cache import cache_dir
from theory.nested import parse_nested
from translators.examples.bank import Example, ExampleBank, load_bank, save_bank
from translators.examples.synthetic import Template, generate_examples
from translators.wording.ontology import Ontology, bundled_ontology

PER_TEMPLATE = 150
_S, _SB = "select(scene(), {a})", "select(scene(), {b})"
_TWO = f"negate(unique({_S}), {_S})"

CLAIM_TEMPLATES: tuple[Template, ...] = (
    Template(
        "claim_exist",
        ("There is a {a}.", "There is a {a} in the picture.", "The picture shows a {a}.", "I can see a {a}."),
        f"exist({_S})",
    ),
    Template(
        "claim_exist_attr",
        ("There is a {v} {a}.", "The picture shows a {v} {a}.", "There is a {a} that is {v}."),
        f"exist(filter({_S}, {{cat}}, {{v}}))",
    ),
    Template(
        "claim_attr",
        ("The {a} is {v}.", "The {a} looks {v}.", "The {a} in the picture is {v}."),
        f"verify_attr(unique({_S}), {{cat}}, {{v}})",
    ),
    Template(
        "claim_position",
        ("The {a} is {pw}.", "The {a} is {pw} of the picture."),
        f"verify_attr(unique({_S}), {{pcat}}, {{p}})",
    ),
    Template(
        "claim_rel",
        ("The {a} is {r} the {b}.", "The {a} is {r} a {b}."),
        f"verify_rel(unique({_S}), {{b}}, {{r}}, object)",
    ),
    Template(
        "claim_rel_exist",
        ("There is a {a} {r} the {b}.", "A {a} is {r} the {b}."),
        f"exist(relate({_SB}, {{a}}, {{r}}, subject))",
    ),
    Template(
        "claim_rel_attr",
        ("The {v} {a} is {r} the {w} {b}.", "There is a {v} {a} {r} the {w} {b}."),
        f"exist(filter(relate(filter({_SB}, {{cat2}}, {{w}}), {{a}}, {{r}}, subject), {{cat}}, {{v}}))",
    ),
    Template(
        "claim_and_attr",
        ("The {a} is {v} and {w}.", "The {a} is both {v} and {w}."),
        f"and(verify_attr(unique({_S}), {{cat}}, {{v}}), verify_attr(unique({_S}), {{cat2}}, {{w}}))",
    ),
    Template(
        "claim_both",
        ("There are both a {a} and a {b}.", "The picture shows a {a} and a {b}."),
        f"and(exist({_S}), exist({_SB}))",
    ),
    Template("claim_either", ("There is a {a} or a {b}.",), f"or(exist({_S}), exist({_SB}))"),
    Template(
        "claim_same",
        ("The {a} and the {b} have the same {cat_words}.", "The {a} is the same {cat_words} as the {b}."),
        f"two_same(unique({_S}), unique({_SB}), {{cat}})",
    ),
    Template(
        "claim_two", ("There are two {as}.", "I count two {as}.", "The picture shows two {as}."), f"exist({_TWO})"
    ),
    Template("claim_three", ("There are three {as}.", "I count three {as}."), f"exist(negate(unique({_TWO}), {_TWO}))"),
)

# The prompt's fixed examples: every operation a claim uses, once.
HAND_WRITTEN = (
    ("There is a dog.", "exist(select(scene(), dog))"),
    ("The car is red.", "verify_attr(unique(select(scene(), car)), color, red)"),
    ("The cup is on the table.", "verify_rel(unique(select(scene(), cup)), table, on, object)"),
    (
        "The red bus is to the left of the white car.",
        "exist(filter(relate(filter(select(scene(), car), color, white), bus, to_the_left_of, subject), color, red))",
    ),
    ("There are two cats.", "exist(negate(unique(select(scene(), cat)), select(scene(), cat)))"),
    ("The man is on the left.", "verify_attr(unique(select(scene(), man)), hposition, left)"),
    ("There are both a fork and a knife.", "and(exist(select(scene(), fork)), exist(select(scene(), knife)))"),
    ("There is a dog or a cat.", "or(exist(select(scene(), dog)), exist(select(scene(), cat)))"),
    (
        "The shirt and the hat have the same color.",
        "two_same(unique(select(scene(), shirt)), unique(select(scene(), hat)), color)",
    ),
    ("A woman is holding an umbrella.", "exist(relate(select(scene(), umbrella), woman, holding, subject))"),
    (
        "The plate is white and round.",
        "and(verify_attr(unique(select(scene(), plate)), color, white), "
        "verify_attr(unique(select(scene(), plate)), shape, round))",
    ),
)


def hand_written_claims() -> list[Example]:
    """The hand-written claims (source ``project``)."""
    return [Example(f"claim-{i:03d}", text, parse_nested(program)) for i, (text, program) in enumerate(HAND_WRITTEN, 1)]


def claim_bank_digest(ontology: Ontology, per_template: int = PER_TEMPLATE) -> str:
    """Names one claim pool: its templates, hand-written claims, ontology and count."""
    digest = hashlib.sha256(repr((CLAIM_TEMPLATES, HAND_WRITTEN)).encode())
    digest.update(f"{ontology.digest()}|{per_template}".encode())
    return digest.hexdigest()[:12]


def build_claim_bank(ontology: Ontology | None = None, per_template: int = PER_TEMPLATE) -> ExampleBank:
    """The hand-written claims followed by the generated ones, from the cache folder when present."""
    ontology = ontology or bundled_ontology()
    path = cache_dir() / "banks" / f"claims-{claim_bank_digest(ontology, per_template)}.jsonl"
    if path.exists():
        try:
            return load_bank(path)
        except (OSError, ValueError):
            pass  # a damaged file is written again
    written = hand_written_claims()
    generated = generate_examples(ontology, per_template, templates=CLAIM_TEMPLATES)
    bank = ExampleBank(written + generated, path=path)
    try:
        save_bank(bank, path)
    except OSError:
        pass  # a read-only cache still gives a working pool
    return bank


@lru_cache(maxsize=1)
def claim_bank() -> ExampleBank:
    """The default claim pool."""
    return build_claim_bank()
