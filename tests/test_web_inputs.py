"""Web inputs: feeds, sitemaps, URL lists and the crawler, against a loopback server in a thread."""
from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from thresher.batch.crawl import Crawler, CrawlSettings, HostClock, read_url_list, without_blacklisted
from thresher.batch.discover import DiscoveryError, feed_links, parse_sitemap, walk_sitemaps
from thresher.batch.fetch import FetchError
from thresher.cli import main as cli

ALG = "justext"
PARAGRAPH = ("The committee met on Tuesday to discuss the new library, and after a long debate about the "
             "budget and the opening hours it agreed to hold a public meeting in the town hall next month, "
             "where residents will be able to see the plans and ask the architects their questions.")


def page(name: str) -> bytes:
    return (f"<html><head><title>{name}</title></head><body><div>Menu</div><h1>Story {name}</h1>"
            + f"<p>{name} {PARAGRAPH}</p>" * 3 + "</body></html>").encode()


def routes(base: str) -> dict[str, tuple[bytes, str]]:
    xml = "application/xml"
    index = (f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             f'<sitemap><loc>{base}/sitemap-a.xml</loc></sitemap><sitemap><loc>{base}/sitemap-b.xml.gz</loc>'
             f'</sitemap></sitemapindex>').encode()
    sitemap_a = (f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}/p/one</loc></url>'
                 f'<url><loc>{base}/p/two</loc></url></urlset>').encode()
    sitemap_b = gzip.compress(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{base}/p/three'
                              f'</loc></url><url><loc>{base}/p/one</loc></url></urlset>'.encode())
    rss = (f'<rss version="2.0"><channel><title>News</title><item><title>One</title><link>{base}/p/one</link>'
           f'</item><item><title>Two</title><link>/p/two</link></item></channel></rss>').encode()
    atom = (f'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="self" href="{base}/self"/>'
            f'<link href="{base}/p/three"/></entry></feed>').encode()
    found = {"/sitemap.xml": (index, xml), "/sitemap-a.xml": (sitemap_a, xml),
             "/sitemap-b.xml.gz": (sitemap_b, "application/gzip"), "/rss.xml": (rss, xml),
             "/atom.xml": (atom, "application/atom+xml")}
    for name in ("one", "two", "three"):
        found[f"/p/{name}"] = (page(name), "text/html; charset=utf-8")
    return found


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        server = self.server
        with server.lock:  # type: ignore[attr-defined]
            server.hits.append(self.path)  # type: ignore[attr-defined]
            failures = server.failures  # type: ignore[attr-defined]
            fail = failures.get(self.path, 0)
            if fail:
                failures[self.path] = fail - 1
        found = server.routes.get(self.path)  # type: ignore[attr-defined]
        if fail:
            body, status, kind = b"busy", 503, "text/plain"
        elif found is None:
            body, status, kind = b"gone", 404, "text/plain"
        else:
            (body, kind), status = found, 200
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.routes, httpd.hits, httpd.failures, httpd.lock = routes(base), [], {}, threading.Lock()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd, base
    httpd.shutdown()
    httpd.server_close()


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


FAST = ("--delay", "0", "-a", ALG)


# ---------------------------------------------------------------- discover

def test_feed_links_read_rss_and_atom():
    rss = b'<rss><channel><item><link>https://a.example/1</link></item><item><guid>https://a.example/2</guid></item></channel></rss>'
    assert feed_links(rss) == ("https://a.example/1", "https://a.example/2")
    atom = (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="/x"/></entry>'
            b'<entry><link rel="edit" href="/e"/><link href="https://b.example/y"/></entry></feed>')
    assert feed_links(atom, "https://b.example/feed") == ("https://b.example/x", "https://b.example/y")


def test_feeds_and_sitemaps_refuse_entities_and_bad_xml():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
            b'<rss><channel><item><link>&b;</link></item></channel></rss>')
    with pytest.raises(DiscoveryError):
        feed_links(bomb)
    with pytest.raises(DiscoveryError):
        parse_sitemap(b"<urlset><url><loc>https://a.example/</loc>")
    with pytest.raises(DiscoveryError):
        feed_links(b"<html><body>not a feed</body></html>")
    with pytest.raises(DiscoveryError):
        parse_sitemap(b"<html/>")


def test_parse_sitemap_reads_urlsets_indexes_and_gzip():
    urlset = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
              b"<url><loc> https://a.example/1 </loc></url></urlset>")
    assert parse_sitemap(urlset).pages == ("https://a.example/1",)
    assert parse_sitemap(gzip.compress(urlset)).pages == ("https://a.example/1",)
    index = b'<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>'
    assert parse_sitemap(index).sitemaps == ("https://a.example/s.xml",)


def test_walk_sitemaps_is_breadth_first_each_once_and_bounded():
    files = {
        "s0": b"<sitemapindex><sitemap><loc>https://a.example/s1</loc></sitemap>"
              b"<sitemap><loc>https://a.example/s0</loc></sitemap></sitemapindex>",
        "s1": b"<sitemapindex><sitemap><loc>https://a.example/s0</loc></sitemap>"
              b"<sitemap><loc>https://a.example/s2</loc></sitemap></sitemapindex>",
        "s2": b"<urlset><url><loc>https://a.example/p</loc></url></urlset>",
    }
    fetched = []

    def get(url: str) -> bytes:
        fetched.append(url)
        return files[url.rsplit("/", 1)[1]]

    walk = walk_sitemaps("https://a.example/s0", get)
    assert walk.pages == ["https://a.example/p"] and walk.errors == []
    assert fetched == ["https://a.example/s0", "https://a.example/s1", "https://a.example/s2"]
    assert walk_sitemaps("https://a.example/s0", get, max_sitemaps=1).pages == []


# ------------------------------------------------------------------- crawl

def test_host_clock_spaces_requests_to_one_host():
    now = [100.0]
    clock = HostClock(2.0, sleep=lambda s: None, now=lambda: now[0])
    assert clock.reserve("a") == 0.0
    assert clock.reserve("a") == 2.0
    assert clock.reserve("b") == 0.0
    now[0] = 110.0
    assert clock.reserve("a") == 0.0


def test_url_lists_and_blacklists():
    assert read_url_list("# list\nhttps://a.example/1\n\n https://a.example/2 \n") == [
        "https://a.example/1", "https://a.example/2"]
    assert without_blacklisted(["https://a.example/1", "https://a.example/2/", "https://a.example/1"],
                               ["https://a.example/2"]) == ["https://a.example/1"]


def test_crawler_retries_transient_failures(server, monkeypatch):
    httpd, base = server
    monkeypatch.setattr("thresher.batch.crawl.RETRY_PAUSE", 0.0)
    httpd.failures["/p/one"] = 1
    with Crawler(CrawlSettings(delay=0, retries=1, timeout=5)) as crawler:
        assert crawler.get(f"{base}/p/one").status == 200
        with pytest.raises(FetchError):
            crawler.get(f"{base}/missing")
    assert httpd.hits.count("/p/one") == 2 and httpd.hits.count("/missing") == 1  # a 404 is not retried


def test_crawler_stops_at_the_total_size_cap(server):
    _, base = server
    with Crawler(CrawlSettings(delay=0, max_total_bytes=10, workers=1)) as crawler:
        outcomes = list(crawler.fetch_all([f"{base}/p/one", f"{base}/p/two"]))
    assert outcomes[0].fetched is not None and "total size cap" in outcomes[1].error


# --------------------------------------------------------------------- CLI

def test_extract_sitemap_into_outdir(capsys, server, tmp_path):
    httpd, base = server
    out = tmp_path / "out"
    code, _, err = run_main(capsys, "extract", "--sitemap", f"{base}/sitemap.xml", "-o", str(out), *FAST)
    assert code == 0, err
    texts = sorted(p.read_text() for p in out.glob("*.txt"))
    assert len(texts) == 3
    assert [t.split()[2] for t in texts] == ["one", "three", "two"]
    assert (out / "errors.jsonl").read_text() == ""
    assert httpd.hits.count("/p/one") == 1


def test_extract_feed_to_stdout(capsys, server):
    _, base = server
    code, out, err = run_main(capsys, "extract", "--feed", f"{base}/rss.xml", *FAST)
    assert code == 0, err
    assert "one The committee" in out and "two The committee" in out
    code, out, err = run_main(capsys, "extract", "--feed", f"{base}/atom.xml", *FAST)
    assert code == 0 and "three The committee" in out and "/self" not in err


def test_extract_url_list_with_blacklist_and_failures(capsys, server, tmp_path):
    _, base = server
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{base}/p/one\n{base}/p/two\n{base}/missing\n")
    blacklist = tmp_path / "black.txt"
    blacklist.write_text(f"{base}/p/two\n")
    out = tmp_path / "out"
    code, _, err = run_main(capsys, "extract", "-i", str(urls), "--blacklist", str(blacklist), "-o", str(out),
                            "--parallel", "2", "--output-format", "json", *FAST)
    assert code == 1, err
    outputs = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert [o["url"] for o in outputs] == [f"{base}/p/one"]
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert [e["url"] for e in errors] == [f"{base}/missing"] and "404" in errors[0]["message"]


def test_extract_single_url_option(capsys, server):
    _, base = server
    code, out, err = run_main(capsys, "extract", "-u", f"{base}/p/two", *FAST)
    assert code == 0, err
    assert out.startswith("Story two")


def test_unreadable_sitemap_is_one_error_line(capsys, server):
    _, base = server
    code, _, err = run_main(capsys, "extract", "--sitemap", f"{base}/p/one", *FAST)
    assert code == 2 and err.startswith("thresher: error: ") and "not" in err


def test_list_prints_the_discovered_urls_only(capsys, server):
    httpd, base = server
    code, out, err = run_main(capsys, "extract", "--sitemap", f"{base}/sitemap.xml", "--list", *FAST)
    assert code == 0, err
    assert out.split() == [f"{base}/p/one", f"{base}/p/two", f"{base}/p/three"]
    assert not any(hit.startswith("/p/") for hit in httpd.hits)


def test_format_shortcuts_and_url_alias(capsys, server):
    _, base = server
    code, out, err = run_main(capsys, "extract", "--URL", f"{base}/p/one", "--xml", *FAST)
    assert code == 0, err
    assert out.startswith("<doc ")


def test_deduplicate_spans_the_pages_of_a_run(capsys, server, tmp_path):
    httpd, base = server
    httpd.routes["/copy/one"] = httpd.routes["/p/one"]
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{base}/p/one\n{base}/copy/one\n")
    code, out, err = run_main(capsys, "extract", "-i", str(urls), *FAST)
    assert code == 0, err
    assert out.count("one The committee") == 6  # three paragraphs on each of two pages
    code, out, err = run_main(capsys, "extract", "-i", str(urls), "--deduplicate", *FAST)
    assert code == 0, err
    assert out.count("one The committee") == 1
