"""What the fact reader knows about the world: which things belong to which category, which brand
names which kind of device or tool, and which lasting states exclude what.

* ``CATEGORIES``: concept → the categories it belongs to (beef is red meat and meat; wine is
  alcohol). A claim about a category covers its members: "never touches alcohol" is about wine.
* ``BRANDS``: a brand or product name (folded, as one or two words) → the tool or device kind it
  names, so "moved over to Safari" is about the browser and "đổi sang iPhone 15" about the phone.
  General knowledge only: a brand is here because people name it, never because a labelled pair does.
* ``EXCLUDES``: a lasting state → the categories whose positive mention contradicts it (an only
  child has no sister; a vegan eats no cheese).
* ``IMPLIES``: a concept whose mention implies a state value ("my wife" → married).
"""

from __future__ import annotations

from functools import lru_cache

CATEGORIES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    "beef": {"red meat", "meat"}, "pork": {"red meat", "meat"}, "lamb": {"red meat", "meat"},
    "red meat": {"meat"}, "chicken": {"meat", "poultry"}, "meat": set(), "fish": {"fish", "seafood"},
    "shrimp": {"seafood", "shellfish"}, "shellfish": {"seafood"}, "seafood": set(),
    "beer": {"alcohol"}, "wine": {"alcohol"}, "spirits": {"alcohol"},
    "cocktail": {"alcohol"}, "coffee": {"caffeine"}, "green tea": {"tea"},
    "sweets": {"sugar"}, "cake": {"sweets", "sugar"}, "candy": {"sweets", "sugar"}, "dessert": {"sweets", "sugar"},
    "chocolate": {"sweets", "sugar"}, "ice cream": {"sweets", "sugar", "dairy"}, "soda": {"sugar"},
    "milk": {"dairy", "lactose"}, "dairy": {"lactose", "animal product"},
    "egg": {"animal product"}, "gluten": set(), "fried": set(), "spicy": set(), "onion": set(), "tea": set(),
    "smoke": set(), "abroad": set(), "flight": {"travel"},
    "sister": {"sibling"}, "brother": {"sibling"}, "wife": {"spouse"}, "husband": {"spouse"},
    "son": {"child"}, "daughter": {"child"}, "dog": {"pet", "animal"}, "cat": {"pet", "animal"},
    "goldfish": {"pet", "animal"}, "hamster": {"pet", "animal"}, "parrot": {"pet", "animal"},
    "rabbit": {"pet", "animal"}, "golden retriever": {"dog", "pet", "animal"},
    "taxi": {"car ride"}, "surgery": {"medical"}, "hospital": {"medical"},
    "country": {"abroad"},
    "english": {"language"}, "vietnamese": {"language"}, "french": {"language"}, "spanish": {"language"},
    "german": {"language"}, "chinese": {"language"}, "japanese": {"language"}, "korean": {"language"},
    "thai": {"language"}, "italian": {"language"},
    "saturday": {"weekend"}, "sunday": {"weekend"},
    # a few capitals and big cities → their country, so "never been to Japan" meets "visited Tokyo"
    "tokyo": {"japan", "abroad"}, "osaka": {"japan", "abroad"}, "kyoto": {"japan", "abroad"},
    "seoul": {"korea", "abroad"}, "busan": {"korea", "abroad"}, "bangkok": {"thailand", "abroad"},
    "paris": {"france", "abroad"}, "london": {"uk", "abroad"}, "berlin": {"germany", "abroad"},
    "beijing": {"china", "abroad"}, "shanghai": {"china", "abroad"}, "sydney": {"australia", "abroad"},
    "lima": {"peru", "abroad"}, "reykjavik": {"iceland", "abroad"}, "singapor": {"singapore", "abroad"},
    "japan": {"abroad"}, "korea": {"abroad"}, "thailand": {"abroad"}, "france": {"abroad"},
    "germani": {"abroad"}, "china": {"abroad"}, "peru": {"abroad"}, "iceland": {"abroad"},
    "sibling": set(),
}.items()}

#: Brand or product (folded words) → kind. Two-word names are matched before one-word names.
BRANDS: dict[str, str] = {
    # phones
    "iphone": "phone", "redmi": "phone", "vivo": "phone", "realme": "phone", "huawei": "phone", "oneplus": "phone",
    "motorola": "phone", "bphone": "phone", "blackberry": "phone", "samsung": "phone",
    # computers
    "thinkpad": "laptop", "xps": "laptop", "zenbook": "laptop", "vivobook": "laptop", "chromebook": "laptop",
    "surface": "laptop", "ideapad": "laptop", "lenovo": "computer", "asus": "computer", "acer": "computer",
    "hp": "computer", "imac": "computer", "gaming pc": "computer",
    "ipad": "tablet", "kindle": "reader", "apple watch": "watch", "garmin": "watch", "fitbit": "watch",
    # browsers and editors
    "safari": "browser", "edge": "browser", "brave": "browser", "opera": "browser", "vivaldi": "browser",
    "arc": "browser", "coc coc": "browser",
    "vscode": "editor", "visual studio": "editor", "intellij": "editor", "vim": "editor", "neovim": "editor",
    "emacs": "editor", "sublime": "editor", "xcode": "editor", "cursor": "editor", "webstorm": "editor",
    "android studio": "editor", "notepad": "editor",
    # storage, chat, trackers, databases, social, games
    "onedrive": "storage", "icloud": "storage", "box": "storage",
    "microsoft teams": "chat", "discord": "chat", "messenger": "chat", "viber": "chat",
    "trello": "tracker", "asana": "tracker", "linear": "tracker", "clickup": "tracker",
    "obsidian": "notes", "evernote": "notes",
    "postgres": "database", "sqlite": "database", "redis": "database", "oracle": "database",
    "facebook": "social", "instagram": "social", "twitter": "social", "threads": "social",
    "linkedin": "social", "youtube": "video",
    "league of legends": "game", "dota": "game", "valorant": "game", "minecraft": "game", "fortnite": "game",
    # cars
    "toyota": "car", "honda": "car", "kia": "car", "hyundai": "car", "ford": "car", "bmw": "car", "tesla": "car",
    "mercedes": "car", "audi": "car", "vespa": "motorbike",
    # frameworks and languages of a team (one per app)
    "react native": "framework", "react": "framework", "swift": "language", "typescript": "language",
    "java": "language", "golang": "language",
}

#: Countries and big foreign cities, for "never been abroad": English names (folded) and Vietnamese
#: names as written (folded, "Mỹ" would be the English "my"). Vietnam is home (the assistant speaks
#: Vietnamese with its owner), so it is not abroad.
COUNTRIES = frozenset({
    "korea", "south korea", "japan", "singapore", "thailand", "china", "usa", "america", "the us", "france",
    "germany", "uk", "england", "australia", "canada", "laos", "cambodia", "malaysia", "indonesia",
    "philippines", "india", "italy", "spain", "taiwan", "hong kong", "russia", "peru", "iceland", "mexico",
    "brazil", "egypt", "turkey", "netherlands", "switzerland", "tokyo", "seoul", "bangkok", "paris", "london",
    "new york", "beijing", "shanghai", "sydney", "berlin",
})
COUNTRIES_VI = frozenset({
    "hàn quốc", "nhật", "nhật bản", "trung quốc", "thái lan", "mỹ", "pháp", "đức", "anh quốc", "úc", "lào",
    "campuchia", "đài loan", "hồng kông", "nga", "singapore", "hàn", "châu âu", "nước ngoài",
})

#: Lasting state → categories a positive mention of which contradicts it.
EXCLUDES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    "vegetarian": {"meat", "red meat", "beef", "pork", "chicken", "lamb", "fish", "seafood", "shrimp"},
    "vegan": {"meat", "red meat", "beef", "pork", "chicken", "lamb", "fish", "seafood", "shrimp", "dairy",
              "milk", "egg", "animal product"},
    "pescatarian": {"meat", "red meat", "beef", "pork", "chicken", "lamb"},
    "lactose intolerance": {"milk", "dairy", "lactose"},
    "only child": {"sibling", "sister", "brother"},
    "sugar free": {"sugar", "sweets"},
}.items()}

#: A mention of the key implies the attribute value (attribute, value, polarity).
IMPLIES: dict[str, tuple[str, str, int]] = {
    "wife": ("marital", "married", 1), "husband": ("marital", "married", 1),
    "sister": ("relation", "related", 1), "brother": ("relation", "related", 1),
    "sibling": ("relation", "related", 1), "mother": ("relation", "related", 1),
    "father": ("relation", "related", 1), "cousin": ("relation", "related", 1),
}


#: Every concept the tables put in a category, and every category: what an exclusion can be about.
KNOWN_CATEGORIES = frozenset(CATEGORIES) | frozenset(c for v in CATEGORIES.values() for c in v) | frozenset(
    c for v in EXCLUDES.values() for c in v)


@lru_cache(maxsize=65536)
def categories_of(concept: str) -> frozenset[str]:
    """The concept itself and every category it belongs to (two levels)."""
    direct = CATEGORIES.get(concept, frozenset())
    out = {concept} | set(direct)
    for c in direct:
        out |= CATEGORIES.get(c, frozenset())
    return frozenset(out)


__all__ = ["KNOWN_CATEGORIES", "CATEGORIES", "BRANDS", "COUNTRIES", "COUNTRIES_VI", "EXCLUDES", "IMPLIES", "categories_of"]
