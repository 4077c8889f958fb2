"""Resolving a related pair (issue 28): keep both (remembered, never asked again), merge, the newer
replaces the older, keep the older — each one undoable event batch, through the store and through
``bestie memory resolve OLDER NEWER``."""

from __future__ import annotations

import json

import pytest

from bestie_tui.errors import InvalidValueError, NotFoundError, PolicyError
from bestie_tui.hygiene.resolve import resolve_pair
from bestie_tui.store.history.pair_decisions import KEEP_BOTH, kept_pairs, pair_note, parse_pair_note
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.store.models import Event

pytestmark = pytest.mark.both_engines


def _pair(store, user: str | None = "mai"):
    older = store.add("note", "Mai grows tomatoes on her balcony", user=user)
    newer = store.add("note", "Mai started a herb box beside the tomatoes", user=user)
    return older.id, newer.id


def _events(store) -> int:
    return Event.select().count()


# ---------------------------------------------------------------- the store


def test_keep_both_records_one_event_and_leaves_both_memories_as_they_were(store):
    older, newer = _pair(store)
    before = (store.get(older), store.get(newer))
    store.keep_both(older, newer)
    assert kept_pairs(store) == {frozenset((older, newer))}
    assert (store.get(older), store.get(newer)) == before
    event = store.history(limit=1)[0]
    assert (event.action, event.memory_id, event.actor) == (KEEP_BOTH, newer, "owner")
    assert event.before == event.after and event.before["id"] == newer
    assert parse_pair_note(event.note) == frozenset((older, newer))


def test_a_pair_kept_again_in_either_order_writes_nothing(store):
    older, newer = _pair(store)
    store.keep_both(older, newer)
    count = _events(store)
    store.keep_both(newer, older)
    assert _events(store) == count and kept_pairs(store) == {frozenset((older, newer))}


def test_undo_forgets_the_pair_names_both_and_changes_neither_memory(store):
    older, newer = _pair(store)
    before = (store.get(older), store.get(newer))
    store.keep_both(older, newer)
    result = store.undo()
    assert result.action == KEEP_BOTH and result.memory_ids == [older, newer]
    assert result.message == f"undid keep_both by owner on #{older}, #{newer}"
    assert kept_pairs(store) == set()
    assert (store.get(older), store.get(newer)) == before


@pytest.mark.parametrize("case", ["unknown", "same", "two users", "pending", "superseded"])
def test_a_pair_that_is_not_two_active_memories_of_one_user_is_refused_and_nothing_written(store, case):
    older, newer = _pair(store)
    other = store.add("note", "Quan repairs old radios", user="quan").id
    waiting = store.propose("Mai prefers trains to planes", user="mai").memory.id
    replaced = store.add("note", "Mai lived near the river", user="mai").id
    store.supersede(replaced, newer)
    ids = {"unknown": (older, 404), "same": (older, older), "two users": (older, other),
           "pending": (older, waiting), "superseded": (replaced, older)}[case]
    count = _events(store)
    with pytest.raises(NotFoundError if case == "unknown" else InvalidValueError) as refused:
        store.keep_both(*ids)
    assert "\n" not in str(refused.value)
    assert _events(store) == count and kept_pairs(store) == set()


def test_kept_pairs_per_user_and_under_a_store_bound_to_a_user(store):
    mai = _pair(store)
    quan = (store.add("note", "Quan repairs old radios", user="quan").id,
            store.add("note", "Quan sells the radios he repairs", user="quan").id)
    store.keep_both(*mai)
    store.keep_both(*quan)
    assert kept_pairs(store) == {frozenset(mai), frozenset(quan)}
    assert kept_pairs(store, "mai") == {frozenset(mai)}
    assert kept_pairs(store, "nobody") == set()
    bound = store.for_user("quan")
    try:
        assert kept_pairs(bound) == {frozenset(quan)}
        with pytest.raises(InvalidValueError):
            kept_pairs(bound, "mai")
        with pytest.raises(NotFoundError):  # another user's memories are not there for it
            bound.keep_both(*mai)
    finally:
        bound.close()


def test_the_note_reads_back_and_other_notes_are_no_pair():
    assert parse_pair_note(pair_note(12, 5)) == frozenset((5, 12))
    for note in (None, "", "text purged", "kept both #3 and #3", "kept both #3"):
        assert parse_pair_note(note) is None


def test_resolve_newer_older_and_merge_through_the_core(store):
    older, newer = _pair(store)
    done = resolve_pair(store, older, newer, "newer")
    assert (done.active, done.superseded) == ((newer,), (older,))
    assert store.get(older).superseded_by == newer
    store.undo()
    done = resolve_pair(store, older, newer, "older")
    assert store.get(newer).superseded_by == older and done.active == (older,)
    store.undo()
    done = resolve_pair(store, older, newer, "merge", text="Mai grows tomatoes and herbs on her balcony")
    (merged,) = done.active
    assert merged not in (older, newer) and store.get(merged).text == "Mai grows tomatoes and herbs on her balcony"
    assert store.get(older).superseded_by == merged == store.get(newer).superseded_by
    assert store.get(merged).user == "mai"
    store.undo()
    with pytest.raises(NotFoundError):
        store.get(merged)
    assert store.get(older).superseded_by is None and store.get(newer).superseded_by is None


def test_a_merge_keeps_out_of_pinned_memories_and_obeys_delete_policy_deny(store):
    older, newer = _pair(store)
    store.pin(older)
    with pytest.raises(InvalidValueError, match="pinned"):
        resolve_pair(store, older, newer, "merge")
    store.unpin(older)
    store.set_setting("memory.deletePolicy", "deny")
    count = _events(store)
    with pytest.raises(PolicyError):
        resolve_pair(store, older, newer, "merge")
    assert _events(store) == count


# ---------------------------------------------------------------- the CLI


def _cli_pair(run):
    for text in ("Linh plays the cello on Sundays", "Linh joined a string quartet this spring"):
        assert run("memory", "add", "--user", "linh", "note", "--", text).exit_code == 0
    return 1, 2


def _kept(db_path):
    s = MemoryStore(db_path)
    try:
        return kept_pairs(s)
    finally:
        s.close()


def _history(run) -> list[dict]:
    return json.loads(run("memory", "history", "--json").output)


def _active_ids(run) -> set[int]:
    return {m["id"] for m in json.loads(run("memory", "list", "--json").output)
            if m["status"] == "approved" and m["superseded_by"] is None}


def test_cli_keep_both_then_undo(run, db_path):
    older, newer = _cli_pair(run)
    result = run("memory", "resolve", str(older), str(newer), "--keep-both")
    assert result.exit_code == 0
    assert result.output == (f"kept both #{older} and #{newer}: the doctor will not ask again "
                             "(undo with `bestie memory undo`)\n")
    assert _kept(db_path) == {frozenset((older, newer))}
    again = run("memory", "resolve", str(older), str(newer), "--keep-both")
    assert again.exit_code == 0 and "already kept both; nothing changed" in again.output
    undone = run("memory", "undo")
    assert undone.exit_code == 0 and undone.output.strip() == f"undid keep_both by owner on #{older}, #{newer}"
    assert _kept(db_path) == set()
    assert _active_ids(run) == {older, newer}


def test_cli_unknown_id_fails_in_one_line_and_writes_nothing(run, db_path):
    older, _ = _cli_pair(run)
    events = _history(run)
    result = run("memory", "resolve", str(older), "99", "--keep-both")
    assert result.exit_code == 1
    assert result.stdout == "" and result.stderr == "Error: no memory with id 99\n"
    assert _history(run) == events and _kept(db_path) == set()


def test_cli_refuses_a_pair_of_two_users(run, db_path):
    older, _ = _cli_pair(run)
    assert run("memory", "add", "--user", "tuan", "note", "--", "Tuan bakes rye bread").exit_code == 0
    events = _history(run)
    result = run("memory", "resolve", str(older), "3", "--keep-both")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "user 'linh'" in result.stderr and "user 'tuan'" in result.stderr
    assert _history(run) == events and _kept(db_path) == set()


def test_cli_newer_supersedes_the_older_and_undo_brings_it_back(run):
    older, newer = _cli_pair(run)
    result = run("memory", "resolve", str(older), str(newer), "--newer")
    assert result.exit_code == 0 and result.output.startswith(f"#{newer} replaces #{older}")
    assert _active_ids(run) == {newer}
    working = run("memory", "list", "--tier", "working").output
    assert f"#{older} " not in working and f"#{newer} " in working
    assert run("memory", "undo").output.startswith(f"undid supersede by owner on #{older}")
    assert _active_ids(run) == {older, newer}


def test_cli_older_supersedes_the_newer_and_undo_brings_it_back(run):
    older, newer = _cli_pair(run)
    result = run("memory", "resolve", str(older), str(newer), "--older", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert (data["how"], data["active"], data["superseded"]) == ("older", [older], [newer])
    assert _active_ids(run) == {older}
    assert run("memory", "undo").exit_code == 0
    assert _active_ids(run) == {older, newer}


def test_cli_merge_with_a_text_and_its_undo(run):
    older, newer = _cli_pair(run)
    text = "Linh plays the cello in a string quartet"
    result = run("memory", "resolve", str(older), str(newer), "--merge", "--text", text)
    assert result.exit_code == 0 and f"merged #{older} and #{newer} into the new #3" in result.output
    (merged,) = [m for m in json.loads(run("memory", "list", "--json").output) if m["id"] == 3]
    assert merged["text"] == text and merged["user"] == "linh"
    assert _active_ids(run) == {3}
    assert run("memory", "undo").output.startswith("undid merge (3 changes) by owner")
    assert _active_ids(run) == {older, newer}


def test_cli_merge_without_a_text_keeps_one_member(run):
    older, newer = _cli_pair(run)
    result = run("memory", "resolve", str(older), str(newer), "--merge")
    assert result.exit_code == 0
    (kept,) = _active_ids(run)
    assert kept in (older, newer) and f"into #{kept}:" in result.output


@pytest.mark.parametrize("flags", [[], ["--newer", "--older"], ["--keep-both", "--merge"],
                                   ["--older", "--text", "one record"]])
def test_cli_needs_exactly_one_answer(run, flags):
    older, newer = _cli_pair(run)
    events = _history(run)
    result = run("memory", "resolve", str(older), str(newer), *flags)
    assert result.exit_code == 2
    assert _history(run) == events


def test_a_merged_text_over_the_memory_limit_is_refused_and_nothing_changes(store, clock):
    from bestie_tui.store.limits import MEMORY_TEXT_MAX

    a = store.add("fact", "The rain barrel sits by the shed.")
    clock.advance(60)
    b = store.add("fact", "The water butt is next to the garden shed.")
    with pytest.raises(InvalidValueError, match="at most"):
        resolve_pair(store, a.id, b.id, "merge", text="x" * (MEMORY_TEXT_MAX + 1))
    assert sorted(m.text for m in store.list()) == sorted([a.text, b.text])
    assert all(m.superseded_by is None for m in store.list())
