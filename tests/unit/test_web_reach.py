"""Whether a web mutant's line ran, from a run's coverage rows and tsc's source maps (benchmark/web_reach.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from app.engine.trace import coverage as coverage_sql
from benchmark import web_reach


def test_coverage_rows_by_url_or_path_name_the_program_file(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY)")
        coverage_sql.create_tables(conn)
        conn.execute("INSERT INTO runs (id) VALUES (1), (2)")
        coverage_sql.add(conn, 1, 0, {"http://127.0.0.1:41234/js/app.js?body=1": [3, 4, 5]})
        coverage_sql.add(conn, 1, 2, {"main.js": [10]})
    cov = web_reach.run_coverage(db, 1)
    assert cov is not None
    assert web_reach.reached(cov, {"js/app.js": [4]}) is True
    assert web_reach.reached(cov, {"js/app.js": [9]}) is False
    assert web_reach.reached(cov, {"main.js": [10]}) is True
    assert web_reach.reached(cov, {"app.js": [4]}) is True, "a path ending in the file's name"
    assert web_reach.reached(cov, {"pp.js": [4]}) is False, "not a bare suffix of another name"
    assert web_reach.run_coverage(db, 2) is None, "no coverage recorded: nothing tells"
    assert web_reach.reached(None, {"main.js": [1]}) is None


def test_source_map_lines_decode_vlq() -> None:
    # "AAAA;AACA,IAAI;AAEJ": line 1 <- src line 1; line 2 <- src line 2 (two segments); line 3 <- src line 4.
    text = json.dumps({"version": 3, "sources": ["../src/a.ts"], "mappings": "AAAA;AACA,IAAI;AAEJ"})
    got = web_reach.source_map_lines(text)
    assert got == {("../src/a.ts", 1): {1}, ("../src/a.ts", 2): {2}, ("../src/a.ts", 4): {3}}


def test_ts_lines_found_through_the_build_maps(tmp_path: Path) -> None:
    (tmp_path / "calc.js.map").write_text(json.dumps({"version": 3, "sources": ["../src/calc.ts"],
                                                      "mappings": "AAAA;AACA;AACA"}))
    assert web_reach.ts_to_js_lines(tmp_path, "dist", "src/calc.ts", 2) == {"dist/calc.js": [2]}
    assert web_reach.ts_to_js_lines(tmp_path, "dist", "src/main.ts", 2) == {}
