"""WordNet loading: from a Debian-style folder (lexnames added in the cache), errors that name the fix."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.config import load_settings
from scene import wordnet
from scene.wordnet import WordNetUnavailable, find_wordnet, lemma_key, lexnames_text, load_wordnet, use_wordnet_dir
from theory.cache import use_cache_dir

DEBIAN = Path("/usr/share/wordnet")
needs_debian = pytest.mark.skipif(
    not (DEBIAN / "data.noun").is_file(), reason="Debian WordNet (wordnet-base) not installed: run `make wordnet`"
)


def test_lexnames_is_the_standard_wordnet_30_list():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"
    assert [int(line.split("\t")[0]) for line in lines] == list(range(45))
    assert {line.split("\t")[2] for line in lines} == {"1", "2", "3", "4"}


def test_lemma_key_joins_words_with_underscores():
    assert lemma_key("  Tennis   Racket ") == "tennis_racket"
    assert lemma_key("t-shirt") == "t-shirt"


def test_missing_configured_folder_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(wordnet.ENV_DIR, str(tmp_path))
    load_settings()
    with pytest.raises(WordNetUnavailable) as info:
        find_wordnet()
    message = str(info.value)
    assert str(tmp_path) in message and "make wordnet" in message and "ASPVQA_WORDNET_DIR" in message


def test_no_wordnet_anywhere_says_how_to_install(tmp_path, monkeypatch):
    import nltk.data

    use_wordnet_dir(None)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setattr(wordnet, "DEBIAN_DIR", tmp_path / "absent")
    with pytest.raises(WordNetUnavailable, match="nltk.downloader wordnet"):
        find_wordnet()


@needs_debian
def test_debian_folder_with_symlinks_is_copied_with_lexnames(tmp_path, monkeypatch):
    # A dict folder of symlinks (no lexnames): NLTK would refuse both; the copy in the cache works.
    source = tmp_path / "dict"
    source.mkdir()
    for file in DEBIAN.iterdir():
        if file.is_file():
            (source / file.name).symlink_to(file)
    use_cache_dir(tmp_path / "cache")
    folder = find_wordnet(source)
    assert folder.is_relative_to(tmp_path / "cache")
    assert (folder / "lexnames").read_text() == lexnames_text()
    assert not (folder / "data.noun").is_symlink()
    reader = load_wordnet(source)
    assert {s.name() for s in reader.synset("dog.n.01").hypernyms()} == {"canine.n.02", "domestic_animal.n.01"}
    assert reader.synset("dog.n.01").lexname() == "noun.animal"
    assert find_wordnet(source) == folder  # the copy is reused


@needs_debian
def test_environment_variable_selects_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ASPVQA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(wordnet.ENV_DIR, str(DEBIAN))
    load_settings()
    assert find_wordnet().is_relative_to(tmp_path / "cache")


@needs_debian
def test_loading_is_once_and_thread_safe():
    results = []
    threads = [threading.Thread(target=lambda: results.append(load_wordnet())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r is results[0] for r in results)
    assert load_wordnet() is results[0]
