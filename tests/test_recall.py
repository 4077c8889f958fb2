"""History recall on a real SQLite store: the session order (neighbour text and smoothing), the
named-person and time-question boosts, governance, and the persisted message index."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from conftest import raw_connect

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval import cues
from bestie_tui.retrieval.recall import Knobs, recall
from bestie_tui.store.memory_store import MemoryStore

pytestmark = pytest.mark.both_engines
START = datetime(2026, 5, 8, 13, 0)


def chat(store, session, turns, *, user="linh", channel=None, start=START):
    """Log ``turns`` (``(text, role)`` or text) into ``session``, one minute apart; returns the ids."""
    ids = []
    for n, turn in enumerate(turns):
        text, role = (turn, "user") if isinstance(turn, str) else turn
        ids.append(store.log_message(role, text, user=user, channel=channel, session=session,
                                     at=start + timedelta(minutes=n)).id)
    return ids


def test_a_short_reply_is_found_by_the_topic_of_the_turn_before_it(store):
    ids = chat(store, "s1", ["Linh: I signed up for contemporary dance classes at the studio",
                             "Minh: Yeah, me too! It starts next week.",
                             "Linh: Great, see you there."])
    chat(store, "s2", ["Linh: The printer at work is broken again", "Minh: Call the help desk"])
    hits = recall(store, "contemporary dance", "linh", limit=3)
    assert [h.message.id for h in hits][:2] == ids[:2]
    reply = next(h for h in hits if h.message.id == ids[1])
    assert reply.parts["neighbour"] > 0  # lifted by the turn it answers
    assert [m.id for m in reply.before] == [ids[0]] and [m.id for m in reply.after] == [ids[2]]
    assert "printer" not in " ".join(h.message.text for h in hits)


def test_the_person_the_request_names_is_boosted(store):
    chat(store, "s1", ["Caroline: I went hiking in the mountains with friends",
                       "Melanie: Nice, I went hiking in the mountains too"])
    hits = recall(store, "Where did Melanie go hiking?", "linh", limit=2)
    assert hits[0].message.text.startswith("Melanie:")
    assert hits[0].parts["person"] > 0 and hits[1].parts["person"] == 0
    # two people named: nobody is boosted
    both = recall(store, "Did Caroline and Melanie go hiking?", "linh", limit=2)
    assert all(h.parts["person"] == 0 for h in both)


@pytest.mark.parametrize("question", ["When did I visit the lake?", "Tôi đi hồ khi nào?", "toi di ho bao lau"])
def test_a_time_question_prefers_turns_that_say_when(store, question):
    chat(store, "s1", ["I visited the lake with my sister", "Tôi đi hồ với chị"])
    chat(store, "s2", ["I visited the lake last Saturday", "Tôi đi hồ hôm qua"])
    hits = recall(store, question, "linh", limit=4)
    first = hits[0]
    assert cues.has_time_expression(first.message.text) and first.parts["time"] > 0


def test_cue_words():
    assert cues.is_time_question("How long have you lived here?")
    assert cues.is_time_question("Anh chuyển nhà từ bao giờ?")
    assert not cues.is_time_question("What do you like to eat?")
    assert cues.has_time_expression("two years ago") and cues.has_time_expression("năm ngoái tôi ở Huế")
    assert not cues.has_time_expression("I like tea")
    assert cues.speaker_of("Caroline: hi there") == "Caroline"
    assert cues.speaker_of("note: lowercase labels are not names") is None
    assert cues.named_people("what did caroline say", {"Caroline", "Melanie"}) == {"Caroline"}


def test_governance_never_reaches_another_users_or_another_channels_turns(store):
    mine = chat(store, "s1", ["my passport number renewal is due"], channel="telegram:1")
    chat(store, "s2", ["passport renewal for someone else"], user="other")
    chat(store, "s3", ["passport renewal on another channel"], channel="zalo:9")
    assert [h.message.id for h in recall(store, "passport renewal", "linh", channel="telegram:1")] == mine
    store.set_setting("memory.governance", "full")
    found = {h.message.text for h in recall(store, "passport renewal", "linh", channel="telegram:1")}
    assert found == {"my passport number renewal is due", "passport renewal on another channel"}
    assert recall(store, "passport renewal", None) == []  # no user reaches only unbound turns: none here


def test_filters_exclude_and_bad_input(store):
    ids = chat(store, "s1", [("the garden needs water", "user"), ("I will water the garden", "assistant")])
    other = chat(store, "s2", ["water the garden tomorrow"])
    assert {h.message.id for h in recall(store, "garden water", "linh", role="assistant")} == {ids[1]}
    assert {h.message.id for h in recall(store, "garden water", "linh", session="s2")} == set(other)
    assert ids[0] not in {h.message.id for h in recall(store, "garden water", "linh", exclude=ids[:1])}
    assert recall(store, "   ", "linh") == [] and recall(store, "garden", "linh", limit=0) == []
    with pytest.raises(InvalidValueError):
        recall(store, "garden", "linh", role="robot")


def test_recency_and_the_knobs_are_settings(store, clock):
    chat(store, "old", ["we talked about the budget"], start=clock.now - timedelta(days=400))
    new = chat(store, "new", ["we talked about the budget"], start=clock.now - timedelta(days=1))
    store.set_setting("recall.recency", 0.05)
    assert Knobs.of(store).recency == 0.05
    hits = recall(store, "budget", "linh")
    assert hits[0].message.id == new[0] and hits[0].parts["recency"] > hits[1].parts["recency"]
    with pytest.raises(InvalidValueError):
        store.set_setting("recall.neighbour", -1)


def test_the_message_index_is_persisted_and_follows_appends(store, db_path):
    ids = chat(store, "s1", ["Linh: what should we cook tonight?"])
    assert recall(store, "cook", "linh")
    conn = raw_connect(db_path)
    assert conn.execute("SELECT docs FROM ix_meta WHERE collection = 'message'").fetchone() == (1,)
    later = chat(store, "s1", ["Minh: pho, obviously"], start=START + timedelta(minutes=5))
    hits = recall(store, "pho", "linh")
    assert [h.message.id for h in hits][:2] == [later[0], ids[0]]  # the question now carries its answer's text
    # each turn's text is stored once: its neighbours' are added when a query scores it
    indexed = dict(conn.execute("SELECT doc_id, text FROM ix_doc WHERE collection = 'message'").fetchall())
    assert indexed == {ids[0]: "Linh: what should we cook tonight?", later[0]: "Minh: pho, obviously"}
    conn.close()
    # a new process answers from the stored index: it does not rebuild it
    code = ("import sys; from bestie_tui.store.memory_store import MemoryStore; "
            "from bestie_tui.retrieval.recall import recall; from bestie_tui.retrieval.index import get_index; "
            "s = MemoryStore(sys.argv[1]); print(len(recall(s, 'pho', 'linh')), get_index(s, 'message').stats.fits)")
    out = subprocess.run([sys.executable, "-c", code, str(db_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2", "0"]


def test_erasing_a_user_takes_their_turns_out_of_the_message_index(store, db_path):
    from bestie_tui.transfer.erase import erase_user

    chat(store, "s1", ["my secret garden plan"])
    assert recall(store, "garden", "linh")
    erase_user(store, "linh")
    conn = raw_connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM ix_doc WHERE collection = 'message'").fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM ix_term WHERE collection = 'message'").fetchone() == (0,)
    conn.close()


def test_an_embedder_can_be_fused_through_the_seam(store):
    ids = chat(store, "s1", ["the red bicycle is in the shed", "the blue bicycle is at the office"])
    hits = recall(store, "bicycle", "linh", dense=lambda q, texts: [1.0 if "blue" in t else 0.0 for t in texts])
    assert hits[0].message.id == ids[1]


def test_a_store_reopened_keeps_its_message_index(db_path, clock):
    s = MemoryStore(db_path, clock=clock)
    chat(s, "s1", ["lunch with the design team"])
    assert recall(s, "design lunch", "linh")
    s.close()
    again = MemoryStore(db_path, clock=clock)
    assert recall(again, "design lunch", "linh")[0].message.text == "lunch with the design team"
    again.close()


def test_undoing_an_import_takes_its_turns_out_of_their_neighbours_indexed_text(store, db_path):
    from bestie_tui.store.history.undo import undo_last
    from bestie_tui.transfer.exchange import FORMAT, VERSION, import_data

    before = chat(store, "s1", ["Linh: we planned the kayak trip"])
    at = (START + timedelta(minutes=1)).isoformat()
    import_data(store, {"format": FORMAT, "version": VERSION, "memories": [], "messages": [
        {"role": "user", "text": "Minh: the river was freezing", "user": "linh", "session": "s1", "created_at": at}]})
    assert [h.message.id for h in recall(store, "freezing river", "linh")][1:] == before  # lifted by the import
    undo_last(store, "owner")
    assert recall(store, "freezing river", "linh") == []
    conn = raw_connect(db_path)
    indexed = dict(conn.execute("SELECT doc_id, text FROM ix_doc WHERE collection = 'message'").fetchall())
    conn.close()
    assert indexed == {before[0]: "Linh: we planned the kayak trip"}
