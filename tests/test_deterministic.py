"""The same texts give the same verdicts under any ``PYTHONHASHSEED`` (issue 28).

A string set iterates in an order that changes from one interpreter to the next, so a value taken
from one ("the first number", "the first state") made ``relate`` answer "2 → 3" in one process and
"both: 3" in another, and the doctor's worker processes read a text unlike the process that asked.
These tests run the reader, ``relate`` and the doctor in fresh interpreters with different seeds
and compare what they print.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bestie_tui.store.memory_store import MemoryStore

SEEDS = ("1", "2", "3")

PAIRS = [
    # classes named by grade, letter and number; several numbers in one text
    ("Bé Mai học lớp 4A1.", "Bé Mai được chuyển sang lớp 4A3 từ học kỳ sau."),
    ("Con trai tôi học lớp 2B3, phòng 105.", "Con trai tôi lên lớp 3B1 rồi."),
    ("My office is on the 9th floor, the canteen on the 2nd floor.", "My office moved to the 11th floor."),
    ("I am 34 and my daughter is 6.", "I turned 35 last week."),
    ("I weigh 68 kg and lift 40 kg.", "I weigh 71 kg now."),
    ("My kids are 7 and 10.", "My kids are 8 and 11 now."),
    ("I was born on 7/8 or 8/7, I forget which.", "My birthday is August 9."),
    # two lasting states, two days and times, values of several words
    ("I am vegan and lactose intolerant.", "I love goat cheese."),
    ("We ship releases on Tuesdays and Thursdays at 14:00.", "Releases now go out on Wednesdays at 10:00."),
    ("Our retro is at 16:00 on Fridays.", "The retro moved to 15:30 on Thursdays."),
    ("My laptop is a ThinkPad X1 Carbon Gen 9.", "My laptop is a ThinkPad T14s Gen 3 now."),
    ("I speak Spanish, Portuguese and a little Italian.", "I only speak Spanish these days."),
    ("I only drink oolong and jasmine tea.", "Had an espresso with the team this morning."),
    # Vietnamese, with and without diacritics
    ("Tôi sống ở Thành phố Hồ Chí Minh.", "Tôi vừa dọn ra Vũng Tàu sống."),
    ("Chị Hạnh làm kế toán trưởng ở công ty Bình Minh.", "Chị Hạnh chuyển sang làm giám đốc tài chính."),
    ("Tôi không ăn hải sản và thịt bò.", "Hôm qua tôi lỡ ăn một con tôm."),
    ("Anh Dung la truong nhom backend va frontend.", "Anh Dung chi con phu trach nhom backend."),
]

#: Prints, for each pair, the relation and both readings as plain JSON (sets sorted, so only what a
#: reader chose from a set, or the order it chose in, can differ).
_RELATE = r"""
import json, sys
from bestie_tui.facts import dates
from bestie_tui.facts.reader import read
from bestie_tui.facts.relations import relate

def reading(text):
    r = read(text)
    return {"subject": r.subject.label(), "states": list(r.states),
            "facts": [[f.attribute, f.key, sorted(f.value), f.value_text, f.polarity, sorted(f.old_value)]
                      for f in r.facts],
            "quantities": [[q.kind, repr(q.value)] for q in dates.in_order(text)]}

out = []
for older, newer in json.load(sys.stdin):
    out.append({"relation": relate(older, newer).to_dict(), "older": reading(older), "newer": reading(newer)})
print(json.dumps(out, ensure_ascii=False, sort_keys=True))
"""


def _python(seed: str, args: list[str], stdin: str = "") -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_relate_and_the_reader_answer_the_same_under_any_hash_seed():
    runs = {seed: json.loads(_python(seed, ["-c", _RELATE], json.dumps(PAIRS))) for seed in SEEDS}
    first = runs[SEEDS[0]]
    assert len(first) == len(PAIRS)
    for seed in SEEDS[1:]:
        for pair, a, b in zip(PAIRS, first, runs[seed]):
            assert a == b, f"{pair} under PYTHONHASHSEED={SEEDS[0]} and {seed}"
    # the class changed, and both sides name it whole
    relation = first[0]["relation"]
    assert (relation["kind"], relation["old_value"], relation["new_value"]) == ("correction", "grade 4a1", "grade 4a3")


#: Memories for the doctor: duplicates, corrections, contradictions, an event against a state.
_MEMORIES = [
    ("identity", "I live in Thu Duc with my parents."), ("identity", "We relocated to Bien Hoa in May."),
    ("preference", "I adore mangosteen."), ("preference", "I can't stand mangosteen."),
    ("identity", "I am vegan and lactose intolerant."), ("preference", "I love goat cheese."),
    ("note", "Bé Mai học lớp 4A1."), ("note", "Bé Mai được chuyển sang lớp 4A3 từ học kỳ sau."),
    ("project_context", "Our retro is at 16:00 on Fridays."), ("project_context", "The retro moved to 15:30 on Thursdays."),
    ("note", "My laptop is a ThinkPad X1 Carbon Gen 9."), ("note", "My laptop is a ThinkPad T14s Gen 3 now."),
    ("preference", "Keep answers short, three lines at most."), ("preference", "Keep the answers short: 3 lines max."),
    ("note", "Tôi không ăn hải sản và thịt bò."), ("note", "Hôm qua tôi lỡ ăn một con tôm."),
    ("note", "I weigh 68 kg and lift 40 kg."), ("note", "I weigh 71 kg now."),
    ("note", "The spare bike key hangs by the door."), ("note", "The spare bike key hangs beside the door!"),
]


def test_the_doctor_json_is_the_same_under_any_hash_seed(tmp_path, clock):
    db = tmp_path / "seeded.db"
    store = MemoryStore(db, clock=clock)
    with store.bound():
        for kind, text in _MEMORIES:
            store.add(kind, text)
            clock.advance(3600)
    store.close()
    command = ["-m", "bestie_tui.cli.main", "--db", str(db), "memory", "analyze", "--json"]
    reports = {}
    for seed in SEEDS:
        report = json.loads(_python(seed, command))
        for key in ("generated_at", "timings"):
            report.pop(key, None)
        reports[seed] = report
    first = reports[SEEDS[0]]
    assert first["corrections"] and first["contradictions"]  # the report has something to compare
    for seed in SEEDS[1:]:
        assert reports[seed] == first, f"doctor JSON under PYTHONHASHSEED={SEEDS[0]} and {seed}"
