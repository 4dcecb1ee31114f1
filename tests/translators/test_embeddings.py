import numpy as np

from translators.model.embeddings import index_paths, load_index, save_index


def test_embeddings_are_normalised_and_meaningful(embedder):
    vectors = embedder.encode(["What color is the car?", "Which color does the automobile have?", "Is the dog asleep?"])
    assert vectors.shape == (3, embedder.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_empty_input_gives_an_empty_matrix(embedder):
    assert embedder.encode([]).shape == (0, embedder.dimension)


def test_index_is_reused_only_for_the_same_questions_and_model(tmp_path):
    bank_path = tmp_path / "bank.jsonl"
    matrix = np.eye(3, 4, dtype=np.float32)
    assert save_index(bank_path, "m", "abc", matrix)
    assert index_paths(bank_path, "m")[0].exists()
    assert np.allclose(load_index(bank_path, "m", "abc"), matrix, atol=1e-3)
    assert load_index(bank_path, "m", "changed") is None
    assert load_index(bank_path, "other", "abc") is None
