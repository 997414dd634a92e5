"""The repair loop reads and patches a web page's own files: scripts, markup and styles count as the program."""

from __future__ import annotations

from app.engine.repair.diagnosis import Diagnosis
from app.engine.repair.llm_refiner import LLMRefiner
from app.engine.repair.sandbox import Workspace


def test_a_web_programs_files_are_the_program_shown_to_the_model(tmp_path):
    (tmp_path / "index.html").write_text("<canvas id=game></canvas><script src=game.js></script>")
    (tmp_path / "game.js").write_text("const speed = 3;\n")
    (tmp_path / "style.css").write_text("canvas { border: 0; }\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "board.ts").write_text("export const size: number = 4;\n")
    workspace = Workspace(tmp_path)
    assert set(workspace.files()) >= {"index.html", "game.js", "style.css", "src/board.ts"}
    refiner = LLMRefiner.__new__(LLMRefiner)
    refiner.max_context_chars = 10_000
    context = refiner.code_context(Diagnosis(run_id=None, verdict="fail", reason="crash"), workspace)
    assert "### game.js\n```javascript\n   1  const speed = 3;" in context
    assert "```typescript" in context and "```html" in context and "```css" in context
