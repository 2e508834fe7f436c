"""The built wheel carries everything the service reads: installed into a fresh virtual environment and
started in an empty folder (no checkout around it), ``streamtwin serve`` serves the page.

The environment sees the machine's packages (``--system-site-packages``) so nothing is downloaded; the
wheel itself is installed into it with ``--no-deps``, and the test checks that the server ran from there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "streamtwin", source / "streamtwin", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(source)],
        check=True, capture_output=True, timeout=300,
    )
    (built,) = out.glob("streamtwin-*.whl")
    return built


def test_the_wheel_holds_the_page_and_the_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    page = {path.relative_to(ROOT).as_posix() for path in (ROOT / "streamtwin" / "web").iterdir()}
    assert page and page <= names, sorted(page - names)
    assert "streamtwin/py.typed" in names
    assert not any(name.startswith(("pipeline/", "tests/", "web/")) for name in names)


@pytest.mark.model
@pytest.mark.network
def test_serve_from_an_installed_wheel_in_an_empty_folder_serves_the_page(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--force-reinstall", str(wheel)],
        check=True, capture_output=True, timeout=300,
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(STREAMTWIN_LLM="none", STREAMTWIN_ASR_MODEL="tiny.en", HF_HUB_OFFLINE="1")
    server = subprocess.Popen(
        [str(venv / "bin" / "streamtwin"), "-v", "serve", "--port", "0"],
        cwd=empty, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        port = None
        seen = []
        assert server.stderr is not None
        for line in server.stderr:
            seen.append(line)
            if match := re.search(r"serving http://127\.0\.0\.1:(\d+)", line):
                port = int(match.group(1))
                break
        assert port is not None, "".join(seen)
        base = f"http://127.0.0.1:{port}"
        page = urllib.request.urlopen(f"{base}/", timeout=10).read().decode()
        script = urllib.request.urlopen(f"{base}/app.js", timeout=10).read().decode()
        assert page == (ROOT / "streamtwin" / "web" / "index.html").read_text()
        assert script == (ROOT / "streamtwin" / "web" / "app.js").read_text()
        where = subprocess.run(
            [str(python), "-c", "import streamtwin; print(streamtwin.__file__)"],
            cwd=empty, env=env, capture_output=True, text=True, check=True,
        ).stdout
        assert where.startswith(str(venv)), where
    finally:
        server.terminate()
        server.wait(timeout=30)
