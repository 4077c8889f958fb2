"""Credentials by shape (issue 30, items 2 and 10): a secret is refused by its structure — a user and
password written as a pair, a credential cue before or after its value, a long random token after any
credential noun, a code phrased by its sender, digits that pass Luhn or IBAN however they are grouped,
an identity number after its cue — on every write path, with no value left in the SQLite file, and no
usage error prints an argument that is part of one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bestie_tui.cli.main import cli
from bestie_tui.errors import WriteRefusedError
from bestie_tui.store.gate import detect_secret, redact
from bestie_tui.store.memory_store import MemoryStore
from bestie_tui.transfer.exchange import import_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from credential_corpus import load  # noqa: E402

#: (sentence, the value that must not be kept) — one of each shape, English and Vietnamese.
SHAPES = [
    ("the garage NAS takes admin / Wq7pLm2x", "Wq7pLm2x"),
    ("old router creds: root/root", "root/root"),
    ("user: khoa.vu pass: Kv!2580ab", "Kv!2580ab"),
    ("I chose Bl4ckPepper? as the tablet password", "Bl4ckPepper?"),
    ("N0odle$oup is my Spotify password", "N0odle$oup"),
    ("the printer password is just lavender", "lavender"),
    ("my passphrase: amber falcon quiet meadow", "amber falcon quiet meadow"),
    ("our cottage Wi-Fi key is Pine&Moss77", "Pine&Moss77"),
    ("416-227 is your Zalo login code", "416-227"),
    ("your code is 774019", "774019"),
    ("the suitcase lock combo is 4-0-9", "4-0-9"),
    ("SIM PUK 83920174", "83920174"),
    ("passcode for the tablet: 118833", "118833"),
    ('{"login": "minh", "password": "Tr@m-2024"}', "Tr@m-2024"),
    ("mật khẩu wifi nhà bà là hoahong99", "hoahong99"),
    ("dùng Cam#Sanh7 làm mật khẩu laptop", "Cam#Sanh7"),
    ("mat khau zalo moi la zalo@4455", "zalo@4455"),
    ("CCCD số 036197003318", "036197003318"),
    ("SSN 078-05-1120", "078-05-1120"),
    ("passport number K7720391", "K7720391"),
    ("visa 4000 0566  5566 5556", "4000 0566  5566 5556"),
    ("IBAN GB82-WEST-1234-5698-7654-32", "GB82-WEST-1234-5698-7654-32"),
    ("webhook token is a8Ff3kQ0zP9xL2mN7bV4cR6tY1uW5sE8", "a8Ff3kQ0zP9xL2mN7bV4cR6tY1uW5sE8"),
    ("the code to the side gate is 331694", "331694"),  # long enough not to occur in a page by chance
    ("security question answer: Biscuit1998", "Biscuit1998"),
    ("SSN#: 544-21-0937", "544-21-0937"),
    ("disk recovery key 402113-771209-118834-990021-556107-663245", "402113-771209-118834-990021-556107-663245"),
    ("mật khẩu mới của tài khoản ngân hàng là Vcb!7731", "Vcb!7731"),
    ("Your Shopee code is 660912", "660912"),
    ("Signal code: 48812. Never share it", "48812"),
    ("913370 is your Lazada code", "913370"),
]
#: Look-alikes that must pass.
INNOCENT = [
    "the password for the router is on its label",
    "postal code 550000, Đà Nẵng",
    "order 2025-118-4471 ships Monday",
    "Chrome 126.0.6478.127 is installed",
    "room 1702 in tower B",
    "paid 2.350.000 đ for the tickets",
    "log in with Google/Microsoft",
    "TCP/UDP port 443",
    "discount code is BLACKFRIDAY",
    "my passport expires on 04/08/2029",
    "mã đơn hàng 88213004",
    "pin dự phòng 20000mAh",
    "your zip code is 10012",
    "my student code is 20210456",
    "Error code: 500123",
]


def test_each_shape_is_refused_on_add_and_propose_and_leaves_no_value_in_the_file(tmp_path):
    db = tmp_path / "m.db"
    store = MemoryStore(db)
    try:
        for text, value in SHAPES:
            assert detect_secret(text), text
            assert value not in redact(text)[0], text
            with pytest.raises(WriteRefusedError):
                store.add("note", text, user="an")
            with pytest.raises(WriteRefusedError):
                store.propose(text, "note", user="an")
        for text in INNOCENT:
            assert detect_secret(text) is None, text
            store.add("note", text, user="an")
        store.log_message("user", "\n".join(text for text, _ in SHAPES), user="an")
    finally:
        store.close()
    blob = b"".join(p.read_bytes() for p in (db, db.with_name(db.name + "-wal")) if p.exists()).lower()
    assert [v for _, v in SHAPES if v.lower().encode() in blob] == []


@pytest.mark.parametrize("corpus", ["credential_shapes.json", "credential_shapes_heldout.json"])
def test_the_benchmark_corpora_through_propose_add_and_import(tmp_path, corpus):
    secrets, innocents = load(Path(__file__).resolve().parents[1] / "benchmarks" / "data" / corpus)
    assert (len(secrets), len(innocents)) >= ((150, 100) if corpus == "credential_shapes.json" else (50, 30))
    # a value of three or four characters ("772") can occur in any page of bytes by chance
    values = [v for s in secrets for v in s.secrets
              if len(v) >= 5 and v.lower() not in s.text.lower().replace(v.lower(), "", 1)]
    for path in ("propose", "add", "import"):
        db = tmp_path / f"{path}.db"
        store = MemoryStore(db)
        refused = 0
        if path == "import":
            result = import_data(store, {"format": "bestie-memory-export", "version": 2,
                                         "memories": [{"text": s.text} for s in secrets], "messages": []})
            refused = sum(result.refused.values())
        else:
            for s in secrets:
                try:
                    (store.propose(s.text, "note", user="an") if path == "propose"
                     else store.add("note", s.text, user="an"))
                except WriteRefusedError:
                    refused += 1
        flagged = sum(1 for s in innocents if detect_secret(s.text))
        store.close()
        assert refused >= (0.97 if corpus == "credential_shapes.json" else 0.95) * len(secrets), (path, refused)
        assert flagged <= 0.02 * len(innocents)
        blob = db.read_bytes().lower() + (db.with_name(db.name + "-wal").read_bytes().lower()
                                          if db.with_name(db.name + "-wal").exists() else b"")
        missed = {v for s in secrets if not detect_secret(s.text) for v in s.secrets}
        assert [v for v in values if v.lower().encode() in blob and v not in missed] == []


@pytest.mark.parametrize("args, secret", [
    (["hello", "password", "is", "Hunter2Secret0!"], "Hunter2Secret0!"),
    (["password", "is", "Hunter2Secret0!"], "Hunter2Secret0!"),
    (["NAS", "login", "admin", "/", "Sa8gE6ci"], "Sa8gE6ci"),
    (["note", "AKIAZ3MQ7TR2W9XK4PLV"], "AKIAZ3MQ7TR2W9XK4PLV"),
    (["vault", "passphrase", "copper", "lantern", "river", "orbit"], "lantern"),
    (["use", "Kx9!mQpp", "as", "my", "password"], "Kx9!mQpp"),
    (["mật", "khẩu", "là", "Ha#Noi2025"], "Ha#Noi2025"),
])
def test_a_usage_error_never_prints_an_unquoted_secret(tmp_path, args, secret):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "m.db"), "memory", "add", "fact", *args])
    assert result.exit_code == 2
    assert secret not in result.output
    assert "[redacted: " in result.stderr and "goes in quotes" in result.stderr


def test_a_usage_error_still_shows_an_innocent_extra_argument(tmp_path):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "m.db"), "memory", "add", "fact", "likes", "tea"])
    assert result.exit_code == 2 and "(tea)" in result.stderr


def test_a_logged_passphrase_is_not_quoted_back_by_recall(tmp_path):
    runner, db = CliRunner(), str(tmp_path / "m.db")
    logged = runner.invoke(cli, ["--db", db, "memory", "log", "user", "the vault passphrase is copper lantern "
                                 "river orbit, keep it safe", "--user", "an"])
    assert logged.exit_code == 0
    recalled = runner.invoke(cli, ["--db", db, "memory", "recall", "what is the vault passphrase", "--user", "an"])
    assert recalled.exit_code == 0
    assert "lantern" not in recalled.output and "copper" not in recalled.output
