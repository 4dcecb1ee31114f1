import pytest

from theory.operations import OPERATIONS
from translators.examples.bank import ExampleBank
from translators.model.retrieval import Retriever, Sampling, words


@pytest.fixture(scope="module")
def jaccard(bank):
    return Retriever(bank)


def test_jaccard_ranks_by_word_overlap(jaccard):
    got = jaccard.retrieve("What is the guy wearing?", 3, "jaccard")
    assert got[0].example.question != "What is the guy wearing?"  # the target's own text never shows
    scores = [r.score for r in got]
    assert scores == sorted(scores, reverse=True)
    top_words = words(got[0].example.question)
    assert {"what", "wearing"} <= top_words


def test_target_and_excluded_ids_are_never_returned(jaccard, bank):
    target = bank[0]
    got = jaccard.retrieve(target.question.upper() + "  ", 50, "jaccard", exclude_ids=[bank[1].id])
    ids = {r.example.id for r in got}
    assert target.id not in ids and bank[1].id not in ids
    assert len(got) == 50


def test_k_larger_than_bank_returns_every_other_example(bank):
    small = Retriever(ExampleBank(bank.examples[:4]))
    got = small.retrieve(bank[0].question, 10, "jaccard")
    assert len(got) == 3


def test_cover_operators_adds_examples_until_every_operation_appears(jaccard, bank):
    got = jaccard.retrieve("Is there a cat?", 2, "jaccard", cover_operators=True)
    used = set().union(*(r.example.operations for r in got))
    assert used == set(OPERATIONS)
    assert all(r.reason == "similar" for r in got[:2])
    assert all(r.reason.startswith("cover:") for r in got[2:])
    assert len({r.example.id for r in got}) == len(got)


def test_random_sampling_is_reproducible_and_seed_dependent(jaccard):
    a = [r.example.id for r in jaccard.retrieve("Is the cup red?", 5, Sampling.RANDOM, seed=1)]
    b = [r.example.id for r in jaccard.retrieve("Is the cup red?", 5, Sampling.RANDOM, seed=1)]
    c = [r.example.id for r in jaccard.retrieve("Is the cup red?", 5, Sampling.RANDOM, seed=2)]
    assert a == b and a != c


def test_embedding_retrieval_finds_paraphrases(bank, embedder):
    retriever = Retriever(bank, embedder)
    got = retriever.retrieve("Which colour is the automobile?", 5, "bert")
    assert any("car" in words(r.example.question) and "color" in words(r.example.question) for r in got)


def test_embedding_retrieval_without_embedder_is_an_error(bank):
    with pytest.raises(ValueError, match="embedder"):
        Retriever(bank).retrieve("Is there a cat?", 3, "bert")


def test_approximate_index_agrees_with_exact_search_when_it_probes_every_list(bank):
    import numpy as np

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((len(bank), 32), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    exact = Retriever(bank, matrix=matrix)
    approximate = Retriever(bank, matrix=matrix)
    approximate.exact_limit = 10
    approximate.nprobe = 4096  # every list: the inverted file then finds the true neighbours
    for row in (0, 17, 99):
        vector = matrix[row] + 0.05 * rng.standard_normal(32, dtype=np.float32)
        question = bank[row].question
        want = exact.retrieve(question, 5, "bert", vector=vector, exclude_ids=[bank[1].id], cover_operators=True)
        got = approximate.retrieve(question, 5, "bert", vector=vector, exclude_ids=[bank[1].id], cover_operators=True)
        assert [r.example.id for r in got[:5]] == [r.example.id for r in want[:5]]
        assert bank[row].id not in {r.example.id for r in got}
        assert set().union(*(r.example.operations for r in got)) == set(OPERATIONS)


def test_paraphrases_of_an_excluded_question_are_never_returned(bank):
    from dataclasses import replace

    paraphrase = replace(bank[5], id="gqa-2", equivalent=frozenset({"1"}))
    retriever = Retriever(ExampleBank([*bank.examples[:5], paraphrase]))
    got = retriever.retrieve(paraphrase.question + " now", 10, "jaccard", exclude_ids=["1"])
    assert "gqa-2" not in {r.example.id for r in got}
    assert "gqa-2" in {r.example.id for r in retriever.retrieve(paraphrase.question + " now", 10, "jaccard")}


def test_restricted_retriever_shows_only_its_rows_and_shares_the_embeddings(bank, embedder):
    full = Retriever(bank, embedder)
    rows = [i for i, e in enumerate(bank) if "exist" in e.operations]
    view = full.restricted(rows)
    assert len(view.bank) == len(rows)
    assert view.matrix.base is not None or view.matrix.shape == (len(rows), full.matrix.shape[1])
    assert (view.matrix == full.matrix[rows]).all()
    found = view.retrieve("Is there a cat or a dog?", 5)
    assert found and all("exist" in r.example.operations for r in found)


class HashEmbedder:
    """Deterministic unit vectors from a text's digest: enough to build and query an index."""

    name = "hash"

    def encode(self, texts):
        import hashlib

        import numpy as np

        rows = [np.frombuffer(hashlib.sha512(t.encode()).digest(), dtype=np.uint8)[:32] for t in texts]
        matrix = np.asarray(rows, dtype=np.float32) - 127.5
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_the_trained_approximate_index_is_kept_beside_the_bank_and_read_back(bank, tmp_path, monkeypatch):
    pytest.importorskip("faiss")
    import faiss

    from translators.examples.bank import load_bank, save_bank

    save_bank(bank, tmp_path / "bank.jsonl")
    stored = load_bank(tmp_path / "bank.jsonl")

    def retriever():
        found = Retriever(stored, HashEmbedder())
        found.exact_limit = 10  # the bank is small: force the approximate index
        return found

    first = [r.example.id for r in retriever().retrieve("Is there a red cup?", 5, "bert")]
    (index_file,) = tmp_path.glob("*.ivf")
    real = faiss.IndexIVFFlat
    monkeypatch.setattr(faiss, "IndexIVFFlat", lambda *a: pytest.fail("trained again"))
    assert [r.example.id for r in retriever().retrieve("Is there a red cup?", 5, "bert")] == first
    # An index made for other questions (another fingerprint) is trained again and replaced.
    meta = index_file.with_suffix(".ivf.json")
    meta.write_text(meta.read_text().replace(stored.fingerprint(), "other"))
    monkeypatch.setattr(faiss, "IndexIVFFlat", real)
    assert [r.example.id for r in retriever().retrieve("Is there a red cup?", 5, "bert")] == first
    assert stored.fingerprint() in meta.read_text()
