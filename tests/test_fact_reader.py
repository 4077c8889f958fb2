"""The fact reader: subject, attribute, value, polarity and time of a memory, English and
Vietnamese (with and without diacritics), and what it says when it cannot read one."""

from __future__ import annotations

import pytest

from bestie_tui.facts.dates import quantities, show
from bestie_tui.facts.reader import read


def fact(text: str):
    r = read(text)
    assert r.facts, f"no fact read from {text!r}: {r.note}"
    return r.facts[0]


@pytest.mark.parametrize("text, attribute, value", [
    ("User lives in Hanoi.", "residence", {"hanoi"}),
    ("Tôi sống ở Quy Nhơn.", "residence", {"quy", "nhon", "quynhon"}),
    ("Toi song o Quy Nhon.", "residence", {"quy", "nhon", "quynhon"}),
    ("I work at Shopee as a data analyst.", "employer", {"shope"}),  # values are stems
    ("My title is Principal Designer.", "title", {"princip", "designer"}),
    ("Please answer me in French.", "reply language", {"french"}),
    ("Trả lời tôi bằng tiếng Việt.", "reply language", {"vietnamese"}),
    ("Call me Bob.", "name", {"bob"}),
    ("My favourite band is Radiohead.", "favourite", {"radiohead"}),
    ("I'm allergic to penicillin.", "allergy", {"penicillin"}),
    ("I'm a lifelong vegetarian.", "diet", {"vegetarian"}),
])
def test_attribute_and_value(text, attribute, value):
    f = fact(text)
    assert f.attribute == attribute and f.polarity == 1
    assert value <= set(f.value)


def test_subjects_owner_named_people_roles_and_things():
    assert read("I live in Hue.").subject.kind == "owner"
    assert read("Người dùng hiện sống tại Nha Trang.").subject.kind == "owner"
    wife = read("My wife Linh teaches maths.").subject
    assert (wife.kind, wife.name, wife.role) == ("person", "linh", "wife")
    assert read("Vợ tôi dạy văn ở trường tiểu học.").subject.role == "wife"
    assert read("Anh Khải là trưởng nhóm kế toán.").subject.name == "khai"
    friend = read("Hoa's best friend plays the violin.").subject
    assert (friend.role, friend.of) == ("friend", "hoa")  # Hoa's friend, not Hoa
    assert read("The Orchid launch is planned for June 2.").subject.kind == "thing"
    # "He wears glasses" is about someone else, never the owner
    assert read("He wears glasses.").subject.kind == "person"


def test_no_longer_not_anymore_stopped_quit_and_vietnamese_endings_are_ended_states():
    for text in ("I'm no longer vegan.", "I'm not studying Korean anymore.", "I stopped playing tennis.",
                 "Quit Fortnite for good last week.", "Tôi không còn ăn chay nữa.", "Tôi đã bỏ thuốc lá.",
                 "Tôi đã ngừng chơi đàn guitar."):
        r = read(text)
        assert r.ended and r.facts and r.facts[0].polarity == -1, text


def test_never_ever_hedges_fixes_plans_and_past_states():
    assert read("I have never been to Japan.").ever and read("I have never been to Japan.").negated
    assert read("Tôi chưa bao giờ đi máy bay.").ever
    assert read("I think I'm blood group B.").hedged and read("Hình như chị Thảo vẫn còn độc thân.").hedged
    assert read("Turns out I'm not allergic to amoxicillin.").fix
    assert read("I'd love to see Peru someday.").plan
    assert read("I lived in Lisbon as a student.").past and read("Tôi từng sống ở Sài Gòn.").past


def test_a_one_off_event_is_not_a_habit():
    assert read("Had a beer at a friend's birthday party last Friday.").event
    assert read("Hôm qua ở tiệc công ty tôi lỡ uống một ly bia.").event
    assert not read("I drink tea every evening.").event
    assert not read("Releases only go out on Tuesdays.").event


@pytest.mark.parametrize("a, b", [
    ("My son was born on July 21st.", "His birthday: 21/7."),
    ("Dự án phải bàn giao ngày 15/11.", "Hạn chót là 15 tháng 11."),
    ("I'm usually asleep by 10 pm.", "Lights out at 22:00 for me."),
    ("Chiều cao của tôi là 1m72.", "I am 172 cm tall."),
    ("My commute is 12 km.", "It is about 7.5 miles."),
    ("Team sync: 10.45am, Mon-Fri.", "The sync happens at 10:45 on weekdays."),
])
def test_dates_times_and_amounts_in_any_spelling_are_one_value(a, b):
    qa = [q for q in quantities(a) if q.kind != "daypart"]
    qb = [q for q in quantities(b) if q.kind != "daypart"]
    assert qa and len(qa) == len(qb)
    assert all(any(x.same(y) for y in qb) for x in qa), ([show(q) for q in qa], [show(q) for q in qb])


def test_model_numbers_are_different_values():
    assert quantities("My phone is an iPhone 14.") != quantities("My phone is an iPhone 15.")


def test_the_readers_old_mistakes():
    # "I like red wine" is not a favourite colour; "vegetarian food" is not being vegetarian;
    # fishing is not eating fish; a favourite food or subject is not a reply language
    assert fact("I like red wine.").attribute == "like"
    assert all(f.attribute != "diet" for f in read("I like vegetarian food.").facts)
    assert not read("I like vegetarian food.").states
    assert "fish" not in read("I enjoy fishing.").mentions
    assert fact("My favorite food is Italian.").attribute == "favourite"
    assert fact("My favorite subject is English.").attribute == "favourite"


def test_what_the_reader_cannot_read_it_says():
    r = read("red apple pie")
    assert not r.readable and r.note.startswith("cannot read")
    assert read("!!!").note == "cannot read: no words"
