"""qgen as a user installs it: the wheel built from this checkout, pip-installed into a fresh virtualenv.

Offline: the venv is made without pip and without network; the wheel goes in with `pip --python VENV
install --no-deps --no-index`, and the venv sees qgen's dependencies (Jinja2, pydantic, alembic,
psycopg, ...) through a .pth line naming the test venv's site-packages. A path listed in a .pth file is
not itself scanned for .pth files, so the checkout's editable qgen stays out of sight: `import qgen`
in the new venv finds only the installed wheel. pip would also have written the console scripts of
the dependencies it installed; `alembic`'s is written here the same way, from its entry point.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from tests.conftest import ROOT, require

DISTRIBUTION = "qgen-queues"   # pyproject's [project] name: free on PyPI, where `qgen` is someone else's


def build_wheel(out: Path) -> Path:
    """qgen's wheel, built from this checkout by hatchling (in the test extras), without build isolation."""
    try:
        import hatchling  # noqa: F401
    except ImportError:
        require("hatchling is not installed (pip install -e '.[test]'): cannot build qgen's wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True)
    wheel, = out.glob(DISTRIBUTION.replace("-", "_") + "-*.whl")
    return wheel


def wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    """The wheel's METADATA headers, each name to its values."""
    with zipfile.ZipFile(wheel) as archive:
        name, = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode()
    headers: dict[str, list[str]] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        if ": " in line and not line.startswith(" "):
            key, value = line.split(": ", 1)
            headers.setdefault(key, []).append(value)
    return headers


def install_into_fresh_venv(wheel: Path, venv: Path) -> Path:
    """A new virtualenv at venv with the wheel installed as pip installs it; returns its bin/ folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "_qgen_test_dependencies.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True)
    alembic, = [e for e in importlib.metadata.distribution("alembic").entry_points
                if e.group == "console_scripts" and e.name == "alembic"]
    module, func = alembic.value.split(":")
    script = venv / "bin" / "alembic"
    script.write_text(f"#!{python}\nimport sys\nfrom {module} import {func}\nsys.exit({func}())\n")
    script.chmod(0o755)
    return venv / "bin"
