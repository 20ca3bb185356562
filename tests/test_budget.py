"""The time budget: ``extract(html, timeout=...)`` stops in the native core as in Python, with
:class:`thresher.ExtractionTimeout`, leaves the process healthy, and changes nothing when it is
not reached. Ctrl-C reaches a long native step as ``KeyboardInterrupt``."""
from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings

import thresher
from test_properties import pages
from thresher import ExtractionTimeout, ThresherError
from thresher.document import budget
from thresher.options import Options

SMALL = b"<html><head><title>t</title></head><body><p>A paragraph of plain text, long enough to keep.</p></body></html>"
ITEMS = 5_000_000


def many_items(n: int) -> bytes:
    return b"<html><body><ul>" + b"<li>item" * n + b"</ul></body></html>"


def child_processes() -> list[int]:
    """The pids of this process's children (Linux: from /proc; elsewhere multiprocessing's own)."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    if not tasks.is_dir():
        return [p.pid for p in multiprocessing.active_children() if p.pid is not None]
    return [int(pid) for task in tasks.iterdir()
            for pid in (task / "children").read_text().split()]


@pytest.fixture(scope="module")
def huge_page() -> bytes:
    return many_items(ITEMS)


def test_extraction_timeout_is_a_thresher_error():
    assert issubclass(ExtractionTimeout, ThresherError)
    assert thresher.ExtractionTimeout is ExtractionTimeout


def test_a_huge_page_stops_within_the_budget_in_process_and_the_next_call_works(huge_page):
    thresher.extract(SMALL)  # models loaded: the budget measures the page, not the imports
    before = child_processes()
    start = time.perf_counter()
    with pytest.raises(ExtractionTimeout, match=r"0\.5 s"):
        thresher.extract(huge_page, timeout=0.5)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
    assert child_processes() == before  # no worker process did it
    assert "A paragraph of plain text" in thresher.extract(SMALL)
    assert "A paragraph of plain text" in thresher.extract(SMALL, timeout=5)


def test_extract_result_takes_the_budget_too(huge_page):
    with pytest.raises(ExtractionTimeout):
        thresher.extract_result(huge_page[: len(huge_page) // 10], timeout=0.2)
    assert thresher.extract_result(SMALL, timeout=5).text


def test_the_budget_is_an_option():
    assert Options(timeout=2).timeout == 2.0
    for bad in (0, -1, float("inf"), float("nan"), "1", True):
        with pytest.raises(ValueError, match="timeout"):
            Options(timeout=bad)


def test_a_budget_inside_another_ends_by_the_earlier_deadline():
    with budget.time_budget(0.05):
        with budget.time_budget(100):
            time.sleep(0.06)
            with pytest.raises(ExtractionTimeout):  # the outer deadline holds inside the inner budget
                budget.check()
        with pytest.raises(ExtractionTimeout):
            budget.check()
        with pytest.raises(ExtractionTimeout):  # a native call refuses to start past it
            thresher.extract(SMALL)
    budget.check()  # no budget is left open


def test_a_budget_is_its_thread_s_own(huge_page):
    """Another thread's extraction, without a budget, is not stopped by this one's."""
    import threading

    outcome: dict[str, object] = {}

    def other() -> None:
        with budget.time_budget(None):
            time.sleep(0.3)  # past this thread's deadline
            outcome["other"] = thresher.extract(SMALL)

    worker = threading.Thread(target=other)
    worker.start()
    with pytest.raises(ExtractionTimeout):
        thresher.extract(huge_page[: len(huge_page) // 10], timeout=0.1)
    worker.join()
    assert "A paragraph of plain text" in str(outcome["other"])


@settings(max_examples=30)
@given(pages)
def test_a_generous_budget_changes_no_output(page):
    html, _ = page
    for output in ("text", "markdown", "xml"):
        assert thresher.extract(html, output=output, timeout=60) == thresher.extract(html, output=output)


# The child extracts a 5,000,000-item page and reports the time from the signal to the
# KeyboardInterrupt; the parent sends SIGINT once the extraction is under way. The child puts
# Python's own SIGINT handler in place first: a process started in the background by a
# non-interactive shell (a CI job run with "&") inherits SIGINT ignored, and Python then
# installs no handler, so the signal would never reach the extraction.
_INTERRUPTED = textwrap.dedent("""
    import signal
    import time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import thresher
    thresher.extract(b"<p>warm up</p>")
    html = b"<html><body><ul>" + b"<li>item" * 5_000_000 + b"</ul></body></html>"
    print("ready", flush=True)
    start = time.perf_counter()
    try:
        thresher.extract(html)
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - start, flush=True)
    else:
        print("finished", time.perf_counter() - start, flush=True)
""")


def _interrupt_after(seconds: float) -> float:
    """Seconds from SIGINT, sent ``seconds`` into the child's extraction, to its report."""
    child = subprocess.Popen([sys.executable, "-c", _INTERRUPTED], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(seconds)  # inside the native work, which takes many seconds
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        reported = time.perf_counter() - sent
        assert line and line[0] == "interrupted", line
        assert child.wait(timeout=30) == 0
        return reported
    finally:
        child.kill()


@pytest.mark.slow
def test_ctrl_c_stops_a_long_native_step_within_a_fifth_of_a_second():
    """Issue 48's bar is 0.2 s. A timing on a shared 2-core machine can stall once, so the bar
    holds for the best of three signals (sent at different stages of the work), and every one
    of them within a second: a broken poll misses all three."""
    delays = [_interrupt_after(seconds) for seconds in (0.5, 1.0, 1.5)]
    assert min(delays) < 0.2, delays
    assert max(delays) < 1.0, delays
