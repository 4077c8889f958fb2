"""Broad topics of everyday life (food, travel, fitness, work, …) and the words that name them, in
English and Vietnamese: a general category lexicon, so that a request and a memory about the same
part of life rank closer even when they share no word ("Plan a trip to the coast" / "I only stay in
small family-run hotels").

It holds only general words of each topic: no brand, dish, place or product that one sentence
needed. English members are single words, matched by their stems; Vietnamese members are
compounds of two or more syllables ("nhà hàng", "du lịch"), matched by the index's word pairs,
since one syllable alone is too ambiguous ("ăn" is in "an toàn" folded).

``member_features(features)`` reads the index's word features of a request and returns the index
features of every member of every topic the request names (``retrieval.index`` gives a memory that
holds one of them a small share of relevance, ``bm25.TOPIC_SHARE``). A topic is never evidence that a
memory belongs in a prompt (``retrieval.evidence``): it orders candidates, it does not admit them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

#: Topic → its member words (English, one word each) and phrases (Vietnamese, two or more syllables).
TOPICS: dict[str, tuple[str, ...]] = {
    "food": tuple("""
        food foods eat eating meal meals dish dishes cuisine restaurant restaurants dining dine diner cafe
        menu recipe recipes cook cooking bake baking snack snacks breakfast lunch dinner brunch dessert
        vegan vegetarian diet spicy meat beef pork chicken fish seafood shellfish vegetables fruit cheese
        dairy gluten sugar taste flavor flavour chef kitchen takeout bakery drink drinks beverage coffee
        tea wine beer alcohol cocktail juice protein organic""".split()) + (
        "món ăn", "nhà hàng", "quán ăn", "ẩm thực", "nấu ăn", "bữa sáng", "bữa trưa", "bữa tối", "đồ ăn",
        "hải sản", "ăn chay", "cà phê", "đồ uống", "thực đơn", "đồ ngọt"),
    "travel": tuple("""
        travel traveling travelling trip trips vacation holiday holidays journey tour tourist destination
        hotel hotels hostel resort accommodation lodging booking flight flights airline airport cruise
        beach sightseeing itinerary abroad luggage passport visa backpacking camping motel""".split()) + (
        "du lịch", "khách sạn", "chuyến bay", "máy bay", "sân bay", "nghỉ dưỡng", "kỳ nghỉ", "đặt phòng",
        "hộ chiếu", "chuyến đi"),
    "fitness": tuple("""
        fitness exercise exercises workout workouts gym trainer cardio strength weightlifting muscle
        muscles yoga pilates running jogging marathon cycling swimming stretching athletic endurance
        treadmill""".split()) + (
        "thể dục", "phòng tập", "chạy bộ", "thể hình", "bơi lội", "đạp xe", "tập luyện"),
    "health": tuple("""
        health healthy medical doctor medication medicine symptom symptoms illness disease chronic pain
        sleep stress anxiety therapy therapist mental allergy allergic supplement vitamin hospital clinic
        treatment wellness injury""".split()) + (
        "sức khỏe", "bác sĩ", "bệnh viện", "dị ứng", "giấc ngủ", "khám bệnh", "bệnh nhân"),
    "music": tuple("""
        music song songs singer album band concert concerts playlist jazz rock pop classical rap guitar
        piano listen lyrics musician orchestra opera""".split()) + (
        "âm nhạc", "bài hát", "ca sĩ", "hòa nhạc", "nghe nhạc"),
    "books": tuple("""
        book books reading reader novel novels author authors fiction nonfiction literature story stories
        poetry poem biography memoir library chapter comic comics audiobook""".split()) + (
        "đọc sách", "tiểu thuyết", "tác giả", "truyện tranh", "thư viện", "cuốn sách"),
    "film": tuple("""
        movie movies film films cinema television episode episodes watch streaming documentary actor
        actress director drama comedy thriller horror animated anime""".split()) + (
        "bộ phim", "xem phim", "rạp chiếu", "phim ảnh"),
    "games": tuple("""
        game games gaming gamer console consoles videogame boardgame tabletop puzzle puzzles multiplayer
        esports chess""".split()) + (
        "trò chơi", "chơi game", "cờ vua"),
    "sports": tuple("""
        sport sports team match league football soccer basketball baseball tennis golf hockey cricket rugby
        athlete stadium tournament olympics racing""".split()) + (
        "thể thao", "bóng đá", "bóng rổ", "quần vợt", "cầu lông", "trận đấu"),
    "fashion": tuple("""
        fashion clothes clothing outfit outfits wear wearing wardrobe dress dresses shirt pants jeans shoes
        boots sneakers jacket coat style stylish accessories jewelry jewellery fabric cotton wool silk""".split()) + (
        "quần áo", "thời trang", "trang phục", "giày dép"),
    "beauty": tuple("""
        beauty makeup cosmetics skincare skin hair haircut hairstyle nails perfume fragrance lipstick
        moisturizer lotion salon spa shampoo""".split()) + (
        "làm đẹp", "trang điểm", "mỹ phẩm", "dưỡng da", "cắt tóc"),
    "cars": tuple("""
        car cars vehicle vehicles driving driver sedan truck engine motorcycle motorbike fuel mileage
        dealership""".split()) + (
        "xe hơi", "ô tô", "xe máy", "lái xe", "xe điện"),
    "tech": tuple("""
        technology tech device devices gadget gadgets phone phones smartphone laptop laptops computer
        computers tablet software app apps keyboard screen headphones camera wireless battery charger
        speaker smartwatch""".split()) + (
        "điện thoại", "máy tính", "công nghệ", "phần mềm", "ứng dụng", "tai nghe"),
    "work": tuple("""
        job jobs career office workplace employer employee colleague colleagues coworkers boss manager
        meeting meetings remote commute salary company profession professional business""".split()) + (
        "công việc", "công ty", "văn phòng", "đồng nghiệp", "cuộc họp", "làm việc"),
    "learning": tuple("""
        learn learning study studying student students school course courses lesson lessons teacher tutor
        education educational lecture lectures exam exams university college skill skills""".split()) + (
        "học tập", "học sinh", "sinh viên", "trường học", "khóa học", "giáo viên", "ngoại ngữ", "bài học",
        "kỳ thi"),
    "home": tuple("""
        home house apartment rent neighborhood neighbourhood city town suburb rural urban garden furniture
        decor""".split()) + (
        "nhà cửa", "căn hộ", "thuê nhà", "chuyển nhà", "hàng xóm", "nội thất"),
    "pets": tuple("""
        pet pets dog dogs puppy cat cats kitten animal animals vet""".split()) + (
        "thú cưng", "con chó", "con mèo", "thú y"),
}


def _features_of(member: str) -> list[str]:
    """The index word features that stand for ``member``: an English word's stem, or a Vietnamese
    phrase's word pairs (no single syllable)."""
    from bestie_tui.text.analysis import analyze_words

    words = analyze_words(member)
    if " " not in member.strip():
        return words[:1]
    return [a + " " + b for a, b in zip(words, words[1:])]


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, frozenset[str]], dict[str, tuple[str, ...]]]:
    """``(feature → topics, topic → features)``, built once per process, in a fixed order."""
    of: dict[str, set[str]] = {}
    members: dict[str, tuple[str, ...]] = {}
    for topic, words in TOPICS.items():
        feats = list(dict.fromkeys(f for w in words for f in _features_of(w)))
        members[topic] = tuple(feats)
        for f in feats:
            of.setdefault(f, set()).add(topic)
    return {f: frozenset(t) for f, t in of.items()}, members


def topics_of(features: Iterable[str]) -> list[str]:
    """The topics that the index word ``features`` of a text name, in ``TOPICS`` order."""
    of, _ = _tables()
    found: set[str] = set()
    for f in features:
        found |= of.get(f, frozenset())
    return [t for t in TOPICS if t in found]


def member_features(features: Iterable[str]) -> list[str]:
    """Every index word feature of every topic that ``features`` (a request's) name, each once, in a
    fixed order (``TOPICS`` order, then the members' order): what a memory holds when it is about the
    same part of life."""
    _, members = _tables()
    return list(dict.fromkeys(f for t in topics_of(features) for f in members[t]))
