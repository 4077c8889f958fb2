"""Sensitive details (issue 30, items 2 and 10): health, finance and identity-document details are
marked sensitive — never put in core by default (add, propose, import land them in working with a
note; the owner can still move one there by hand), shown with the ``sensitive`` flag in the console,
and withheld from the digest text, which is sent to chat apps."""

from __future__ import annotations

import json

import pytest

from bestie_tui.store.gate.sensitive import sensitive_kind
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.tui.app import BestieApp
from bestie_tui.tui.screens.tiers_screen import TiersScreen

SENSITIVE = [
    ("health", "Sees a psychiatrist every other Tuesday for the bipolar diagnosis"),
    ("health", "Đang uống thuốc huyết áp mỗi sáng"),
    ("finance", "Monthly salary is 42 million VND, paid on the 5th"),
    ("finance", "Còn khoản vay mua xe 200 triệu ở ngân hàng"),
    ("identity document", "Passport number ends in 4471 and expires next spring"),
    ("identity document", "So can cuoc cong dan lam lai o phuong Dich Vong"),
]
ORDINARY = ["Prefers short answers in the morning", "Works at a bank on Tran Hung Dao street",
            "Thích uống trà sen", "The deploy table is in disorder after the migration"]


@pytest.mark.parametrize("category, text", SENSITIVE)
def test_a_sensitive_detail_is_read_in_english_and_vietnamese(category, text):
    assert sensitive_kind(text) == category


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_memory_is_not_sensitive(text):
    assert sensitive_kind(text) is None


@pytest.mark.parametrize("category, text", SENSITIVE)
def test_add_to_core_keeps_a_sensitive_detail_in_working_with_a_note(db_path, run, category, text):
    result = run("memory", "add", "fact", text, "--scope", "core")
    assert result.exit_code == 0, result.output
    store = MemoryStore(db_path)
    try:
        [memory] = store.list()
        assert (memory.text, memory.layer) == (text, "working")
    finally:
        store.close()
    assert f"a {category} detail is sensitive: kept out of core" in result.stdout


def test_an_ordinary_core_memory_still_goes_to_core_and_the_owner_moves_a_sensitive_one_by_hand(db_path, run):
    assert run("memory", "add", "preference", ORDINARY[0], "--scope", "core").exit_code == 0
    assert run("memory", "propose", "--user", "an", "fact", SENSITIVE[2][1], "--scope", "core").exit_code == 0
    store = MemoryStore(db_path)
    try:
        ordinary, pending = sorted(store.list(status="all"), key=lambda m: m.id)
        assert ordinary.layer == "core" and (pending.status, pending.layer) == ("pending", "working")
        store.approve(pending.id)
        assert store.get(pending.id).layer == "working"
        assert store.move(pending.id, "core").layer == "core"  # the owner's own choice
    finally:
        store.close()


def test_an_import_of_a_sensitive_core_record_lands_in_working(db_path, run, tmp_path):
    source = tmp_path / "export.json"
    store = MemoryStore(tmp_path / "source.db")
    store.add("fact", "Quarterly mortgage statement arrives by post", scope="project")
    store.close()
    assert run("--db", str(tmp_path / "source.db"), "memory", "export", "--output", str(source)).exit_code == 0
    data = json.loads(source.read_text())
    for m in data["memories"]:
        m["scope"], m["layer"] = "core", "core"
    source.write_text(json.dumps(data))
    result = run("memory", "import", str(source))
    assert result.exit_code == 0, result.output
    store = MemoryStore(db_path)
    try:
        assert [m.layer for m in store.list(status="all")] == ["working"]
    finally:
        store.close()


def test_the_digest_text_withholds_a_sensitive_memory(db_path, run):
    store = MemoryStore(db_path)
    store.propose(SENSITIVE[0][1], "fact", user="an")
    store.propose(ORDINARY[2], "preference", user="an")
    store.close()
    text = run("memory", "digest").stdout
    assert "psychiatrist" not in text and "bipolar" not in text
    assert "(a health detail, withheld: read it in the console)" in text and ORDINARY[2] in text


async def test_the_console_marks_a_sensitive_memory(store):
    sensitive = store.add("fact", SENSITIVE[4][1])
    plain = store.add("preference", ORDINARY[0])
    store.move(sensitive.id, "core")
    store.move(plain.id, "core")
    app = BestieApp(store, poll_interval=0)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen if isinstance(app.screen, TiersScreen) else app.get_screen("tiers")
        rows = {int(line.text.split()[0]): line.text for line in (screen.memory_list.render_line(y) for y in range(2))}
        assert rows[sensitive.id].rstrip().endswith("sensitive")
        assert "sensitive" not in rows[plain.id]
