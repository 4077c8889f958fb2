"""Machine output is safe to print: ``--json`` and ``export`` carry C1 controls (U+009B is CSI), DEL,
line separators and bidi overrides as ``\\u`` escapes — still valid JSON — and import restores them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bestie_tui.cli.main import cli

HOSTILE = "User likes \u009b31mred\u009b0m, \u202eevil\u202c, a\u2028b, del\x7f and \u2066iso\u2069 text."
RAW = ["\u009b", "\u202e", "\u202c", "\u2028", "\x7f", "\u2066", "\u2069", "\x1b"]


def run(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), "memory", *args])


def test_json_reads_and_export_escape_controls_and_import_restores_them(tmp_path):
    db, copy, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "export.json"
    assert run(db, "add", "preference", "--", HOSTILE).exit_code == 0
    for args in (("list", "--json"), ("search", "likes", "--json"), ("inspect", "1", "--json"), ("export",)):
        result = run(db, *args)
        assert result.exit_code == 0, (args, result.output)
        assert not any(c in result.stdout for c in RAW), args
        assert "\\u009b" in result.stdout and "\\u202e" in result.stdout, args
        json.loads(result.stdout)  # still valid JSON
    assert run(db, "export", "--output", str(out)).exit_code == 0
    assert not any(c in out.read_text(encoding="utf-8") for c in RAW)
    assert run(copy, "status").exit_code == 0
    imported = run(copy, "import", str(out))
    assert imported.exit_code == 0, imported.output
    [record] = json.loads(run(copy, "list", "--json").stdout)
    assert record["text"] == HOSTILE
