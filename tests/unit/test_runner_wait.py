"""The runner's wait for a worker: the exit status at once, the timeout as Popen.wait's."""
import subprocess
import sys

import pytest

from harness.run.runner import wait_exit


def test_wait_exit_returns_the_status_and_raises_on_timeout():
    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    assert wait_exit(p, 30) == 3 and p.returncode == 3
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_exit(slow, 0.2)
    finally:
        slow.kill()
        slow.wait()


def test_a_campaigns_own_outputs_do_not_make_the_code_dirty(tmp_path, monkeypatch):
    """The manifest's `dirty` is about the code: runs installed into data/reference/ and the paper
    written by the campaign leave it clean; an edit of the code does not."""
    import harness.run.manifest as manifest

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "data" / "reference" / "r1").mkdir(parents=True)
    (tmp_path / "data" / "reference" / "r1" / "plan.json").write_text("{}")
    (tmp_path / "paper.md").write_text("p")
    (tmp_path / "code.py").write_text("x = 1")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.setattr(manifest, "PROJECT_ROOT", tmp_path)
    (tmp_path / "data" / "reference" / "r1" / "plan.json").unlink()
    (tmp_path / "paper.md").write_text("q")
    assert manifest.git_commit()["dirty"] is False
    (tmp_path / "code.py").write_text("x = 2")
    assert manifest.git_commit()["dirty"] is True
    assert manifest.changed_files() == ["code.py"]  # what the campaign names when it refuses to start
