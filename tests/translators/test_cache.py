from translators.cache import TranslationCache, cache_key


def test_key_depends_on_question_and_settings_but_not_spacing():
    assert cache_key("Is it red?", {"k": 1}) == cache_key("Is  it red? ", {"k": 1})
    assert cache_key("Is it red?", {"k": 1}) != cache_key("Is it red?", {"k": 2})
    assert cache_key("Is it red?", {"k": 1}) != cache_key("Is it blue?", {"k": 1})


def test_values_persist_across_instances(tmp_path):
    path = tmp_path / "cache.sqlite"
    first = TranslationCache(path)
    first.put("a", {"program": "x"})
    first.put("a", {"program": "y"})
    first.close()
    second = TranslationCache(path)
    assert second.get("a") == {"program": "y"} and second.get("b") is None and len(second) == 1
