"""A program without the model: the bank's examples of the question's very form, with its words.

"What color is the cup on the table?" and the bank's "What color is the lamp on the desk?" have
the same form once ontology words are replaced by their roles (`what color is thing on thing`).
When the bank has examples of exactly that form, and each example's slot words appear as
arguments of its program, the question's program is the example's with those words swapped. The
examples of one form vote (by canonical form); the largest group wins. A form the bank lacks is
tried looser, in turn: with each attribute value standing for any category ("Is the cat black
and plastic?" from "Is the cup red and round?", the program's category going along), then with
each relation's words standing for any relation ("What is the man leaning on?" from "What is the
man sitting on?"). GQA's programs follow the question's word order, not the relation's meaning,
so a relation takes the place of another in the same program. Last, a group word is read as any
class ("Is the sign to the left of the building?"), and then one plain word the program cannot
read is left out ("Is the door placed to the left of the phone?"; never a wh-word, verb, negation,
quantifier, position, category or relation word: `_MEANINGFUL_WORDS`).

A filled program costs about a millisecond where the bundled model takes seconds, and on the
tuning part of the GQA split 98.4 % of filled programs were right (721 of 733); a question no
fill reaches goes to composition (`translators.rules.compositional_fill`), then to the model.

The form is stricter than the retrieval template (`translators.wording.templating`) on purpose: only
articles are dropped and "'s" after a wh-word or pronoun read as "is" ("What's the girl doing?"),
plural and singular class slots are one role (the program keeps the word as the question says it,
as GQA does), and a group word (`furniture`, `animal`) is a slot of its own, since "What kind of appliance is this?"
has the program of "What kind of animal is this?", not of "What kind of chair is this?".
"The number of" before a noun is a plain phrase (a count), not an object called a number.
A few wordings that never change a program are read as one (`translators.rules.plain_wording`):
"which" as "what", "type" as "kind", a demonstrative before a class as an article ("that table",
"these curtains"), "this" or "that" ending a question as "it", "do you think" before "is"/"are"
or after a wh-word, "located", "is it" after "or", "side" after "left" or "right", and "other"
between a relation and a class ("the bear on top of the other bear") as nothing. Words the
ontology lacks are read by what WordNet says they are (`translators.rules.open_words`); phrases
about the image itself, as the whole scene first (`translators.wording.question_text`).

Example:
    >>> from translators.examples.bank import legacy_bank
    >>> from translators.wording.ontology import bundled_ontology
    >>> filler = TemplateFiller(legacy_bank(), bundled_ontology())
    >>> filler.form("What's the color of the cups?")
    'what is color of thing'
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from theory.canonical import canonical
from theory.program import Program
from translators.examples.bank import Example, ExampleBank
from translators.rules import open_words, plain_wording
from translators.rules.form_index_file import form_index_path, read_rows, write_rows
from translators.rules.plain_wording import ARTICLES, DEMONSTRATIVES, GROUP_ROLE, plain_words, singular_verbs
from translators.rules.slot_swap import Slots, swap, swap_categories, swap_category_word
from translators.wording import grounded_words, question_text, templating
from translators.wording.ontology import Ontology
from translators.wording.question_frame import VERBS
from translators.wording.question_text import read_as_scene
from translators.wording.templating import role_spans, template_tokens

RELATION_ROLE = "relation"
_PLURAL_ROLE = {"things": "thing"}
# Examples of one form tried per question: enough for a vote, bounded for common forms.
MAX_VOTERS = 25
# Plain words a program always reads (`TemplateFiller._idle`), besides the frame's verbs and the
# words of categories.
_MEANINGFUL_WORDS = frozenset(
    """what which who whom whose where when why how not no nor never none nothing both either neither
    all any some every each other another same different more most less least fewer fewest than as or
    and but many much number kind type sort name there it its he she they them his her their you this
    that these those one ones only also too left right top bottom middle center front back side part
    picture image photo scene made""".split()
)
# "'s" after these words is "is" ("What's the girl doing?"); after a noun, a possessive ("the girl's
# hair"), kept as the word "s" (composition reads "the girl s hair" as the hair `of` the girl).
_APOSTROPHE_S = re.compile(r"\b([A-Za-z]+)['’]s\b")
_CONTRACTED = frozenset("what who where when why how which that it there here he she this let".split())
_POSITION_WORDS = frozenset({"part", "side"})  # after which/what: where in the image
# Changes whenever the rules above change what is filled, or what a fill records (28: the question's
# retrieval score), so stored translations are not reused.
FILL_RULES_VERSION = 28


@dataclass(frozen=True)
class FilledProgram:
    """A program filled from examples of the question's form; `votes` of `voters` examples agreed."""

    program: Program
    form: str
    examples: tuple[Example, ...]  # the agreeing examples, bank order
    votes: int
    voters: int

    @property
    def agreement(self) -> float:
        """The winning program's share of the examples that could be filled."""
        return self.votes / self.voters


class TemplateFiller:
    """The bank's examples indexed by form; `fill` swaps a question's words into them."""

    def __init__(
        self,
        bank: ExampleBank,
        ontology: Ontology,
        open_values: Callable[[str], bool] | None = None,
        open_classes: Callable[[str], bool] | None = None,
    ) -> None:
        self.bank = bank
        self.ontology = ontology
        # A question's word the ontology lacks that this says is a value ("comfortable"): read as a
        # value of no category, as GQA's programs read it (`filter_any`). The bank is read without it.
        self.open_values = open_values
        # Likewise a word this says names a thing ("weapon", "pastry"): read as a class.
        self.open_classes = open_classes
        self._groups = frozenset(ontology.groups)
        # The first word of every relation and each longer start of one ("standing", "standing_on").
        self._relation_heads = frozenset(
            "_".join(r.split("_")[:n]) for r in ontology.relations for n in range(1, len(r.split("_")) + 1)
        )
        self._group_plurals = {g + ("es" if g.endswith(("s", "x", "ch", "sh")) else "s"): g for g in ontology.groups}
        self._index: dict[str, list[tuple[Example, Slots]]] | None = None
        self._looser_indexes: dict[str, dict[str, list[tuple[Example, Slots]]]] = {}
        self._lock = threading.Lock()

    def raw_slots(self, question: str) -> list[tuple[str, str | None]]:
        """The question's roles in order, articles kept (`translators.rules.compositional_fill` reads
        them); a word `open_values` says is a value is one of no category, a word `open_classes` says
        names a thing is a class (`translators.rules.open_words`)."""
        raw = self._ontology_slots(question)
        if self.open_values is not None:
            raw = open_words.with_open_values(raw, self.open_values, self._unread)
        if self.open_classes is not None:
            raw = open_words.with_open_classes(raw, self.open_classes, self._unread)
        return raw

    def _unread(self, role: str, words: str | None) -> bool:
        """Whether a slot is a plain word no rule reads: no article, frame, relation or category word."""
        return (
            words is None
            and role.isalpha()
            and role not in ARTICLES
            and role not in self._meaningful_words
            and role not in self._relation_heads
            and role.replace(" ", "_") not in self._categories
        )

    def _ontology_slots(self, question: str) -> list[tuple[str, str | None]]:
        """`raw_slots` by the ontology alone (the bank's examples are read so)."""
        text = _APOSTROPHE_S.sub(
            lambda m: f"{m[1]} is" if m[1].lower() in _CONTRACTED else f"{m[1]} s", read_as_scene(question)
        )
        out: list[tuple[str, str | None]] = []
        for role, words in role_spans(template_tokens(text), self.ontology):
            if words is None and role in self._groups:
                out.append((GROUP_ROLE, role))
            elif words is None and role in self._group_plurals:
                # "animals" names the group as "animal" does; GQA's programs name the group a
                # question asks about ("What animals are grey?") in the singular, a group it
                # refers to ("the bowl near the vegetables") as said
                out.append((GROUP_ROLE, self._group_plurals[role] if open_words.asked(out) else role))
            elif words is None:
                out.append((role, None))
            else:
                out.append((_PLURAL_ROLE.get(role, role), "_".join(words)))
        return self._values_out_of_relations(_not_objects(out))

    def _values_out_of_relations(self, raw: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """A value that is also a relation's first word ("standing", "sitting") is a value where the
        next word does not go on with that relation: "Who is standing?" has the form of "Who is
        sitting?" (`who is pose`), while "Who is standing on the rug?" keeps `standing on`. A verb
        that is a relation of its own ("walking", "playing") is a value where no object follows."""
        out = list(raw)
        for index, (role, words) in enumerate(raw):
            if words is not None or role not in self._relation_heads:
                continue
            after = raw[index + 1] if index + 1 < len(raw) else None
            if role in self.ontology.relations and not (role.endswith("ing") and _ends_clause(after)):
                continue  # "on", "eating grass": a relation of its own, with its object
            category = self.ontology.category_of(role)
            following = after[0] if after is not None and after[1] is None else None
            if category is not None and f"{role}_{following}" not in self._relation_heads:
                out[index] = (category.replace("_", " "), role)
        return out

    def plain(self, raw: list[tuple[str, str | None]]) -> Slots:
        """Raw slots as forms compare them: articles dropped, interchangeable wordings read as one."""
        return plain_words([(role, words) for role, words in raw if words is not None or role not in ARTICLES])

    def slots(self, question: str) -> Slots:
        """The question's roles in order, each with the words it stands for."""
        return self.plain(self.raw_slots(question))

    def form(self, question: str) -> str:
        """The question's form: its roles joined by spaces (the index key)."""
        return " ".join(role for role, _ in self.slots(question))

    @property
    def index(self) -> dict[str, list[tuple[Example, Slots]]]:
        """Form -> the bank's examples of that form with their slots (built on first use, ~1.5 s per
        40,000; kept beside a bank read from a file and read back in a tenth of that)."""
        with self._lock:
            if self._index is None:
                stored = self._stored_path()
                rows = read_rows(stored, self.bank.content_digest()) if stored else None
                if rows is None:
                    rows = defaultdict(list)
                    for row, example in enumerate(self.bank):
                        slots = self.plain(self._ontology_slots(example.question))
                        rows[" ".join(role for role, _ in slots)].append((row, slots))
                    if stored:
                        write_rows(stored, self.bank.content_digest(), dict(rows))
                self._index = {form: [(self.bank[row], slots) for row, slots in found] for form, found in rows.items()}
            return self._index

    def warm_up(self) -> None:
        """Build the index and every looser one now, not on the first question that needs them: each
        reads the whole bank (a second or so)."""
        _ = self.by_verb_number, self.by_any_category, self.by_category_word, self.by_any_relation

    def _stored_path(self) -> Path | None:
        """Where the index of this bank, ontology and fill code is kept (None: a bank without a file)."""
        if self.bank.path is None:
            return None
        digest = hashlib.sha256(f"{self.ontology.digest()}|{FILL_RULES_VERSION}".encode())
        rules = (plain_wording, templating, question_text, grounded_words)
        for module in (__file__, *(str(rule.__file__) for rule in rules)):
            digest.update(Path(module).read_bytes())  # the rules themselves: a changed rule is a new index
        return form_index_path(self.bank.path, digest.hexdigest()[:12])

    def fill(
        self, question: str, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None:
        """The question's program from the examples of its form, or None when none can be filled;
        with `accept`, only the programs it accepts vote (the question's words and frame)."""
        return self.fill_slots(self.slots(question), exclude_ids, accept)

    def fill_slots(
        self, slots: Slots, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None:
        """`fill` for a question already read into slots: from the examples of its form, or else from
        those whose form differs only in its verbs' number (`singular_verbs`), in which attribute
        categories its values have (`any_category_form`),
        only in the relations it names (`with_relation_slots`), in its group words read as classes, or
        by one plain word the program cannot read (`_idle`), tried in that order."""
        form = " ".join(role for role, _ in slots)
        found = self._vote(form, self.index.get(form, ()), slots, exclude_ids, accept, swap)
        # Not from "Are there ...?" to "Is there ...?": GQA names the objects of a plural one in the
        # singular, which composition does; the other way, the question's words go in as said.
        singular = singular_verbs(slots)
        if found is None and not (singular != slots and slots[1:2] == (("there", None),)):
            form = " ".join(role for role, _ in singular)
            found = self._vote(
                f"any number: {form}", self.by_verb_number.get(form, ()), singular, exclude_ids, accept, swap
            )
        if found is None and (loose := self.any_category_form(slots)) is not None:
            recategorised = functools.partial(swap_categories, categories=self._categories)
            examples = self.by_any_category.get(loose, ())
            found = self._vote(f"any category: {loose}", examples, slots, exclude_ids, accept, recategorised)
        if found is None and (word_form := self.category_word_form(slots)) is not None:
            examples = self.by_category_word.get(word_form, ())
            found = self._vote(
                f"any category word: {word_form}", examples, slots, exclude_ids, accept, swap_category_word
            )
        if found is None and (related := self.with_relation_slots(slots)) != slots:
            form = " ".join(role for role, _ in related)
            examples = self.by_any_relation.get(form, ())
            found = self._vote(f"any relation: {form}", examples, related, exclude_ids, accept, swap)
        if found is None and any(role == GROUP_ROLE for role, _ in slots):
            # A group word as any other class ("Is the sign to the left of the building?").
            classes = tuple(("thing" if role == GROUP_ROLE else role, words) for role, words in slots)
            form = " ".join(role for role, _ in classes)
            found = self._vote(
                f"groups as classes: {form}", self.index.get(form, ()), classes, exclude_ids, accept, swap
            )
        in_relations = self._in_relations(slots) if found is None else set()
        for index in range(len(slots)) if found is None else ():
            if index not in in_relations and self._idle(slots, index):
                fewer = slots[:index] + slots[index + 1 :]
                form = " ".join(role for role, _ in fewer)
                found = self._vote(
                    f"without {slots[index][0]!r}: {form}", self.index.get(form, ()), fewer, exclude_ids, accept, swap
                )
                if found is not None:
                    break
        return found

    def _idle(self, slots: Slots, index: int) -> bool:
        """Whether the slot is a plain word that may say nothing the program reads ("Is the door
        placed to the left of the phone?"): no wh-word, verb of the frame, negation, quantifier,
        comparison, position or category word, and not the first word (the caller keeps the words of
        the relations the question names)."""
        role, words = slots[index]
        return index > 0 and words is None and role.isalpha() and role not in self._meaningful_words

    @functools.cached_property
    def _meaningful_words(self) -> frozenset[str]:
        named = {w for name in self.ontology.categories for w in name.split("_")}
        return frozenset(named | _MEANINGFUL_WORDS | VERBS | ARTICLES)

    def with_relation_slots(self, slots: Slots) -> Slots:
        """The slots with each run of plain words that names a relation (articles dropped: "to left
        of") as one slot of the role ``relation``, longest first."""
        out: list[tuple[str, str | None]] = []
        index = 0
        for start, end, relation in self._relation_runs(slots):
            out += slots[index:start]
            out.append((RELATION_ROLE, relation))
            index = end
        return tuple(out + list(slots[index:]))

    def _relation_runs(self, slots: Slots) -> list[tuple[int, int, str]]:
        """(start, end, relation) of each run of plain words that names a relation, longest first."""
        runs = []
        index = 0
        while index < len(slots):
            for width in range(min(self._longest_relation, len(slots) - index), 0, -1):
                run = slots[index : index + width]
                relation = self._relation_words.get(tuple(role for role, _ in run))
                if relation is not None and all(words is None for _, words in run):
                    runs.append((index, index + width, relation))
                    index += width
                    break
            else:
                index += 1
        return runs

    def _in_relations(self, slots: Slots) -> set[int]:
        return {i for start, end, _ in self._relation_runs(slots) for i in range(start, end)}

    @functools.cached_property
    def _relation_words(self) -> dict[tuple[str, ...], str]:
        """A relation's words as forms keep them (articles dropped) -> the relation."""
        found: dict[tuple[str, ...], str] = {}
        for relation in self.ontology.relations:
            words = tuple(w for w in relation.split("_") if w not in ARTICLES)
            if words:
                found.setdefault(words, relation)
        return found

    @functools.cached_property
    def _longest_relation(self) -> int:
        return max((len(words) for words in self._relation_words), default=0)

    @property
    def by_any_relation(self) -> dict[str, list[tuple[Example, Slots]]]:
        """The form of `with_relation_slots` -> the bank's examples of that form with those slots."""

        def keyed(slots: Slots) -> tuple[str, Slots] | None:
            related = self.with_relation_slots(slots)
            return (" ".join(role for role, _ in related), related) if related != slots else None

        return self._looser("relation", keyed)

    def any_category_form(self, slots: Slots) -> str | None:
        """The form with each attribute value's role read as the place of its category among the
        question's categories (``is thing value1 and value2``), or None for a question without values."""
        labels: dict[str, str] = {}
        roles = []
        for index, (role, words) in enumerate(slots):
            if words is not None and role.replace(" ", "_") in self._categories:
                roles.append(labels.setdefault(role, f"value{len(labels) + 1}"))
            elif words is None and index and slots[index - 1] == (role, slots[index - 1][1]) and role in labels:
                roles.append(f"{labels[role]}-category")  # "have large size" as "have red color"
            else:
                roles.append(role)
        return " ".join(roles) if labels else None

    def category_word_form(self, slots: Slots) -> str | None:
        """The form with the one category the question names by its word read as any category
        ("what category-word is thing"), or None: for a question that names no category, several,
        or says a value of one (a value ties the program to its category)."""
        said = {role for role, words in slots if words is None and role.replace(" ", "_") in self._categories}
        valued = any(words is not None and role.replace(" ", "_") in self._categories for role, words in slots)
        if len(said) != 1 or valued:
            return None
        return " ".join("category-word" if role in said and words is None else role for role, words in slots)

    @property
    def by_category_word(self) -> dict[str, list[tuple[Example, Slots]]]:
        """The bank's examples by `category_word_form`."""
        return self._looser_form("category word", self.category_word_form)

    @functools.cached_property
    def _categories(self) -> frozenset[str]:
        return frozenset(self.ontology.categories)

    @property
    def by_any_category(self) -> dict[str, list[tuple[Example, Slots]]]:
        """`any_category_form` -> the bank's examples of that form (built on first use from `index`)."""
        return self._looser_form("category", self.any_category_form)

    def _looser_form(self, name: str, form_of: Callable[[Slots], str | None]) -> dict[str, list[tuple[Example, Slots]]]:
        """`_looser` by a looser form of an example's own slots (`form_of`: None leaves it out)."""

        def keyed(slots: Slots) -> tuple[str, Slots] | None:
            form = form_of(slots)
            return (form, slots) if form is not None else None

        return self._looser(name, keyed)

    @property
    def by_verb_number(self) -> dict[str, list[tuple[Example, Slots]]]:
        """The bank's examples by their form with every verb singular (`singular_verbs`)."""

        def keyed(slots: Slots) -> tuple[str, Slots]:
            singular = singular_verbs(slots)
            return " ".join(role for role, _ in singular), singular

        return self._looser("number", keyed)

    def _looser(
        self, name: str, keyed: Callable[[Slots], tuple[str, Slots] | None]
    ) -> dict[str, list[tuple[Example, Slots]]]:
        """The bank's examples by a looser form (`keyed`: an example's slots -> that form and the slots
        a fill reads, or None), built once from `index` and kept under `name`."""
        index = self.index
        with self._lock:
            found = self._looser_indexes.get(name)
            if found is None:
                grouped: dict[str, list[tuple[Example, Slots]]] = defaultdict(list)
                for rows in index.values():
                    for example, slots in rows:
                        if (looser := keyed(slots)) is not None:
                            grouped[looser[0]].append((example, looser[1]))
                found = self._looser_indexes[name] = dict(grouped)
            return found

    def _vote(
        self,
        form: str,
        examples: Collection[tuple[Example, Slots]],
        slots: Slots,
        exclude_ids: Collection[str],
        accept: Callable[[Program], bool] | None,
        swap: Callable[[Program, Slots, Slots], Program | None],
    ) -> FilledProgram | None:
        """The program most of `examples` fill for `slots` (see `fill`)."""
        excluded = set(exclude_ids)
        filled: list[tuple[Example, Program]] = []
        for example, example_slots in examples:
            if example.id in excluded or excluded & example.equivalent:
                continue
            program = swap(example.program, example_slots, slots)
            if program is not None and (accept is None or accept(program)):
                filled.append((example, program))
                if len(filled) == MAX_VOTERS:
                    break
        if not filled:
            return None
        keys = [canonical(program) for _, program in filled]
        # Counter keeps first-seen order among equal counts, so a tie goes to the bank's earlier example.
        winner, votes = Counter(keys).most_common(1)[0]
        chosen = [(e, p) for (e, p), key in zip(filled, keys) if key == winner]
        return FilledProgram(chosen[0][1], form, tuple(e for e, _ in chosen), votes, len(filled))


_FILLERS: dict[tuple[int, int, Callable[[str], bool] | None, Callable[[str], bool] | None], TemplateFiller] = {}
_FILLERS_LOCK = threading.Lock()


def filler_for(
    bank: ExampleBank,
    ontology: Ontology,
    open_values: Callable[[str], bool] | None = None,
    open_classes: Callable[[str], bool] | None = None,
) -> TemplateFiller:
    """One filler (and one index) per bank, ontology object and readers of open words, shared by the
    translators that use them."""
    with _FILLERS_LOCK:
        key = id(bank), id(ontology), open_values, open_classes
        found = _FILLERS.get(key)
        if found is None or found.bank is not bank or found.ontology is not ontology:
            found = _FILLERS[key] = TemplateFiller(bank, ontology, open_values, open_classes)
        return found


def _not_objects(raw: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """ "the number of dogs" asks for a count, not about an object called a number, and "which part
    (side) is the dog in" asks for a position, not about a part: plain words there."""
    return [
        (str(slot[1]), None)
        if (slot[1] == "number" and raw[index + 1 : index + 2] == [("of", None)])
        or (slot[1] in _POSITION_WORDS and index and raw[index - 1] in (("which", None), ("what", None)))
        else slot
        for index, slot in enumerate(raw)
    ]


def _ends_clause(after: tuple[str, str | None] | None) -> bool:
    """Whether what follows a verb leaves it without an object (the end, or a plain word that is no article)."""
    return after is None or (after[1] is None and after[0] not in ARTICLES and after[0] not in DEMONSTRATIVES)
