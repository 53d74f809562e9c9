"""The README's example and examples/python run as written, against the daemon binary."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import REPO, daemon_env

README = Path(__file__).resolve().parents[1] / "README.md"


def run(script: str, binary: str, home: Path) -> str:
    env = {**daemon_env(home), "AGENTPLEX_BIN": binary}
    answer = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr
    return answer.stdout


def test_the_readme_example_runs(binary: str, tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README.md has no python example"
    out = run(blocks[0], binary, tmp_path)
    assert "Permission granted once" in out
    assert "turn.ended" in out


def test_the_readme_processes_example_runs(binary: str, tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "connect_process_terminal" in b)
    lines = run(example, binary, tmp_path).splitlines()
    assert lines[:4] == ["3 out", "one", "two", "exited with 0"]
    # The shell's answer to `echo $((6*7))` (after its prompt, when that came first), and its
    # exit status through the terminal.
    assert re.fullmatch(r"(\S+ )?42 exit_code=7 signal=None type='exit'", lines[4]), lines[4]


def test_examples_python_run(binary: str, tmp_path: Path) -> None:
    examples = sorted((REPO / "examples" / "python").glob("*.py"))
    assert examples
    for example in examples:
        out = run(example.read_text(), binary, tmp_path)
        assert out.strip(), example
        assert os.path.basename(example)
