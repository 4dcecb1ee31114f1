"""Data from ../shared stays there: no tracked file outside the tests copies a GQA file or quotes a
GQA question of it word for word (results name question ids), and the bank generator writes none
out either: not in its templates' wordings (choices expanded), nor in the bank it generates but by a slot's fill."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tomllib

import pytest

from tests.support import GQA_DIR, REPO

# The samples the project develops on. The test-dev sample is read only to find quotes of it, and
# a failure names its questions by id.
SAMPLES = ("val_balanced_sample.json", "train_balanced_sample50.json")


def _tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [name for name in listed.stdout.decode().split("\0") if name]


def _gqa_data() -> dict[str, object]:
    """Each GQA questions file of ../shared by name."""
    if not (GQA_DIR / "questions").is_dir():
        pytest.skip(f"GQA data not found at {GQA_DIR}")
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((GQA_DIR / "questions").glob("*.json"))
    }


def _question_ids(data: object) -> dict[str, str]:
    """A questions file's questions (a dict of records by id, or a list of records) -> their ids."""
    records = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    return {
        record["question"]: str(record.get("questionId", key))
        for key, record in records
        if isinstance(record, dict) and isinstance(record.get("question"), str)
    }


def _plain(text: str) -> str:
    return " ".join(text.lower().replace('\\"', '"').split())


def _outside_tests() -> list[str]:
    # Tests that read ../shared may name a question they check; nothing else may.
    return [name for name in _tracked_files() if not name.startswith("tests/")]


def test_no_tracked_file_quotes_a_gqa_question() -> None:
    """Every question of four words or more, matched without case or spacing (a shorter question
    is a phrase anyone writes; a question's first words are too, so the question mark is kept).
    A failure names a question of the development samples by its text and any other (the test-dev
    sample, kept unseen) by its file and id only."""
    named: dict[str, str] = {}
    for file, data in _gqa_data().items():
        for question, question_id in _question_ids(data).items():
            if len(question.split()) >= 4:
                named.setdefault(_plain(question), question if file in SAMPLES else f"{file} question {question_id}")
    quoted = []
    for name in _outside_tests():
        raw = (REPO / name).read_bytes()
        if b"\0" in raw[:4096]:
            continue  # binary: embeddings, images
        text = _plain(raw.decode("utf-8", errors="ignore"))
        quoted += [f"{name}: {shown}" for question, shown in named.items() if question in text]
    assert not quoted, "GQA questions quoted word for word: " + "; ".join(sorted(quoted)[:20])


def test_no_tracked_file_is_a_copy_of_a_gqa_file() -> None:
    if not GQA_DIR.is_dir():
        pytest.skip(f"GQA data not found at {GQA_DIR}")
    shared = {hashlib.sha256(path.read_bytes()).hexdigest() for path in GQA_DIR.rglob("*") if path.is_file()}
    copies = [name for name in _tracked_files() if hashlib.sha256((REPO / name).read_bytes()).hexdigest() in shared]
    assert not copies, f"copies of ../shared data: {copies}"


_SLOT = re.compile(r"\{[^{}|]*\}")


def _sample_questions() -> dict[str, str]:
    """The questions of the shared val and train samples, plain -> as GQA writes it."""
    folder = GQA_DIR / "questions"
    if not all((folder / name).is_file() for name in SAMPLES):
        pytest.skip(f"GQA samples not found in {folder}")
    found: dict[str, str] = {}
    for name in SAMPLES:
        for question in _question_ids(json.loads((folder / name).read_text(encoding="utf-8"))):
            found[_plain(question)] = question
    return found


def _template_wordings() -> list[str]:
    """Every wording of the templates file, as the generator reads it: each phrasing and each
    category question with its choices expanded (a phrasing that names a category's questions
    stands for them)."""
    from translators.examples.synthetic import TEMPLATES_PATH, expand_alternatives

    data = tomllib.loads(TEMPLATES_PATH.read_text(encoding="utf-8"))
    written = [q for questions in data["category_questions"].values() for q in questions]
    written += [p for entry in data["template"] for p in entry.get("phrasings", [])]
    return [wording for phrasing in written for wording in expand_alternatives(phrasing)]


def _slot_pattern(wording: str) -> re.Pattern[str]:
    """`wording` with each slot ({a}, {cat_words}) standing for one to four words."""
    parts = _SLOT.split(_plain(wording))
    return re.compile(r"[a-z0-9'-]+(?: [a-z0-9'-]+){0,3}".join(re.escape(part) for part in parts))


def _filled_by_family() -> dict[str, list[re.Pattern[str]]]:
    """Per template family, its phrasings that have slots (a family that asks a category's
    questions has theirs), as patterns."""
    from translators.examples.synthetic import TEMPLATES

    category = [w for w in _template_wordings() if "{a}" in w]
    patterns: dict[str, list[re.Pattern[str]]] = {}
    for template in TEMPLATES:
        asks_category = any(p.startswith("CATEGORY_QUESTIONS") for p in template.phrasings)
        slotted = [p for p in (category if asks_category else template.phrasings) if _SLOT.search(p)]
        patterns.setdefault(template.family, []).extend(_slot_pattern(p) for p in slotted)
    return patterns


def test_no_template_wording_is_a_gqa_question() -> None:
    """A wording the templates write out in full (after its choices are expanded) is one of our
    own: "{What|Which} X {is it|...}?" may not spell GQA's questions that no single phrasing shows."""
    questions = _sample_questions()
    wordings = _template_wordings()
    assert len(wordings) > 300  # the choices were expanded and every family read
    spelled = sorted({questions[_plain(w)] for w in wordings if _plain(w) in questions})
    assert not spelled, f"{len(spelled)} template wordings are GQA questions: {spelled}"


def test_no_generated_question_spells_a_gqa_question_but_by_filling_a_slot() -> None:
    """The generated bank (the bundled ontology, the service's draw count) holds no GQA question of
    the samples except where a slot's fill made it: a phrasing with slots filled from GQA's own
    words ("Who is {rv} ...?") writes some of GQA's template-made questions by chance, and those
    are counted and named here, not forbidden. One the generator writes out without a slot fails."""
    from translators.examples.bundled import PER_TEMPLATE
    from translators.examples.synthetic import generate_examples
    from translators.wording.ontology import bundled_ontology

    questions = _sample_questions()
    examples = generate_examples(bundled_ontology(), PER_TEMPLATE)
    assert len(examples) > 40_000
    # An example's id names its family: gen-<family>-<n>.
    equal = sorted({(e.id.split("-")[1], e.question) for e in examples if _plain(e.question) in questions})
    filled = _filled_by_family()
    written_out = [q for family, q in equal if not any(p.fullmatch(_plain(q)) for p in filled[family])]
    assert not written_out, f"{len(written_out)} generated questions are GQA questions: {written_out}"
    print(f"{len(equal)} of {len(examples)} generated questions equal a GQA question by a slot's fill: {equal}")
