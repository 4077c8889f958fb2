"""The write gate: time on 1 MB texts of many shapes, and the corpus figures per path.

Usage::

    .venv/bin/python benchmarks/gate.py [--size 1000000] [--repeat 3] [--baseline-timeout 10] [--json]
    .venv/bin/python benchmarks/gate.py --shapes [--baseline TREE] [--json]

``--shapes`` runs only the credential-shape corpus (below); ``--baseline TREE`` runs the same corpus
against the source tree TREE (a worktree of an older commit) in a subprocess, side by side.

Timing. Each shape is a text of ``--size`` characters built to stress one family of rules (plain
prose in English and Vietnamese, one endless token, a keyword repeated, digits, URLs, key headers…).
For each, the best of ``--repeat`` runs of ``check_write(text, path="propose", …)`` on a real temp
store (every rule: secrets, injected blocks, venting, someone else, contact details) and of
``redact(text)``, as CPU seconds of this process (``time.process_time``: the machine is shared, and
wall time would measure the neighbours) and wall seconds. Beside it, the baseline: the secret guard
before the gate (``detect_secret`` of commit ``d7218df``, read with ``git show``), run in a
subprocess and stopped after ``--baseline-timeout`` seconds.

Corpus. ``tests/data/gate_corpus.json`` expanded by ``tests/gate_corpus.py`` (secrets generated
from a fixed seed), through each path on a fresh store: how many secret sentences each path refused
(log_message: redacted) and how many innocent look-alikes it refused. Then two outside corpora of
innocent text, read by path from ../shared/data (CC BY-NC 4.0, not in the repository): the unique
MSC/PersonaChat persona facts and the LoCoMo dialogue turns, flagged by the gate and by the baseline.

Credential shapes (issue 30). ``benchmarks/data/credential_shapes.json`` (written for this project:
user/password pairs, passwords in free wording, passphrases, PINs and codes phrased by a sender,
tokens after a credential noun, vendor prefixes, JSON fields, private-key bodies, cards and IBANs
grouped any way, national identity numbers; innocents that look like them) and the held-out set
``credential_shapes_heldout.json`` (written after the rules, figures reported apart), each through
``propose``, ``add``, ``import`` and ``log_message``: secrets refused (log: redacted), innocents
refused, and how many secret values (of five characters or more: a three-digit code is in some page
of bytes by chance) the SQLite file (with its ``-wal``) holds afterwards, read as bytes,
case-insensitively (the search index lower-cases words).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from retrieval_common import table  # noqa: E402

BASELINE_COMMIT = "d7218df"
SHARED = ROOT.parent / "shared" / "data"

#: name → (unit repeated to the size, or a builder of the whole text)
SHAPES: dict[str, str] = {
    "prose (en)": "Caroline said she went to the LGBTQ support group yesterday and it was powerful. ",
    "prose (vi)": "Mình thích uống cà phê sữa đá ở Hà Nội vào buổi sáng, nhất là khi trời lạnh. ",
    "prose with emoji (vi)": "Mình 😀 thích 🍜 phở. ",
    "one endless token": "a",
    "dotted word (the 79 s URL case)": "a.",
    "word characters": "abc_def-ghi.",
    "'password ' repeated": "password ",
    "'password aN ' counting": "{n}",
    "'mật khẩu là ' repeated": "mật khẩu là ",
    "'a://b:' repeated": "a://b:",
    "'x@' repeated": "x@",
    "'1 ' repeated": "1 ",
    "'4 ' repeated (Visa prefix)": "4 ",
    "one digit run": "1",
    "'-----BEGIN RSA PRIVATE KEY-----' repeated": "-----BEGIN RSA PRIVATE KEY-----",
    "'PRIVATE KEY ' repeated": "PRIVATE KEY ",
    "'eyJ' then one token": "{jwt}",
    "'A_PASSWORD=' repeated": "A_PASSWORD=",
    "'a=b ' repeated": "a=b ",
    "'account number ' repeated": "account number ",
    "'otp code ' repeated": "otp code ",
    "'[USER_INFO' repeated": "[USER_INFO",
    "'+1 2 3 4 ' repeated": "+1 2 3 4 ",
    "'DE12 ' repeated (IBAN-like)": "DE12 ",
}


def build(unit: str, size: int) -> str:
    if unit == "{n}":
        return "".join(f"password a{i} " for i in range(size // 8))[:size]
    if unit == "{jwt}":
        return ("eyJ" + "a" * size)[:size]
    return (unit * (size // len(unit) + 1))[:size]


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of ``repeat`` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def baseline_source() -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASELINE_COMMIT}:bestie_tui/store/secrets.py"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def baseline_time(source: str, unit: str, size: int, timeout: float) -> float | None:
    """CPU seconds of the baseline ``detect_secret`` on one shape, or ``None`` past ``timeout``."""
    code = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
        from gate import build
        namespace = {{}}
        exec(compile(open({source!r}).read(), "baseline_secrets", "exec"), namespace)
        text = build({unit!r}, {size})
        t = time.process_time(); namespace["detect_secret"](text); print(time.process_time() - t)
    """)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return float(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def timing(size: int, repeat: int, timeout: float, workdir: Path) -> list[dict]:
    from bestie_tui.store.gate import check_write, redact
    from bestie_tui.store.gate.fold import view
    from bestie_tui.store.memory_store import MemoryStore

    store = MemoryStore(workdir / "timing.db")
    source = baseline_source()
    source_file = None
    if source:
        source_file = workdir / "baseline_secrets.py"
        source_file.write_text(source, encoding="utf-8")
    rows = []
    for name, unit in SHAPES.items():
        text = build(unit, size)

        def gate(text=text):
            view.cache_clear()  # a cold text every run: the fold is part of the cost
            check_write(text, path="propose", store=store, user="an")

        def red(text=text):
            view.cache_clear()
            redact(text)
        g_cpu, g_wall = best(gate, repeat)
        r_cpu, _ = best(red, repeat)
        base = baseline_time(str(source_file), unit, size, timeout) if source_file else None
        rows.append({"shape": name, "chars": len(text), "gate_cpu_s": round(g_cpu, 3), "gate_wall_s": round(g_wall, 3),
                     "redact_cpu_s": round(r_cpu, 3),
                     "baseline_cpu_s": None if base is None else round(base, 3),
                     "baseline_note": "" if base is not None else (f"> {timeout:g} s (stopped)" if source_file
                                                                   else "baseline source not found")})
    store.close()
    return rows


def corpus_figures(workdir: Path) -> dict:
    from gate_corpus import load

    from bestie_tui.errors import WriteRefusedError
    from bestie_tui.hygiene.plan_apply import apply_plan
    from bestie_tui.hygiene.plan_build import build_cleanup_plan
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.store.models import Memory
    from bestie_tui.transfer.exchange import import_data

    secrets, innocents = load()

    def fresh(name: str) -> MemoryStore:
        return MemoryStore(workdir / f"{name}.db")

    def count(write, sentences) -> int:
        refused = 0
        for s in sentences:
            try:
                write(s.text)
            except WriteRefusedError:
                refused += 1
        return refused

    def propose(store):
        return lambda t: store.propose(t, "note", user="an")

    def add(store):
        return lambda t: store.add("note", t, user="an")

    def edit(store):
        m = store.add("preference", "Likes green tea", user="an")
        return lambda t: store.edit(m.id, t)

    def approve(store):
        def write(t):
            m = store.propose("Likes jasmine tea " + "i" * (Memory.select().count() + 1), "preference", user="an")
            return store.approve(m.memory.id, text=t)
        return write

    def cleanup(store):
        for t in ("User prefers Vietnamese.", "User wants Vietnamese-first.",
                  "Always answer in Vietnamese with diacritics."):
            store.add("communication_preference", t)
        plan = build_cleanup_plan(store)
        [merge] = [o for o in plan.operations if o.action == "merge"]

        def write(t):
            merge.text = t
            return apply_plan(store, plan, yes=True, selected=[merge.key])
        return write

    paths: dict[str, tuple[int, int]] = {}
    for name, make in (("propose", propose), ("add", add), ("edit", edit), ("approve --text", approve),
                       ("cleanup merged text", cleanup)):
        store = fresh(name.split()[0] + "-s")
        s_ref = count(make(store), secrets)
        store.close()
        store = fresh(name.split()[0] + "-i")
        i_ref = count(make(store), innocents)
        store.close()
        paths[name] = (s_ref, i_ref)
    refused = []
    for name, sentences in (("import-s", secrets), ("import-i", innocents)):
        store = fresh(name)
        result = import_data(store, {"format": "bestie-memory-export", "version": 2,
                                     "memories": [{"text": s.text} for s in sentences], "messages": []})
        refused.append(sum(result.refused.values()))
        store.close()
    paths["import"] = (refused[0], refused[1])
    store = fresh("log")
    s_red = sum(1 for s in secrets if s.secret not in store.log_message("user", s.text).text)
    i_red = sum(1 for s in innocents if "[redacted: " in store.log_message("user", s.text).text)
    store.close()
    paths["log_message (redacted)"] = (s_red, i_red)

    source = baseline_source()
    base = None
    if source:
        namespace: dict = {}
        exec(compile(source, "baseline_secrets", "exec"), namespace)
        old = namespace["detect_secret"]
        base = (sum(1 for s in secrets if old(s.text)), sum(1 for s in innocents if old(s.text)))
    return {"secrets": len(secrets), "innocents": len(innocents), "paths": paths, "baseline": base,
            "outside": outside_corpora(namespace["detect_secret"] if source else None)}


def outside_corpora(old) -> list[dict]:
    from bestie_tui.store.gate import detect_secret

    out = []
    personas = SHARED / "msc_personas_all.json"
    if personas.exists():
        data = json.loads(personas.read_text(encoding="utf-8"))
        facts = sorted({f for split in data.values() for pair in split for k in ("Speaker 1", "Speaker 2")
                        for f in pair.get(k, [])})
        out.append(("MSC persona facts (unique)", facts))
    locomo = SHARED / "locomo_dev.json"
    if locomo.exists():
        turns = [t["text"] for conv in json.loads(locomo.read_text(encoding="utf-8"))
                 for k, v in conv["conversation"].items() if k.startswith("session_") and isinstance(v, list)
                 for t in v]
        out.append(("LoCoMo dialogue turns", turns))
    rows = []
    for name, texts in out:
        rows.append({"corpus": name, "texts": len(texts), "gate_flagged": sum(1 for t in texts if detect_secret(t)),
                     "baseline_flagged": None if old is None else sum(1 for t in texts if old(t))})
    return rows


def shape_figures(workdir: Path, corpus: Path) -> dict:
    """Per write path: secrets refused, innocents refused, secret values found in the database
    file's bytes. Runs against whichever ``bestie_tui`` is first on ``sys.path``."""
    from credential_corpus import load

    from bestie_tui.errors import WriteRefusedError
    from bestie_tui.store.memory_store import MemoryStore
    from bestie_tui.transfer.exchange import import_data

    secrets, innocents = load(corpus)
    # values of five characters or more: a three-digit code occurs in a page of bytes by chance
    # and not also written elsewhere in its sentence ("admin / admin": the user name stays)
    values = [v for s in secrets for v in s.secrets
              if len(v) >= 5 and v.lower() not in s.text.lower().replace(v.lower(), "", 1)]

    def on_disk(db: Path) -> int:
        blob = b"".join(p.read_bytes() for p in (db, db.with_name(db.name + "-wal")) if p.exists()).lower()
        return sum(1 for v in values if v.lower().encode("utf-8") in blob)

    def through(path: str, sentences, name: str) -> tuple[int, int]:
        db = workdir / f"shapes-{corpus.stem}-{name}.db"
        store = MemoryStore(db)
        refused = 0
        if path == "import":
            result = import_data(store, {"format": "bestie-memory-export", "version": 2,
                                         "memories": [{"text": s.text} for s in sentences], "messages": []})
            refused = sum(result.refused.values())
        elif path == "log_message":
            for s in sentences:
                text = store.log_message("user", s.text, user="an").text
                refused += (all(v not in text for v in s.secrets) if s.secrets else "[redacted: " in text)
        else:
            for s in sentences:
                try:
                    if path == "propose":
                        store.propose(s.text, "note", user="an")
                    else:
                        store.add("note", s.text, user="an")
                except WriteRefusedError:
                    refused += 1
        store.close()
        return refused, on_disk(db)

    rows = {}
    for path in ("propose", "add", "import", "log_message"):
        s_ref, s_disk = through(path, secrets, path + "-s")
        i_ref, _ = through(path, innocents, path + "-i")
        rows[path] = {"secrets_refused": s_ref, "innocents_refused": i_ref, "values_on_disk": s_disk}
    from bestie_tui.store.gate import detect_secret

    missed = [s.text for s in secrets if not detect_secret(s.text)]
    flagged = [s.text for s in innocents if detect_secret(s.text)]
    kinds: dict[str, list[int]] = {}
    for s in secrets:
        k = kinds.setdefault(s.kind, [0, 0])
        k[0] += bool(detect_secret(s.text))
        k[1] += 1
    return {"corpus": corpus.name, "secrets": len(secrets), "innocents": len(innocents), "values": len(values),
            "paths": rows, "by_kind": kinds, "missed": missed, "innocents_flagged": flagged}


def shapes_run(tree: Path | None) -> dict:
    """The credential-shape figures of both corpora for ``tree`` (``None``: this tree), the other
    tree's run in a subprocess with its source first on ``sys.path``."""
    from credential_corpus import CORPUS, HELD_OUT

    if tree is None:
        with tempfile.TemporaryDirectory() as tmp:
            return {c.name: shape_figures(Path(tmp), c) for c in (CORPUS, HELD_OUT) if c.exists()}
    code = (f"import sys, json; sys.path[:0] = [{str(tree)!r}, {str(Path(__file__).resolve().parent)!r}]\n"
            "import gate; print(json.dumps(gate.shapes_run(None)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tree), timeout=3600)
    if out.returncode:
        raise SystemExit(f"the baseline run failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def print_shapes(mine: dict, base: dict | None, tree: Path | None) -> None:
    for name, fig in mine.items():
        s, i = fig["secrets"], fig["innocents"]
        other = (base or {}).get(name)
        rows = []
        for path, r in fig["paths"].items():
            row = [path, f"{r['secrets_refused']}/{s} ({r['secrets_refused'] / s:.1%})",
                   f"{r['innocents_refused']}/{i} ({r['innocents_refused'] / i:.1%})", str(r["values_on_disk"])]
            if other:
                b = other["paths"][path]
                row += [f"{b['secrets_refused']}/{s} ({b['secrets_refused'] / s:.1%})",
                        f"{b['innocents_refused']}/{i} ({b['innocents_refused'] / i:.1%})", str(b["values_on_disk"])]
            rows.append(row)
        head = ["path", "secrets refused", "innocents refused", "values on disk"]
        if other:
            head += ["baseline secrets", "baseline innocents", "baseline on disk"]
        print(table(f"Credential shapes: {name}, {s} secrets ({fig['values']} values), {i} innocents"
                    + (f"; baseline {tree}" if other else ""), head, rows))
        print(table("  by kind (detect_secret)", ["kind", "found"] + (["baseline"] if other else []),
                    [[k, f"{a}/{n}"] + ([f"{other['by_kind'].get(k, [0, n])[0]}/{n}"] if other else [])
                     for k, (a, n) in fig["by_kind"].items()]))
        for text in fig["missed"]:
            print("  missed:", text[:100].replace("\n", "\\n"))
        for text in fig["innocents_flagged"]:
            print("  innocent refused:", text[:100])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per text (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-timeout", type=float, default=10.0, help="seconds before the baseline is stopped")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--shapes", action="store_true", help="run only the credential-shape corpora")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="with --shapes: a source tree (worktree of an older commit) run side by side")
    args = parser.parse_args()
    if args.shapes:
        mine = shapes_run(None)
        base = shapes_run(args.baseline.resolve()) if args.baseline else None
        if args.json:
            print(json.dumps({"shapes": mine, "baseline": base}, ensure_ascii=False, indent=2))
        else:
            print_shapes(mine, base, args.baseline)
        return
    with tempfile.TemporaryDirectory() as tmp:
        rows = timing(args.size, args.repeat, args.baseline_timeout, Path(tmp))
        figures = corpus_figures(Path(tmp))
    if args.json:
        print(json.dumps({"timing": rows, "corpus": figures}, ensure_ascii=False, indent=2))
        return
    print(table(f"Gate time on {args.size:,}-character texts (best of {args.repeat}; CPU s of this process)",
                ["shape", "check_write CPU s", "wall s", "redact CPU s", f"baseline {BASELINE_COMMIT} CPU s"],
                [[r["shape"], f"{r['gate_cpu_s']:.3f}", f"{r['gate_wall_s']:.3f}", f"{r['redact_cpu_s']:.3f}",
                  f"{r['baseline_cpu_s']:.3f}" if r["baseline_cpu_s"] is not None else r["baseline_note"]]
                 for r in rows]))
    worst = max(rows, key=lambda r: r["gate_cpu_s"])
    print(f"\nslowest shape: {worst['shape']} at {worst['gate_cpu_s']:.3f} CPU s; "
          f"{sum(r['gate_cpu_s'] < 0.5 for r in rows)} of {len(rows)} shapes under 0.5 s")
    s, i = figures["secrets"], figures["innocents"]
    print(table(f"Corpus: {s} secret sentences, {i} innocent look-alikes (tests/data/gate_corpus.json)",
                ["path", "secrets refused", "innocents refused"],
                [[p, f"{a}/{s} ({a / s:.1%})", f"{b}/{i} ({b / i:.1%})"] for p, (a, b) in figures["paths"].items()]
                + ([[f"baseline {BASELINE_COMMIT} detect_secret", f"{figures['baseline'][0]}/{s} "
                     f"({figures['baseline'][0] / s:.1%})", f"{figures['baseline'][1]}/{i} "
                     f"({figures['baseline'][1] / i:.1%})"]] if figures["baseline"] else [])))
    if figures["outside"]:
        print(table("Outside innocent text (../shared/data, CC BY-NC 4.0): texts flagged as holding a secret",
                    ["corpus", "texts", "gate", f"baseline {BASELINE_COMMIT}"],
                    [[r["corpus"], f"{r['texts']:,}", str(r["gate_flagged"]),
                      "-" if r["baseline_flagged"] is None else str(r["baseline_flagged"])] for r in figures["outside"]]))


if __name__ == "__main__":
    main()
