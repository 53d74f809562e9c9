"""The README's example and examples/python run as written, against the daemon binary, and
the Python examples of the docs pages that show the SDK (``DOC_PAGES``) type-check (mypy
--strict)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from mypy import api as mypy

from .conftest import REPO, daemon_env

README = Path(__file__).resolve().parents[1] / "README.md"
# The pages under docs/ whose ```python blocks use the SDK.
DOC_PAGES = ("sdk-python.md", "quickstart.md")


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


def test_the_readme_moves_example_runs(binary: str, tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "move_session" in b)
    lines = run(example, binary, tmp_path).splitlines()
    assert lines[0] == "demo 10 ['MOCK_API_KEY']"
    assert lines[1].startswith("demo-copy [] ") and "hi again" in lines[1]


def test_examples_python_run(binary: str, tmp_path: Path) -> None:
    examples = sorted((REPO / "examples" / "python").glob("*.py"))
    assert examples
    for example in examples:
        out = run(example.read_text(), binary, tmp_path)
        assert out.strip(), example
        assert os.path.basename(example)


def test_the_sdk_page_examples_type_check(tmp_path: Path) -> None:
    """Each ```python block of the ``DOC_PAGES`` becomes a module, with ``client`` and
    ``session`` declared when the block does not make its own, and mypy checks them all."""
    blocks: list[str] = []
    for page in DOC_PAGES:
        found = re.findall(r"```python\n(.*?)```", (REPO / "docs" / page).read_text(), re.S)
        assert found, f"docs/{page} has no python example"
        blocks += found
    assert len(blocks) > 10
    files = []
    for number, block in enumerate(blocks, 1):

        def declares(name: str, code: str = block) -> bool:
            return re.search(rf"^{name}\s*=|as {name}\b|\b{name}\s*=", code, re.M) is not None

        prelude = [
            "from agentplex import Agentplex, Session, models",
            "" if declares("client") else "client: Agentplex",
            "" if declares("session") else "session: Session",
        ]
        path = tmp_path / f"sdk_python_example_{number:02}.py"
        path.write_text("\n".join(prelude) + "\n" + textwrap.dedent(block))
        files.append(str(path))
    out, err, status = mypy.run(["--config-file", str(REPO / "sdks" / "python" / "pyproject.toml"), *files])
    assert status == 0, out + err
