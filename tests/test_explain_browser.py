"""The HTML explain report in a real browser: headless Chromium driven by selenium.

Skips with a message when selenium, Chromium or its driver is missing (``.ci/run`` installs
Debian's ``chromium`` and ``chromium-driver``; ``selenium`` is in the test extra)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import thresher
from thresher.explain import build_report, render_html

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)
SHOTS = Path("/tmp/thresher-explain-shots")

PARAGRAPH = ("Rivers bend because water flows faster on the outside of a curve, wears the bank away there "
             "and leaves sand on the inside, so every loop grows a little with each flood season.")


def _page() -> bytes:
    menu = "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(6))
    body = "".join(f"<p>{PARAGRAPH} Part {i}.</p>" for i in range(8))
    return (f"<html><head><title>Meanders</title><script>alert(1)</script></head><body><nav><ul>{menu}</ul></nav>"
            f"<article><h1>Why rivers meander</h1>{body}</article><footer>© Footer links</footer>"
            "</body></html>").encode()


def _browser() -> tuple[str, str]:
    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    driver = next((shutil.which(d) for d in DRIVERS if shutil.which(d)), None)
    if browser is None or driver is None:
        pytest.skip("no headless browser: install chromium and chromium-driver "
                    "(apt-get install -y chromium chromium-driver)")
    return browser, driver


@pytest.fixture(scope="module")
def driver():
    browser, driver_path = _browser()
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    try:
        session = webdriver.Chrome(service=Service(driver_path), options=options)
    except Exception as exc:  # noqa: BLE001 - any start-up failure means no usable browser here
        pytest.skip(f"headless Chromium would not start: {type(exc).__name__}: {exc}")
    yield session
    session.quit()


def test_report_in_chromium(driver, tmp_path):
    html = _page()
    report = build_report(html, algorithm="thresher", compare="justext")
    path = tmp_path / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    driver.get(path.as_uri())

    blocks = driver.find_elements(By.CSS_SELECTOR, "#blocks .block")
    assert len(blocks) == len(thresher.extract_result(html).blocks)

    blocks[-3].click()
    detail = driver.find_element(By.ID, "detail")
    assert "contribution" in detail.text
    assert len(detail.find_elements(By.CSS_SELECTOR, "table.features tr")) > 1

    disagreements = driver.find_elements(By.CSS_SELECTOR, "#blocks .block.dis")
    b_badges = driver.find_elements(By.CSS_SELECTOR, "#blocks .b2")
    assert b_badges and b_badges[0].is_displayed()
    driver.find_element(By.ID, "cmp-toggle").click()
    assert not b_badges[0].is_displayed()
    driver.find_element(By.ID, "cmp-toggle").click()
    assert b_badges[0].is_displayed()
    if disagreements:
        driver.find_element(By.ID, "dis-toggle").click()
        shown = [b for b in driver.find_elements(By.CSS_SELECTOR, "#blocks .block") if b.is_displayed()]
        assert len(shown) == len(disagreements)
        driver.find_element(By.ID, "dis-toggle").click()

    assert driver.find_elements(By.CSS_SELECTOR, "#charts svg polyline")
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / "report.png"
    assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 0

    driver.find_element(By.ID, "tab-page").click()
    frame = driver.find_element(By.ID, "page")
    assert frame.get_attribute("sandbox") == ""
    driver.switch_to.frame(frame)
    assert driver.find_elements(By.CSS_SELECTOR, "mark.thresher-keep")
    assert not driver.find_elements(By.TAG_NAME, "script")
    driver.switch_to.default_content()
    driver.save_screenshot(str(SHOTS / "page.png"))
