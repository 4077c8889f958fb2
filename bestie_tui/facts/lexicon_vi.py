"""The Vietnamese lexicon of the fact reader: phrases → concepts (the same concept names as the
English lexicon, so "vợ tôi" meets "my wife" and "tiếng Anh" meets "English"), and the words that
mark negation, an ended state, a hedge, a change, exclusivity, time and plans.

Phrases are written with their diacritics and matched syllable by syllable: on the syllables as
written when the text has diacritics (folded, "bò" (beef) and "bỏ" (quit) are both "bo"), and on
the folded syllables when the whole text is written without them ("toi song o Can Tho").
"""

from __future__ import annotations

PHRASES: dict[str, str] = {
    # --- people and roles
    "vợ": "wife", "chồng": "husband", "con trai": "son", "con gái": "daughter", "con": "child",
    "con cái": "child", "mẹ": "mother", "má": "mother", "bố": "father", "ba": "father", "cha": "father",
    "bố mẹ": "parents", "ba mẹ": "parents", "cha mẹ": "parents", "anh trai": "brother", "em trai": "brother",
    "chị gái": "sister", "em gái": "sister", "anh chị em": "sibling", "ông": "grandfather", "bà": "grandmother",
    "bạn": "friend", "bạn thân": "friend", "sếp": "manager", "đồng nghiệp": "colleague",
    "hàng xóm": "neighbour", "người yêu": "partner", "bạn trai": "boyfriend", "bạn gái": "girlfriend",
    "cô giáo": "teacher", "thầy giáo": "teacher", "giáo viên": "teacher", "bác sĩ": "doctor",
    "nha sĩ": "dentist", "cả nhà": "family", "gia đình tôi": "family", "nhà tôi": "family",
    "con một": "only child",
    # --- jobs and roles (values)
    "người dùng": "user", "chủ nhân": "user", "kế toán": "accountant", "dạy": "teach", "dự án": "project", "kỹ sư": "engineer",
    "lập trình viên": "developer", "trưởng phòng": "manager",
    "trưởng nhóm": "team lead", "quản lý": "@lead", "chủ nhiệm": "@lead", "phụ trách": "@lead",
    # --- things
    "điện thoại": "phone", "đt": "phone", "dt": "phone", "máy tính": "computer", "máy tính xách tay": "laptop",
    "máy tính bảng": "tablet", "xe máy": "motorbike", "xe gắn máy": "motorbike", "ô tô": "car", "xe hơi": "car",
    "xe buýt": "bus", "xe bus": "bus", "taxi": "taxi", "xe đạp": "bicycle", "nhà": "home", "ở nhà": "home",
    "văn phòng": "office", "công ty": "company", "từ xa": "remote", "làm việc từ xa": "remote",
    "cà phê": "coffee", "cafe": "coffee", "trà": "tea", "trà xanh": "green tea", "sữa": "milk", "sữa bò": "milk",
    "bia": "beer", "rượu": "alcohol", "rượu bia": "alcohol", "thịt": "meat", "thịt bò": "beef", "bò": "beef",
    "thịt heo": "pork", "thịt lợn": "pork", "heo": "pork", "lợn": "pork", "gà": "chicken", "thịt gà": "chicken",
    "đồ chiên": "fried", "chiên": "fried", "rán": "fried", "cá": "fish", "tôm": "shrimp",
    "hải sản": "seafood", "đồ biển": "seafood", "trứng": "egg", "cay": "spicy", "đồ cay": "spicy",
    "đồ ngọt": "sweets", "bánh ngọt": "sweets", "kẹo": "sweets", "đường": "sugar", "hành": "onion",
    "chó": "dog", "cún": "dog", "mèo": "cat", "cá vàng": "goldfish",
    "thuốc lá": "smoke", "hút thuốc": "smoke", "hút": "smoke", "điếu": "smoke",
    "nước ngoài": "abroad", "máy bay": "flight", "bay": "flight", "bay ra": "flight", "bay sang": "flight",
    "nằm viện": "hospital", "bệnh viện": "hospital",
    "phẫu thuật": "surgery", "mổ": "surgery", "cận thị": "myopia", "viễn thị": "hyperopia",
    "tiếng việt": "vietnamese", "tiếng anh": "english", "tiếng pháp": "french", "tiếng trung": "chinese",
    "tiếng nhật": "japanese", "tiếng hàn": "korean", "tiếng đức": "german", "tiếng thái": "thai",
    "tiếng tây ban nha": "spanish", "toán": "math", "cấp ba": "high school", "trường cấp ba": "high school",
    "tiểu học": "primary school", "bản tin": "digest", "bản tin tóm tắt": "digest", "biên bản": "minutes",
    "biên bản họp": "minutes", "họp": "meeting", "cuộc họp": "meeting", "giao ban": "meeting",
    "họp giao ban": "meeting", "lịch": "schedule", "hạn": "deadline", "hạn nộp": "deadline",
    "hạn chót": "deadline", "deadline": "deadline", "bàn giao": "deliver", "báo cáo": "report",
    "bơi": "swim", "đá bóng": "football", "bóng đá": "football", "vẽ": "drawing", "múa": "dance",
    "món ruột": "@favourite food", "món yêu thích": "@favourite food", "món khoái khẩu": "@favourite food",
    "tình trạng hôn nhân": "@marital", "bình thường": "normal",
    # --- attribute cues (see reader.ATTRIBUTES)
    "sống": "@live", "sống ở": "@live", "sống tại": "@live", "ở": "@at", "tại": "@at",
    "dọn": "@move", "dọn nhà": "@move", "dọn sang": "@move", "dọn về": "@move", "dọn đến": "@move",
    "dọn vào": "@move", "chuyển nhà": "@move", "chuyển đến": "@move", "chuyển về": "@move",
    "chuyển vào": "@move", "chuyển sang": "@switch", "đổi sang": "@switch", "đổi": "@switch",
    "chuyển": "@switch", "quê": "@hometown", "quê quán": "@hometown", "lớn lên": "@hometown",
    "sinh nhật": "@birthday", "sinh ngày": "@birthday", "sinh năm": "@born", "sinh ra": "@born",
    "làm ở": "@employer", "làm tại": "@employer", "làm việc ở": "@employer", "làm việc tại": "@employer",
    "làm cho": "@employer", "vào làm": "@employer", "làm việc": "work", "làm": "work", "đi làm": "go to work",
    "gọi tôi là": "@name", "gọi là": "@name", "xưng hô": "@name", "tên tôi là": "@name", "tên": "@named",
    "tên là": "@named", "được gọi là": "@name",
    "trả lời": "@reply", "nhắn": "@reply", "viết": "@write", "nói": "@speak", "nói được": "@speak",
    "học": "@learn", "đang học": "@learn", "cao": "@height", "chiều cao": "@height", "nặng": "@weight",
    "cân nặng": "@weight", "lớp": "@grade", "tuổi": "@age", "đi ngủ": "@bedtime", "ngủ": "@bedtime",
    "thức": "@bedtime", "thức đến": "@bedtime", "dậy": "@wake", "thức dậy": "@wake",
    "kết hôn": "@married", "cưới": "@married", "lập gia đình": "@married", "có gia đình": "@married",
    "độc thân": "@single", "đính hôn": "@engaged", "ly hôn": "@divorced", "nghỉ hưu": "@retired",
    "về hưu": "@retired", "ăn chay": "vegetarian", "ăn chay trường": "vegetarian", "ăn mặn": "omnivore",
    "thích": "@like", "yêu": "@like", "mê": "@like", "ghét": "@dislike", "sợ": "@afraid",
    "dị ứng": "@allergy", "bị dị ứng": "@allergy", "quyết định": "@decide", "cho phép": "@allowed",
    "được phép": "@allowed", "cấm": "@forbidden", "miễn phí": "@free",
}

#: One-syllable phrases that, written without diacritics, are also other common words ("cho" is
#: "chó" (dog) and "cho" (for, let); "bo" is "bò" (beef), "bỏ" (quit) and "bố" (father)): in a text
#: without diacritics they are not looked up alone.
FOLDED_AMBIGUOUS = frozenset({"cho", "bo", "ca", "ga", "me", "ba", "ma", "mo", "cay", "heo", "ban", "con",
                              "o", "tai", "hut", "thich", "yeu", "so", "ghet", "cha", "mat", "hanh", "ong", "tra",
                              "bay",
                              "bia", "lon", "day", "cam", "doi", "dien", "vo", "be", "cao", "nang", "lop", "tuoi",
                              "hoc", "noi", "viet", "nhan", "ngu", "thuc", "len", "han", "keo"})
#: Negation words as written; their folded forms count only in a text written without diacritics.
NEGATIONS = frozenset({"không", "chưa", "chẳng", "chả", "đừng", "chớ", "ko", "hông", "k"})
ENDED = ("không còn", "ko còn", "đã bỏ", "bỏ", "ngừng", "đã ngừng", "thôi", "đã thôi", "nghỉ", "đã nghỉ",
         "cai", "đã cai", "hết", "không … nữa", "nữa")
CHANGE = ("bây giờ", "giờ thì", "giờ đây", "hiện giờ", "từ nay", "từ giờ", "từ tuần này", "từ tháng này", "mới", "vừa",
          "vừa mới", "rồi", "đổi", "chuyển", "chuyển sang", "đổi sang", "lùi", "lùi sang", "dời", "hoãn",
          "lên", "tròn", "bắt đầu", "thay", "nay")
FIX = ("hóa ra", "hoá ra", "thật ra", "thực ra", "đính chính", "nhầm")
HEDGES = ("hình như", "có lẽ", "chắc là", "chắc", "nghe nói", "không chắc", "có vẻ", "dường như")
ONLY = ("chỉ", "duy nhất")  # not "mỗi": "mỗi sáng" is every morning (a habit)
EVER = ("chưa bao giờ", "chưa từng", "không bao giờ", "chưa lần nào")
PAST = ("từng", "đã từng", "hồi trước", "trước đây", "hồi nhỏ", "ngày xưa", "lúc nhỏ", "từ nhỏ")
PLAN = ("sẽ", "định", "dự định", "kế hoạch", "mong", "ước")
EVENT_TIMES = ("hôm qua", "tối qua", "đêm qua", "sáng qua", "sáng nay", "hôm nay", "tối nay", "chiều nay",
               "trưa nay", "tuần trước", "tuần này", "tháng trước", "năm ngoái", "hôm trước", "hôm kia",
               "đêm giao thừa", "giao thừa", "tết", "lần trước", "vừa rồi", "ở tiệc", "tiệc", "đám cưới")
HABITS = ("mỗi", "hằng ngày", "hàng ngày", "hàng tuần", "hằng tuần", "ngày nào", "tối nào", "sáng nào",
          "thường xuyên", "thường hay", "luôn", "luôn luôn", "cả tuần", "suốt")
LONG_AGO = ("từ lâu", "lâu rồi", "từ lâu rồi", "bao năm nay", "nhiều năm nay")
#: Verbs of one-off events; Vietnamese has no tense, so an event needs one of these or an event time.
EVENT_VERBS = frozenset({"lỡ", "thử", "có ăn", "có uống", "đã ăn", "đã uống", "ăn thử", "uống thử", "đi", "sang",
                         "bay", "ghé"})
CLAUSE_WORDS = frozenset({"nhưng", "vì", "tuy", "mặc", "còn", "để"})
FUNCTION = frozenset(
    "là của và với cho những các một như thì mà ở tại trong này đó được sẽ đã đang rất cũng vẫn nhé ạ ơi "
    "thôi nhỉ đấy đây kia nào gì lại ra vào lên xuống đến tới bằng theo về từ khi lúc khá hơi quá nhiều "
    "lắm cả mọi hết có người dùng tôi mình em cứ".split())
SELF = frozenset({"tôi", "mình", "tớ", "tao", "em", "người dùng", "user"})
#: Honorifics and kinship words before a name ("anh Minh", "chị Hương", "bé Mai").
HONORIFICS = frozenset({"anh", "chị", "em", "cô", "chú", "bác", "ông", "bà", "bé", "cháu", "thầy", "bạn", "dì",
                        "cậu", "mợ", "thím"})
