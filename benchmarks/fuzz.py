"""A seeded, time-bounded fuzzer over every ``bestie`` command's arguments, import files and context inputs.

Usage::

    .venv/bin/python benchmarks/fuzz.py [--seed 1] [--inputs 10000] [--seconds 1800] [--json]

Each input is one CLI invocation, run in-process with click's ``CliRunner`` on a real temp-file
database seeded with memories, pending proposals and messages written for this script. The commands
and their options are read from the click tree itself (every command but ``tui``, which is
interactive, and ``maintenance install|remove`` and ``digest --channel``, which write a crontab or
reach a network); each option gets a value drawn for its type: hostile text (control and bidi
characters, lone surrogates, option-like ``-x``, 50 KB words, 100-word queries, 5,000-digit numbers),
valid values, boundary numbers, and files (mutated exports, JSON / JSONL conversations, random bytes).

It counts, over all inputs:

* ``tracebacks``: an exception other than ``SystemExit`` escaped the command, or "Traceback" was printed;
* ``bad_exit``: an exit code other than 0 (ok), 1 (failure) or 2 (usage);
* ``db_changed``: a refused input (exit 1 or 2) that changed the memories, messages, events or settings.

The target is 0 for all three. Exit status 1 when any is non-zero; the first few cases are printed
so they can be replayed (``--replay N`` runs input N of the seed alone and shows its output).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import click
from click.testing import CliRunner

SKIP = {("tui",), ("mcp",), ("memory", "maintenance", "install"), ("memory", "maintenance", "remove")}
SKIP_OPTIONS = {"db", "channel", "crontab_file", "output", "design_dir"}

WORDS = ["tea", "green", "bike", "Hà", "Nội", "jazz", "records", "sister", "manager", "maps", "kites", "the", "not"]
HOSTILE = ["", " ", "-", "--", "-x", "--help", "-h", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07", "\u202eevil",
           "\u009b2J", "line\nbreak", "cr\rhere", "tab\there", "\u2028", "\ufeff", "a\udcff b", "\ud800",
           "%s%n", "'; DROP TABLE memory; --", "$(touch x)", "`id`", "0", "-1", "1e999", "nan", "inf",
           "9" * 5000, "-" + "9" * 400, "1" + "0" * 19, str(2**31), str(2**63), "0x1f", "#3", "３",
           "a" * 50_000, " ".join(f"word{i}" for i in range(120)), "@reboot", "* * * * *", "null", "true",
           "{}", "[]", '{"a": 1}', "é" * 3000, "x" * 4001, "🙂" * 500, "../../etc/passwd", "/dev/null", "."]
KINDS = ["fact", "preference", "note", "communication_preference", "a" * 65, "9kind", "ki nd", ""]
TTLS = ["7d", "2 weeks", "until friday", "tomorrow", "0d", "-3d", "999999999d", "forever", "10**9 years"]
KEYS = ["memory.writePolicy", "memory.coreTokenCap", "score.when", "owner.timezone", "context.tokenMode",
        "memory.paused", "digest.telegramApi", "memory.undoRetentionDays", "nope.key"]


def text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(HOSTILE)
    if roll < 0.7:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    if roll < 0.85:
        return "".join(chr(rng.choice([rng.randint(0, 0x7f), rng.randint(0x80, 0x2fff), rng.randint(0xd800, 0xdfff)]))
                       for _ in range(rng.randint(1, 40)))
    return rng.choice(HOSTILE) + " " + " ".join(rng.choice(WORDS) for _ in range(3))


def number(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(0, 5)), str(rng.randint(-5, 100)), "0", "-1", str(2**31 - 1), str(2**31),
                       str(2**63), "9" * rng.choice([19, 400, 5000]), "1.5", "x", "", "1e3", "0x10"])


def memory_id(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(1, 40)), str(rng.randint(1, 40)), "0", "-3", "#5", "abc", str(2**63),
                       "9" * 5000, "1.0", "", "3,4"])


def export_file(rng: random.Random, folder: Path, n: int) -> str:
    memories = [{"text": text(rng), "kind": rng.choice(KINDS), "status": rng.choice(["approved", "pending", "x"]),
                 "id": rng.choice([None, rng.randint(1, 60), 2**31, 2**62, -1, "7", True, 10**30]),
                 "created_at": rng.choice(["2026-01-01T00:00:00", "yesterday", None, 5]),
                 "confidence": rng.choice([0.5, 2, -1, "x", None, float("1e308")]),
                 "superseded_by": rng.choice([None, None, rng.randint(1, 60), 2**40]),
                 "access_count": rng.choice([0, 3, -2, 2**70]), "pinned": rng.choice([False, True, "yes"]),
                 "scope": rng.choice(["project", "global", "nowhere"]), "user": rng.choice([None, "owner", 5])}
                for _ in range(rng.randint(0, 6))]
    memories = [{k: v for k, v in m.items() if v is not None or rng.random() < 0.3} for m in memories]
    messages = [{"role": rng.choice(["user", "assistant", "robot"]), "text": text(rng),
                 "created_at": rng.choice(["2026-01-01T00:00:00", "no"])} for _ in range(rng.randint(0, 4))]
    data: object = {"format": rng.choice(["bestie-memory-export"] * 5 + ["other"]),
                    "version": rng.choice([1, 1, 1, 2, 99, "1", 10**400]), "memories": memories, "messages": messages}
    roll = rng.random()
    if roll < 0.1:
        data = rng.choice([[], "text", 3, None, {"format": "bestie-memory-export", "memories": {}}])
    body = json.dumps(data, allow_nan=True)
    if roll > 0.9:
        body = rng.choice(["[" * 50_000, body[: rng.randint(0, len(body))], body.replace("1", "9" * 5000, 1),
                           "\x00\xff garbage", '{"format": "bestie-memory-export", "version": 1, "memories": [' +
                           ",".join(['{"text": "x y"}'] * 3) + "]}"])
    path = folder / f"in{n}.json"
    path.write_text(body, encoding="utf-8", errors="surrogatepass")
    return str(path)


def conversation_file(rng: random.Random, folder: Path, n: int) -> str:
    turns = [{"role": rng.choice(["user", "assistant", "system", 7]), "content": text(rng)} for _ in range(rng.randint(0, 8))]
    roll = rng.random()
    path = folder / (f"conv{n}." + ("jsonl" if roll < 0.4 else "json"))
    if roll < 0.4:
        body = "\n".join(json.dumps(t) for t in turns) + rng.choice(["", "\n{broken", "\n" + "9" * 5000])
    elif roll < 0.8:
        body = json.dumps(rng.choice([turns, {"messages": turns}, {"turns": 3}]))
    else:
        body = rng.choice(["", "[" * 40_000, "\ufeff[]", text(rng)])
    path.write_text(body, encoding="utf-8", errors="surrogatepass")
    return str(path)


def value_for(rng: random.Random, param: click.Parameter, path: tuple[str, ...], folder: Path, n: int) -> str:
    name = param.name or ""
    kind = type(param.type).__name__
    if name == "file" or (path[-1:] == ("import",) and name == "file"):
        return export_file(rng, folder, n)
    if name in ("source", "history_src", "spec_file", "digest_file") or name in ("artifacts", "pins"):
        return rng.choice([conversation_file(rng, folder, n), str(folder / "missing.json"), str(folder), "-"])
    if kind == "MemoryIdType":
        return memory_id(rng)
    if kind in ("IntRange", "IntParamType"):
        return number(rng)
    if kind in ("FloatRange", "FloatParamType"):
        return rng.choice(["0.5", "1", "-0.1", "nan", "inf", "1e999", "x", "9" * 5000])
    if isinstance(param.type, click.Choice) and rng.random() < 0.8:
        return rng.choice(list(param.type.choices))
    if name == "kind":
        return rng.choice(KINDS)
    if name == "ttl":
        return rng.choice(TTLS + [text(rng)])
    if name == "key":
        return rng.choice(KEYS)
    return text(rng)


def invocation(rng: random.Random, commands, folder: Path, n: int) -> list[str]:
    path, cmd = rng.choice(commands)
    args = list(path)
    positional: list[str] = []
    for param in cmd.params:
        if isinstance(param, click.Option):
            if param.name in SKIP_OPTIONS or rng.random() < 0.5:
                continue
            flag = max(param.opts, key=len)
            if param.is_flag:
                args.append(flag)
            else:
                for _ in range(rng.randint(1, 2) if param.multiple else 1):
                    args += [flag, value_for(rng, param, path, folder, n)]
        elif rng.random() < 0.95:
            count = rng.randint(1, 3) if param.nargs == -1 else 1
            positional += [value_for(rng, param, path, folder, n) for _ in range(count)]
    if positional and rng.random() < 0.5:
        args.append("--")
    return args + positional


def all_commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    out = []
    for name, cmd in group.commands.items():
        sub = (*path, name)
        if sub in SKIP:
            continue
        if isinstance(cmd, click.Group):
            out.append((sub, cmd))
            out += all_commands(cmd, sub)
        else:
            out.append((sub, cmd))
    return out


def seed_database(path: Path) -> None:
    from bestie_tui.store.memory_store import MemoryStore

    store = MemoryStore(path)
    rng = random.Random(0)
    for i in range(24):
        store.add(rng.choice(["fact", "preference", "note"]),
                  f"{rng.choice(['my sister', 'the owner', 'my manager'])} likes {rng.choice(WORDS)} number {i}",
                  user=rng.choice([None, "owner", "lan"]), ttl=rng.choice([None, "7d"]))
    for i in range(8):
        store.propose(f"the owner rides a {rng.choice(['red', 'blue'])} bike on day {i}", "fact", user="owner")
    for i in range(10):
        store.log_message(rng.choice(["user", "assistant"]), f"we talked about {rng.choice(WORDS)} {i}", user="owner")
    store.close()


def fingerprint(path: Path) -> str:
    """A digest of what a user owns: memories, messages, events and settings (not caches or indexes)."""
    conn = sqlite3.connect(path)
    try:
        h = hashlib.sha256()
        for table in ("memory", "message", "event", "setting"):
            for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY 1'):  # noqa: S608 (fixed names)
                h.update(repr(row).encode("utf-8", "surrogateescape"))
        return h.hexdigest()
    finally:
        conn.close()


@dataclass
class Report:
    inputs: int = 0
    tracebacks: int = 0
    bad_exit: int = 0
    db_changed: int = 0
    exit_codes: Counter = field(default_factory=Counter)
    cases: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"inputs": self.inputs, "tracebacks": self.tracebacks, "bad_exit": self.bad_exit,
                "db_changed": self.db_changed, "exit_codes": dict(sorted(self.exit_codes.items())),
                "seconds": round(self.seconds, 1), "cases": self.cases[:20]}


def run(seed: int, inputs: int, seconds: float, *, only: int | None = None, verbose: bool = False,
        commands_under: tuple[str, ...] = ()) -> Report:
    """Fuzz ``inputs`` invocations (or for ``seconds`` after the database is seeded, whichever ends
    first) of the commands under ``commands_under`` (default: all). ``only``: run input N alone."""
    from bestie_tui.cli.main import cli

    report = Report()
    commands = [(p, c) for p, c in all_commands(cli) if p[:len(commands_under)] == commands_under]
    rng = random.Random(seed)
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {"HOME": str(base / "home"), "XDG_DATA_HOME": str(base / "data"), "XDG_CONFIG_HOME": str(base / "cfg"),
               "XDG_STATE_HOME": str(base / "state"), "XDG_CACHE_HOME": str(base / "cache"), "BESTIE_DB": None,
               "TZ": "UTC", "NO_COLOR": "1"}
        for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            Path(env[key]).mkdir()  # type: ignore[arg-type]
        template = base / "template.db"
        seed_database(template)
        start = time.monotonic()
        db = base / "work.db"
        files = base / "files"
        files.mkdir()
        cwd = os.getcwd()
        os.chdir(files)  # relative paths the fuzzer makes up land here
        try:
            for n in range(inputs):
                if time.monotonic() - start > seconds:
                    break
                args = invocation(rng, commands, files, n)
                if only is not None and n != only:
                    continue
                if n % 25 == 0 or only is not None:
                    for suffix in ("", "-wal", "-shm"):
                        Path(str(db) + suffix).unlink(missing_ok=True)
                    shutil.copy(template, db)
                before = fingerprint(db)
                result = runner.invoke(cli, ["--db", str(db), *args], input="", env=env, catch_exceptions=True)
                report.inputs += 1
                code = result.exit_code
                report.exit_codes[code] += 1
                out = result.output
                problem = None
                if result.exception is not None and not isinstance(result.exception, SystemExit):
                    report.tracebacks += 1
                    problem = f"{type(result.exception).__name__}: {str(result.exception)[:200]}"
                elif "Traceback (most recent call last)" in out:
                    report.tracebacks += 1
                    problem = "a traceback was printed"
                elif code not in (0, 1, 2):
                    report.bad_exit += 1
                    problem = f"exit code {code}"
                elif code != 0 and fingerprint(db) != before:
                    report.db_changed += 1
                    problem = f"refused (exit {code}) but the database changed"
                if problem or verbose:
                    report.cases.append({"n": n, "args": [a[:80] for a in args], "problem": problem,
                                         "output": out[-300:]})
                for leftover in files.iterdir():
                    if leftover.is_dir():
                        shutil.rmtree(leftover, ignore_errors=True)
                    else:
                        leftover.unlink(missing_ok=True)
        finally:
            os.chdir(cwd)
    report.seconds = time.monotonic() - start
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=1800.0)
    parser.add_argument("--replay", type=int, help="run only input N of the seed and show its output")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.seed, args.inputs if args.replay is None else args.replay + 1, args.seconds,
                 only=args.replay, verbose=args.replay is not None)
    data = report.to_dict()
    if args.json:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=True)
        print()
    else:
        print(f"{'inputs':>7} {'tracebacks':>10} {'bad exit':>9} {'db changed':>11}  exit codes  seconds")
        print(f"{data['inputs']:>7} {data['tracebacks']:>10} {data['bad_exit']:>9} {data['db_changed']:>11}  "
              f"{data['exit_codes']}  {data['seconds']}")
        for case in data["cases"][:10]:
            print(json.dumps(case, ensure_ascii=True))
    sys.exit(1 if report.tracebacks or report.bad_exit or report.db_changed else 0)


if __name__ == "__main__":
    main()
