"""Size and opening time of the HTML explain report of one page, in headless Chromium.

    python benchmarks/explain_report.py PAGE [--algorithm A] [--compare B] [--out report.html]

Prints the page's block count, the report's size, the time to build it, and the time
Chromium takes from the request to the report fully built (every block row and the
charts in the DOM), as measured by the page's own clock (navigation start to the moment
the charts exist) and by this script around the load. Needs selenium, chromium and
chromedriver (see tests/test_explain_browser.py).
"""
from __future__ import annotations

import argparse
import gzip
import shutil
import sys
import tempfile
import time
from pathlib import Path

from thresher.explain import build_report, render_html

READY = ("return document.querySelectorAll('#blocks .block').length === D.text.length"
         " && document.querySelector('#charts svg') !== null ? performance.now() : null")


def read_page(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def open_seconds(report: Path) -> tuple[float, float]:
    """(in-page ms to ready, wall seconds around the load) for ``report`` in headless Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get("about:blank")
        start = time.perf_counter()
        driver.get(report.as_uri())
        ready = None
        while ready is None:
            ready = driver.execute_script(READY)
        return float(ready), time.perf_counter() - start
    finally:
        driver.quit()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", type=Path)
    ap.add_argument("--algorithm", default="thresher")
    ap.add_argument("--compare")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    html = read_page(args.page)
    start = time.perf_counter()
    report = build_report(html, algorithm=args.algorithm, compare=args.compare)
    text = render_html(report)
    built = time.perf_counter() - start
    out = args.out or Path(tempfile.mkdtemp()) / "report.html"
    out.write_text(text, encoding="utf-8")
    in_page_ms, wall = open_seconds(out)
    size = out.stat().st_size
    print(f"{args.page.name}: {len(report.main.result.blocks)} blocks, source {len(html) / 1e6:.2f} MB; "
          f"report {size / 1e6:.2f} MB, built in {built:.2f} s; Chromium: ready {in_page_ms / 1000:.2f} s "
          f"after navigation start, {wall:.2f} s around the load")
    return 0


if __name__ == "__main__":
    sys.exit(main())
