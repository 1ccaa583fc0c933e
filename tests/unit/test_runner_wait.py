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
