"""Prompt templates of the Test Manager, kept as data in ``resources/prompts``.

Templates use ``string.Template`` placeholders (``$name``) so the JSON
examples inside them need no escaping.  Every template is read when the
tester is built: a missing file is an install problem reported before a run
starts, and a missing placeholder value is an engine bug (KeyError).
"""

from __future__ import annotations

from pathlib import Path
from string import Template
from typing import Any

from app.engine.errors import UserError
from app.paths import RESOURCES

PROMPTS_DIR = RESOURCES / "prompts"
TEMPLATES = ("system", "gui_analysis", "strategy_game", "strategy_app", "action_decision", "reask",
             "criterion_judgment", "verdict", "marks", "returns")


class Prompts:
    def __init__(self, folder: Path = PROMPTS_DIR) -> None:
        self.templates: dict[str, Template] = {}
        for name in TEMPLATES:
            path = folder / f"{name}.md"
            try:
                self.templates[name] = Template(path.read_text(encoding="utf-8").strip())
            except OSError:
                raise UserError(f"The prompt template {path} is missing; reinstall PlayCoder or restore the file.") \
                    from None

    def render(self, template: str, **values: Any) -> str:
        return self.templates[template].substitute(values)
