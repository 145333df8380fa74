"""Nothing a method starts outlives its cell (issue 12, items 4 and 5).

Item 4: after a timeout, a crash (``os._exit`` in ``fit``), the worker's
shutdown or the runner's SIGKILL, no process the method started remains —
neither a child in the worker's process group, nor one started with
``start_new_session=True`` (setsid), nor a daemon (setsid grandchild whose
parent already exited, re-parented away from the worker's tree). Every child
carries a unique marker argument; the process table is read with psutil.

Item 5: a method's child that reads stdin must not swallow the protocol's
requests (the worker reads them from a private duplicate of fd 0 and points
fd 0 at /dev/null).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import psutil
import pytest

from causalarena.data import Dataset
from causalarena.runner import WorkerHandle

TOYS = '''
"""Toy methods of test_process_hygiene (written to a temporary directory)."""
import os
import subprocess
import sys
import time

import numpy as np

from causalarena.method import Method

CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.int8)
SLEEPER = "import time; time.sleep(300)"
# the intermediate of a daemon: starts a setsid grandchild, then exits at once
DAEMONIZE = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', %r, sys.argv[1]], "
             "start_new_session=True, stdin=subprocess.DEVNULL)" % SLEEPER)


class Spawns(Method):
    """Starts one marked child of ``kind``, then hangs, crashes or returns.

    kind: ``group`` (an ordinary child), ``setsid`` (start_new_session=True),
    ``daemon`` (a setsid grandchild whose parent exits: re-parented away).
    then: ``hang`` (sleeps ``seconds``), ``crash`` (os._exit(1)), ``ok``.
    """

    def __init__(self, marker, kind="group", then="hang", seconds=300.0, readyfile=None):
        self.marker, self.kind, self.then = marker, kind, then
        self.seconds, self.readyfile = seconds, readyfile

    def fit(self, dataset):
        if self.kind == "daemon":
            subprocess.Popen([sys.executable, "-c", DAEMONIZE, self.marker]).wait()
        else:
            subprocess.Popen([sys.executable, "-c", SLEEPER, self.marker],
                             start_new_session=self.kind == "setsid")
        if self.readyfile:
            # written aside, then renamed: the test polls for the name and must never read it empty
            with open(self.readyfile + ".part", "w") as fh:
                fh.write(str(os.getpid()))
            os.replace(self.readyfile + ".part", self.readyfile)
        if self.then == "hang":
            time.sleep(self.seconds)
        elif self.then == "crash":
            os._exit(1)
        self.adjacency_ = CHAIN.copy()
        return self


class ReadsStdin(Method):
    """Leaves a child running that reads stdin (an R subprocess does), then returns the chain."""

    def __init__(self, how="python"):
        self.how = how

    def fit(self, dataset):
        argv = ["cat"] if self.how == "cat" else [sys.executable, "-c", "import sys; sys.stdin.read()"]
        self.child_ = subprocess.Popen(argv)
        self.adjacency_ = CHAIN.copy()
        return self


class Chain(Method):
    def fit(self, dataset):
        self.adjacency_ = CHAIN.copy()
        return self
'''

KINDS = ("group", "setsid", "daemon")


@pytest.fixture(scope="module")
def toys(tmp_path_factory):
    """(PYTHONPATH directory of the toy methods, path of a 3-variable dataset)."""
    import numpy as np

    d = tmp_path_factory.mktemp("hygiene")
    (d / "hygiene_toys.py").write_text(textwrap.dedent(TOYS))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    npz = str(d / "chain.npz")
    Dataset(X=X, columns=["a", "b", "c"], intervention_mask=np.zeros(X.shape, dtype=bool),
            regime=np.full(50, -1), metadata={"seed": 0}).save(npz)
    return str(d), npz


def marked(marker):
    """Live (non-zombie) processes whose command line carries ``marker``."""
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and marker in (p.info["cmdline"] or []):
                found.append(p.pid)
        except psutil.Error:
            pass
    return found


def wait_gone(marker, seconds=10.0):
    deadline = time.monotonic() + seconds
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return marked(marker)


def new_marker():
    return f"hygiene-{uuid.uuid4().hex}"


@pytest.fixture
def marker():
    m = new_marker()
    yield m
    for pid in marked(m):  # never leave a sleeper behind, even when the test failed
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def handle(moddir, cls, params):
    w = WorkerHandle(env={"PYTHONPATH": moddir})
    w.start()
    resp = w.load(f"hygiene_toys:{cls}", params)
    assert resp["status"] == "ok", resp
    return w


@pytest.mark.parametrize("kind", KINDS)
def test_a_timeout_leaves_no_process_the_method_started(toys, marker, kind):
    moddir, npz = toys
    w = handle(moddir, "Spawns", {"marker": marker, "kind": kind, "then": "hang"})
    r = w.fit(npz, 0, budget_s=2.0, run_id="t")
    assert r["status"] == "timeout"
    w.close()
    assert wait_gone(marker, 3.0) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_crash_after_spawning_leaves_no_process(toys, marker, kind):
    moddir, npz = toys
    w = handle(moddir, "Spawns", {"marker": marker, "kind": kind, "then": "crash"})
    r = w.fit(npz, 0, budget_s=20.0, run_id="c")
    assert r["status"] == "failed" and "worker died during fit (exit code 1)" in r["error"]
    w.close()
    assert wait_gone(marker, 3.0) == []


@pytest.mark.parametrize("kind", KINDS)
def test_closing_the_worker_after_a_healthy_fit_leaves_no_process(toys, marker, kind):
    moddir, npz = toys
    w = handle(moddir, "Spawns", {"marker": marker, "kind": kind, "then": "ok"})
    r = w.fit(npz, 0, budget_s=20.0, run_id="ok")
    assert r["status"] == "ok"
    assert marked(marker)  # a healthy method's child may live as long as its worker
    w.close()
    assert wait_gone(marker, 3.0) == []


RUNNER = """
import os, time
from causalarena.runner import WorkerHandle
w = WorkerHandle(env={{"PYTHONPATH": {moddir!r}}})
w.start()
assert w.load("hygiene_toys:Spawns", {{"marker": {marker!r}, "kind": {kind!r}, "then": {then!r},
                                       "readyfile": {ready!r}}})["status"] == "ok"
assert w.fit({npz!r}, 0, budget_s=600, run_id="k")["status"] == "ok"  # then == "ok": the worker is idle
os.rename({ready!r}, {ready!r} + ".idle")
time.sleep(600)
"""


@pytest.mark.parametrize("then", ["hang", "ok"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_sigkilled_runner_leaves_no_worker_and_no_process_the_method_started(toys, marker, kind, then,
                                                                              tmp_path):
    """The runner dies mid-fit (``hang``) or between fits (``ok``: the idle worker sees EOF)."""
    moddir, npz = toys
    ready = tmp_path / "ready"
    script = RUNNER.format(moddir=moddir, marker=marker, kind=kind, then=then, ready=str(ready), npz=npz)
    if then == "ok":
        ready = tmp_path / "ready.idle"
    # TMPDIR: the killed runner cannot remove its worker's log; it goes with tmp_path
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert ready.exists(), "the method never started its child"
        worker_pid = int(ready.read_text())
        assert marked(marker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert wait_gone(marker, 10.0) == []
        deadline = time.monotonic() + 5
        while psutil.pid_exists(worker_pid) and time.monotonic() < deadline:
            try:
                if psutil.Process(worker_pid).status() == psutil.STATUS_ZOMBIE:
                    break
            except psutil.Error:
                break
            time.sleep(0.1)
        alive = psutil.pid_exists(worker_pid) and psutil.Process(worker_pid).status() != psutil.STATUS_ZOMBIE
        assert not alive, "the orphaned worker did not exit"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("how", ["python", "cat"])
def test_a_child_reading_stdin_does_not_swallow_the_protocol(toys, how):
    moddir, npz = toys
    w = WorkerHandle(env={"PYTHONPATH": moddir})
    w.start()
    try:
        assert w.load("hygiene_toys:ReadsStdin", {"how": how})["status"] == "ok"
        first = w.fit(npz, 0, budget_s=10.0, run_id="reader")
        assert first["status"] == "ok"
        # the same warm worker then serves healthy cells; every request must reach it
        statuses = [w.fit(npz, i, budget_s=5.0, run_id=f"h{i}")["status"] for i in range(8)]
        assert statuses == ["ok"] * 8
        assert w.alive
    finally:
        w.close()


def test_the_worker_serves_the_protocol_with_fd0_on_devnull(toys):
    """The method sees /dev/null on fd 0 and on sys.stdin (the protocol is on a private fd)."""
    moddir, npz = toys
    code = textwrap.dedent("""
        import os, sys
        import numpy as np
        from causalarena.method import Method

        class Probe(Method):
            def fit(self, dataset):
                assert os.path.realpath(f"/proc/self/fd/0") == "/dev/null", os.readlink("/proc/self/fd/0")
                assert sys.stdin.read() == ""
                self.adjacency_ = np.zeros((dataset.d, dataset.d))
                return self
    """)
    with open(os.path.join(moddir, "hygiene_probe.py"), "w") as fh:
        fh.write(code)
    if not os.path.exists("/proc/self/fd/0"):
        pytest.skip("needs /proc")
    w = WorkerHandle(env={"PYTHONPATH": moddir})
    w.start()
    try:
        assert w.load("hygiene_probe:Probe", {})["status"] == "ok"
        r = w.fit(npz, 0, budget_s=10.0, run_id="p")
        assert r["status"] == "ok", r["error"]
    finally:
        w.close()
