"""Someone else's words and venting read by the shape of the clause (issue 30, items 3 and 4).

A statement reports someone else's words wherever its reporting verb sits and whatever opens it
("Yesterday my friend…", "At dinner my sister said…", "…, my colleague said", "Theo mẹ tôi…"), in
English and Vietnamese with or without diacritics; a third-person sentence naming the bound owner's
own name is the owner's. Venting is a passing mood said with force, a judgement of oneself as a whole
person, or despair about one's own life — not a skill one lacks, a habit when sad, or a dislike."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.errors import WriteRefusedError

THIRD_PARTY = [
    ("Yesterday my cousin Quang said he can't stand seafood", "Quang"),
    ("At lunch my manager said she prefers written updates", "my manager"),
    ("Last weekend, my roommate told me he is vegetarian now", "my roommate"),
    ("On the way home my dad mentioned he hates traffic jams", "my dad"),
    ("Jazz is boring, my coworker Linh says", "Linh"),
    ("According to my grandma, she loves lotus tea", "my grandma"),
    ("Hôm qua em trai tôi bảo nó không ăn hành", "em trai tôi"),
    ("Hom qua em trai toi bao no khong an hanh", "em trai toi"),
    ("Tối qua ở nhà hàng, chị gái tôi nói chị ấy ghét sầu riêng", "chị gái tôi"),
    ("Theo bố tôi thì ông thích câu cá", "bố tôi"),
]
OWN = [
    "Yesterday I said I want to learn piano",
    "At work I drink oolong tea",
    "I told my sister I hate durian",
    "Last week I moved to Da Nang",
    "Hôm qua tôi nói với mẹ là tôi thích mèo",
]


@pytest.mark.parametrize("text, who", THIRD_PARTY)
def test_a_reported_clause_is_about_its_speaker_on_every_path(store, text, who):
    proposed = store.propose(text, "preference", user="an", scope="core")
    assert proposed.memory.about == who and proposed.memory.layer == "working"
    with pytest.raises(WriteRefusedError, match="not the owner"):
        store.add("preference", text, user="an", scope="core")
    assert store.add("preference", text, user="an").about == who


@pytest.mark.parametrize("text", OWN)
def test_the_owners_own_clause_stays_the_owners(store, text):
    assert store.add("preference", text, user="an").about is None


def test_a_third_person_sentence_naming_the_owners_own_name_is_the_owners(store):
    store.add("fact", "My name is Alice", user="A")
    assert store.add("preference", "Alice likes durian", user="A", scope="core").about is None
    assert store.add("preference", "Yesterday Alice said she prefers green tea", user="A").about is None
    assert store.add("preference", "Bob likes durian", user="A").about == "Bob"
    store.add("fact", "Tên tôi là Lan", user="L")
    assert store.add("preference", "Lan thích cà phê sữa", user="L", scope="core").about is None


def test_the_mcp_style_propose_on_the_cli_keeps_a_reported_clause_out_of_core(tmp_path):
    db = str(tmp_path / "m.db")
    result = CliRunner().invoke(cli, ["--db", db, "memory", "propose", "preference",
                                      "At dinner my sister said she hates durian", "--user", "an", "--scope", "core",
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert '"about": "my sister"' in result.output and '"layer": "working"' in result.output


VENTING = [
    "chán đời quá, tôi đúng là đồ bỏ đi",
    "chan doi qua, toi dung la do bo di",
    "mệt mỏi với mọi thứ, mình chẳng ra gì",
    "sao mình ngu thế không biết",
    "I feel like a complete failure today",
    "why am I always so dumb",
    "I'm so drained right now",
    "nothing ever goes right for me",
    "everything I touch fails",
    "em đúng là đồ vô tích sự",
    "buồn quá đi, chả muốn làm gì nữa",
]
KEPT = [
    "I'm hopeless at drawing but I enjoy it",
    "mình kém môn hóa lắm",
    "I eat chocolate when I'm sad",
    "I'm tired of pop music, I prefer jazz now",
    "I hate raw onions",
    "I am often tired after night shifts",
    "Tôi hay nghe nhạc khi buồn",
    "I met the team in Hue",
]


@pytest.mark.parametrize("text", VENTING)
def test_venting_is_refused_as_a_clause_shape(store, text):
    with pytest.raises(WriteRefusedError, match="venting"):
        store.propose(text, "preference", user="an")
    with pytest.raises(WriteRefusedError, match="keep-venting"):
        store.add("preference", text, user="an")


@pytest.mark.parametrize("text", KEPT)
def test_lasting_facts_in_the_same_words_are_kept(store, text):
    assert store.add("preference", text, user="an").text == text
