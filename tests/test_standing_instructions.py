"""Standing instructions (issue 29, item 1): approved memories that say how to answer enter every
prompt of their user under "How to answer:", whatever the request; the owner turns one into an
ordinary memory and back (undoable). Real SQLite files, the real CLI, the fact reader's cues."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bestie_tui import MemoryStore, build_context, propose_from_turn
from bestie_tui.cli.demo import populate
from bestie_tui.conversation.pack import build_pack
from bestie_tui.facts.manner import manner_of
from bestie_tui.store.instructions import INSTRUCTION_KIND, is_instruction
from bestie_tui.store.markers import CORE_TITLE, INSTRUCTIONS_TITLE, WORKING_TITLE
from bestie_tui.store.models import Event

#: Requests about nothing the memories say, in English and Vietnamese (written for this test).
UNRELATED = ["what is 17 times 23", "Suggest a seafood place", "translate 'thank you' into German",
             "Who painted the Mona Lisa?", "Thủ đô của Úc là gì?", "Gợi ý một quán bún ngon ở Huế",
             "Tính giúp mình 12 nhân 8", "how many legs does a spider have"]


def _ids(pack, section: str) -> list[int]:
    return [i.record.id for i in getattr(pack, section)]


# ---------------------------------------------------------------- the reader's cues

@pytest.mark.parametrize("text, aspect", [
    ("Answer me in German, please.", "language"),
    ("Mình muốn bạn trả lời bằng tiếng Nhật.", "language"),
    ("Give brief replies.", "length"),
    ("tra loi that ngan gon thoi", "length"),  # typed without marks
    ("Keep a formal tone in every response.", "tone"),
    ("Hãy nói chuyện lịch sự với mình.", "tone"),
    ("No emoji in your messages.", "format"),
    ("Explanations as numbered steps, please.", "format"),
    ("Call me Captain.", "address"),
    ("Xưng cháu với mình nhé.", "address"),
    ("Giải thích thì đi thẳng vào vấn đề, đừng lan man.", "tone"),
    ("dung vong vo nua", "tone"),  # typed without marks: "đừng vòng vo nữa"
    ("Khi liệt kê việc cần làm thì đánh số từng việc.", "format"),
    ("Never beat around the bush with me.", "format"),
])
def test_the_reader_sees_how_to_answer(text, aspect):
    assert manner_of(text) == aspect


@pytest.mark.parametrize("text", [
    "Call me back after lunch.",          # a phone call, not a form of address
    "I am short and wear glasses.",        # a height, not the length of replies
    "Answers support tickets on Fridays.",  # a reply word, no way of replying
    "Her cô dâu wore red at the wedding.",  # "cô dâu" (a bride) is not "có dấu" (with marks)
    "Keep the shopping list on the fridge.",
    "My brother speaks Korean.",
    "Runs a short loop around the lake at dawn.",
    "Mẹ tôi hay nói vòng vo.",               # how someone else talks
    "Tôi liệt kê chi tiêu vào sổ mỗi tối.",   # a list of expenses, not of replies
    "Keep the receipts to the point of sale.",
])
def test_the_reader_leaves_the_rest_alone(text):
    assert manner_of(text) is None


# ---------------------------------------------------------------- the block

def test_the_readme_statement_reaches_unrelated_requests_in_english_and_vietnamese(tmp_path):
    store = MemoryStore(tmp_path / "assistant.db")
    store.set_setting("memory.writePolicy", "allow")
    turn = "I prefer short answers, and I live in Hoi An."
    propose_from_turn(store, turn, user="ana", channel="chat")
    (memory,) = store.list()
    assert memory.kind == INSTRUCTION_KIND and is_instruction(memory)
    for request in ("Suggest a seafood place", "Gợi ý một quán cà phê yên tĩnh", "what is 17 times 23"):
        pack = build_context(store, request, "ana", "chat", record_access=False)
        assert _ids(pack, "instructions") == [memory.id] and not pack.working, request
        lines = pack.render().splitlines()
        assert lines[1] == INSTRUCTIONS_TITLE and lines[2] == "- " + turn
    store.close()


def test_every_approved_communication_preference_of_the_demo_is_in_every_block(tmp_path):
    store = MemoryStore(tmp_path / "demo.db")
    populate(store)
    wanted = {m.id for m in store.list(limit=1000) if m.status == "approved" and m.kind == INSTRUCTION_KIND
              and m.layer != "archive"}
    assert len(wanted) >= 3
    for request in UNRELATED + ["When do deploys go out?", "Bạn nhắc mình lịch deploy nhé"]:
        pack = build_context(store, request, "linh", record_access=False)
        shown = set(_ids(pack, "core")) | set(_ids(pack, "instructions"))
        assert wanted <= shown, request
        # a core one is shown once, in Core
        assert not set(_ids(pack, "core")) & set(_ids(pack, "instructions"))
        text = pack.render()
        assert text.index(CORE_TITLE) < text.index(INSTRUCTIONS_TITLE)
        assert WORKING_TITLE not in text or text.index(INSTRUCTIONS_TITLE) < text.index(WORKING_TITLE)
    store.close()


def test_instructions_come_before_topic_memories_and_need_no_relevance(store):
    tone = store.add("preference", "Prefers a casual, friendly tone in replies", user="kim").id
    tea = store.add("note", "Drinks jasmine tea at the office every afternoon", user="kim").id
    store.add("preference", "Prefers detailed replies", user="bob")  # another user's: never Kim's
    pack = build_context(store, "which tea at the office this afternoon?", "kim", record_access=False)
    assert _ids(pack, "instructions") == [tone] and _ids(pack, "working") == [tea]
    assert pack.render().index("casual") < pack.render().index("jasmine")
    assert pack.to_dict()["instructions"][0]["id"] == tone and pack.to_dict()["instructions_cap"] == 150
    assert not [x for x in pack.left_out if x.id == tone]  # no floor, no "low relevance"
    other = build_context(store, "Gợi ý sách hay", "kim", record_access=False)
    assert _ids(other, "instructions") == [tone] and "detailed" not in other.render()


def test_near_duplicates_are_shown_once_and_the_cap_holds(store):
    first = store.add("preference", "Wants short answers in English", user="kim").id
    twin = store.add("preference", "Wants short answers, in English please", user="kim").id
    other = store.add("preference", "No emoji in replies", user="kim").id
    pack = build_context(store, "what is the weather like", "kim", record_access=False)
    assert sorted(_ids(pack, "instructions")) == [twin, other]  # the newer wording, once
    dropped = next(x for x in pack.left_out if x.id == first)
    assert dropped.reason == "duplicate" and f"#{twin}" in dropped.detail
    store.set_setting("memory.instructionsTokenCap", 12)
    tight = build_context(store, "what is the weather like", "kim", record_access=False)
    assert len(tight.instructions) == 1
    assert any(x.reason == "budget" and "instructions cap" in x.detail for x in tight.left_out)
    assert sum(i.tokens + 1 for i in tight.instructions) + 4 <= 12


def test_a_memory_about_someone_else_and_an_edit_never_make_an_instruction(store):
    brother = store.add("preference", "My brother Nam prefers short answers", user="kim")
    assert brother.about and brother.kind == "preference" and not is_instruction(brother)
    with pytest.raises(Exception, match="about"):
        store.instruct(brother.id)
    mine = store.add("preference", "Prefers short answers", user="kim")
    store.uninstruct(mine.id)
    store.edit(mine.id, "Prefers very short answers")  # the owner's choice stays made
    assert store.get(mine.id).kind == "preference"
    pack = build_context(store, "what is the weather like", "kim", record_access=False)
    assert not pack.instructions


def test_instruct_and_uninstruct_are_undoable_events_that_give_back_the_kind(store):
    m = store.add("identity", "Goes by Bo with friends", user="kim")
    assert store.instruct(m.id).kind == INSTRUCTION_KIND
    assert build_context(store, "what is 2 plus 2", "kim", record_access=False).instructions
    assert store.uninstruct(m.id).kind == "identity"  # the kind before its last instruct
    assert [e.action for e in Event.select().where(Event.memory_id == m.id).order_by(Event.id)][-2:] == \
        ["instruct", "uninstruct"]
    store.undo()
    assert store.get(m.id).kind == INSTRUCTION_KIND
    store.undo()
    assert store.get(m.id).kind == "identity"
    approved = store.propose("Please answer in Spanish", "note", user="kim").memory
    assert approved.kind == INSTRUCTION_KIND  # read when proposed; the owner sees it in Pending
    store.uninstruct(approved.id)
    assert store.approve(approved.id).kind == INSTRUCTION_KIND  # approving reads it again
    assert store.uninstruct(approved.id).kind == "preference"


def test_the_context_pack_carries_the_section(store):
    store.add("preference", "Answer in Vietnamese", user="kim")
    pack = build_pack(task="Write the release notes", store=store, user="kim", record_access=False)
    assert INSTRUCTIONS_TITLE in json.dumps(pack.to_dict(), ensure_ascii=False)


# ---------------------------------------------------------------- CLI

def test_cli_context_recall_and_the_toggle(run, store):
    m = store.add("preference", "Keep replies concise", user="kim")
    shown = json.loads(run("memory", "context", "Who painted the Mona Lisa?", "--user", "kim", "--json").output)
    assert [i["id"] for i in shown["instructions"]] == [m.id] and INSTRUCTIONS_TITLE in shown["text"]
    text = run("memory", "context", "Who painted the Mona Lisa?", "--user", "kim").output
    assert f"answer  #{m.id}" in text
    listed = run("memory", "list").output
    assert "instruction" in listed
    assert "instruction       yes" in run("memory", "inspect", str(m.id)).output
    off = run("memory", "uninstruct", str(m.id))
    assert off.exit_code == 0 and "ordinary memory" in off.output
    assert store.get(m.id).kind == "preference"
    recalled = json.loads(run("memory", "recall", "Who painted the Mona Lisa?", "--user", "kim", "--json").output)
    assert INSTRUCTIONS_TITLE not in recalled["block"]
    on = run("memory", "instruct", str(m.id))
    assert on.exit_code == 0 and "standing instruction" in on.output
    recalled = json.loads(run("memory", "recall", "Who painted the Mona Lisa?", "--user", "kim", "--json").output)
    assert INSTRUCTIONS_TITLE in recalled["block"] and m.id in [x["id"] for x in recalled["memories"]]
    assert run("memory", "undo").exit_code == 0
    assert store.get(m.id).kind == "preference"
    missing = run("memory", "instruct", "999")
    assert missing.exit_code == 1 and len(missing.output.strip().splitlines()) == 1


def test_cli_setting_is_checked(run):
    assert run("memory", "config", "memory.instructionsTokenCap", "80").exit_code == 0
    bad = run("memory", "config", "memory.instructionsTokenCap", "-3")
    assert bad.exit_code != 0


@pytest.mark.slow  # one subprocess
def test_fast_start_keeps_textual_and_sklearn_out(tmp_path):
    db = tmp_path / "m.db"
    MemoryStore(db).close()
    code = ("import sys; from bestie_tui.cli.main import cli\n"
            f"cli(['--db', {str(db)!r}, 'memory', 'instruct', '1'], standalone_mode=False)" "\n")
    out = subprocess.run([sys.executable, "-c", code + "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                          "('textual', 'sklearn')))"], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().endswith("[]") or "no memory with id 1" in out.stderr + out.stdout


def test_a_budget_too_small_for_an_instruction_is_named_as_the_budget(store):
    store.set_setting("semantic.model", "off")
    store.add("communication_preference", "Answer in short sentences, please, and use plain words only.", user="vy")
    pack = build_context(store, "hello", "vy", token_budget=12, record_access=False)
    assert [(x.reason, x.detail.split(":")[0]) for x in pack.left_out] == [("budget", "token budget")]
