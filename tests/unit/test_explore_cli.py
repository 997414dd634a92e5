"""`playcoder test --no-script`, `--explorer` and `--survival`: what they apply to, and what they set."""

from __future__ import annotations

from app.cli import main
from app.engine.testers import make_tester
from app.engine.testers.differential import DifferentialTester
from app.engine.testers.explore.explorer import Explorer
from app.engine.testers.offline import OfflineExplorer


def test_no_script_applies_to_differential_play_only(capsys, tmp_path):
    assert main(["test", "calculator", "--no-script", "--db", str(tmp_path / "r.db")]) == 2
    assert "--no-script applies only to --tester differential" in capsys.readouterr().err
    assert main(["test", "calculator", "--tester", "script", "--explorer", "old", "--db", str(tmp_path / "r.db")]) == 2
    assert "--explorer applies only to" in capsys.readouterr().err
    assert main(["test", "calculator", "--tester", "script", "--survival", "on", "--db", str(tmp_path / "r.db")]) == 2
    assert "--survival applies only to" in capsys.readouterr().err


def test_the_explorer_options_choose_what_plays():
    assert type(make_tester("offline")) is Explorer
    assert type(make_tester("offline", {"explorer": "old"})) is OfflineExplorer
    explore_only = DifferentialTester(reference="x", script=False)
    assert not explore_only.script and isinstance(explore_only.explorer, Explorer)
    # Differential play looks ahead in games (branches of a private copy restart nothing); no returns.
    assert not explore_only.explorer.go_explore and explore_only.explorer.survive.on
    assert not DifferentialTester(reference="x", survival=False).explorer.survive.on
    assert not make_tester("offline").survive.on and make_tester("offline", {"survival": True}).survive.on
    assert type(DifferentialTester(reference="x", explorer="old").explorer) is OfflineExplorer
