"""WordNet 3.0 through NLTK, offline.

Where the database comes from, first match wins:

1. a folder given to :func:`load_wordnet`, or the setting ``ASPVQA_WORDNET_DIR`` (handed over
   once by the settings, :func:`use_wordnet_dir`): an NLTK ``corpora/wordnet`` folder or a bare
   WordNet ``dict`` folder;
2. an NLTK data folder that already holds ``corpora/wordnet`` (``nltk.download("wordnet")``);
3. Debian's ``wordnet-base`` + ``wordnet-sense-index`` in ``/usr/share/wordnet``.

NLTK's reader needs a ``lexnames`` file that Debian does not ship and refuses symlinks that leave
its data root, so a folder without ``lexnames`` is copied, with the standard file list added,
into ``$ASPVQA_CACHE_DIR`` (default ``$XDG_CACHE_HOME/aspvqa``, else ``~/.cache/aspvqa``).

Example:
    >>> wn = load_wordnet()
    >>> sorted(s.name() for s in wn.synset("dog.n.01").hypernyms())
    ['canine.n.02', 'domestic_animal.n.01']
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from scene.errors import SceneError
from theory.cache import cache_dir
from theory.errors import ModelNotAvailableError

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

DEBIAN_DIR = Path("/usr/share/wordnet")
ENV_DIR = "ASPVQA_WORDNET_DIR"  # the setting's name, for messages

# The files NLTK's reader opens (WordNetCorpusReader._FILES), lexnames aside.
_DATABASE_FILES = (
    "cntlist.rev",
    "index.sense",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)
_REQUIRED = ("index.noun", "data.noun")

# The WordNet 3.0 lexicographer files (lexnames(5WN)): number, name, syntactic category.
_LEXNAMES = (
    "adj.all 3", "adj.pert 3", "adv.all 4", "noun.Tops 1", "noun.act 1", "noun.animal 1",
    "noun.artifact 1", "noun.attribute 1", "noun.body 1", "noun.cognition 1",
    "noun.communication 1", "noun.event 1", "noun.feeling 1", "noun.food 1", "noun.group 1",
    "noun.location 1", "noun.motive 1", "noun.object 1", "noun.person 1", "noun.phenomenon 1",
    "noun.plant 1", "noun.possession 1", "noun.process 1", "noun.quantity 1", "noun.relation 1",
    "noun.shape 1", "noun.state 1", "noun.substance 1", "noun.time 1", "verb.body 2",
    "verb.change 2", "verb.cognition 2", "verb.communication 2", "verb.competition 2",
    "verb.consumption 2", "verb.contact 2", "verb.creation 2", "verb.emotion 2", "verb.motion 2",
    "verb.perception 2", "verb.possession 2", "verb.social 2", "verb.stative 2", "verb.weather 2",
    "adj.ppl 3",
)  # fmt: skip

_FIX = (
    "install it with `make wordnet` (Debian packages wordnet-base and wordnet-sense-index), "
    f"or run `python -m nltk.downloader wordnet`, or set {ENV_DIR} to a WordNet 3.0 dict folder"
)


class WordNetUnavailable(ModelNotAvailableError, SceneError):
    """WordNet could not be found or read; the message names the fix."""


def lexnames_text() -> str:
    """The standard WordNet 3.0 ``lexnames`` file (45 lines)."""
    return "".join(f"{i:02d}\t{name}\t{pos}\n" for i, (name, pos) in enumerate(e.split() for e in _LEXNAMES))


def _is_database(folder: Path) -> bool:
    return folder.is_dir() and all((folder / name).is_file() for name in _REQUIRED)


def _nltk_folder(source: Path) -> Path:
    """`source` itself when NLTK can read it, else a copy with ``lexnames`` in the cache."""
    if (source / "lexnames").is_file():
        return source
    key = hashlib.sha1(str(source.resolve()).encode()).hexdigest()[:12]
    target = cache_dir() / f"nltk_data-{key}" / "corpora" / "wordnet"
    if (target / "lexnames").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Copy into a private folder and rename it into place, so concurrent processes never see
    # a half-written database.
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
    try:
        for name in _DATABASE_FILES:
            if (source / name).is_file():
                shutil.copyfile(source / name, staging / name)
        (staging / "lexnames").write_text(lexnames_text(), encoding="ascii")
        try:
            staging.rename(target)
        except OSError:
            if not (target / "lexnames").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _nltk_data_wordnet() -> Path | None:
    import nltk.data

    for root in nltk.data.path:
        folder = Path(root) / "corpora" / "wordnet"
        if _is_database(folder):
            return folder
    return None


_chosen: Path | None = None


def use_wordnet_dir(path: str | Path | None) -> None:
    """The WordNet folder of the settings (None: look in NLTK's data folders, then Debian's)."""
    global _chosen
    _chosen = Path(path) if path else None


def chosen_wordnet_dir() -> Path | None:
    """The folder set with `use_wordnet_dir`."""
    return _chosen


def find_wordnet(path: str | Path | None = None) -> Path:
    """The folder NLTK will read WordNet from; raises :class:`WordNetUnavailable` when none exists."""
    configured = path if path is not None else _chosen
    if configured is not None:
        folder = Path(configured)
        if not _is_database(folder):
            raise WordNetUnavailable(f"no WordNet database (index.noun, data.noun) in {folder}; {_FIX}")
        return _nltk_folder(folder)
    found = _nltk_data_wordnet()
    if found is not None:
        return _nltk_folder(found)
    if _is_database(DEBIAN_DIR):
        return _nltk_folder(DEBIAN_DIR)
    raise WordNetUnavailable(f"WordNet 3.0 not found; {_FIX}")


def _authorise(folder: Path) -> None:
    """Let NLTK read `folder`: its reader refuses paths outside the NLTK data roots."""
    import nltk.data

    root = folder.parent.parent if folder.parent.name == "corpora" else folder
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))


@lru_cache(maxsize=1)
def _reader_class() -> type:
    # NLTK (and the SciPy it pulls in) costs about a second to import: only when WordNet is read.
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):
        """NLTK's reader without the WordNet-version map, which serves only the multilingual data
        (not loaded here) and would look for a second copy of WordNet on NLTK's data path."""

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    return EnglishWordNet


_lock = threading.Lock()
_readers: dict[str, WordNetCorpusReader] = {}
# Held around every read of a shared reader: NLTK's reader seeks and reads shared file objects, so
# two threads can get each other's lines (an AssertionError in synset_from_pos_and_offset, nltk
# issue 2335). Reentrant, because a lookup may call another.
READER_LOCK = threading.RLock()


def load_wordnet(path: str | Path | None = None) -> WordNetCorpusReader:
    """The WordNet reader, loaded once per folder (thread-safe)."""
    folder = str(find_wordnet(path))
    reader = _readers.get(folder)
    if reader is not None:
        return reader
    with _lock:
        if folder not in _readers:
            _authorise(Path(folder))
            with warnings.catch_warnings():
                # Without the Open Multilingual WordNet NLTK warns; English is all we use.
                warnings.simplefilter("ignore")
                try:
                    _readers[folder] = _reader_class()(folder, None)
                except (OSError, ValueError, AssertionError) as exc:
                    raise WordNetUnavailable(f"cannot read WordNet from {folder}: {exc}; {_FIX}") from exc
        return _readers[folder]


def lemma_key(word: str) -> str:
    """A word or phrase as WordNet spells lemmas: lower case, spaces to underscores."""
    return "_".join(word.strip().lower().split())


def wordnet_available(path: str | Path | None = None) -> bool:
    """Whether :func:`load_wordnet` would succeed."""
    try:
        load_wordnet(path)
    except WordNetUnavailable:
        return False
    return True
