#!/usr/bin/env python3
"""The wiki benchmark's baseline: what a user might write instead of fieldpack-wiki, with lxml
(libxml2) and nh3 (ammonia) from PyPI, on 2 processes: read the NDJSON dump, keep the wanted
articles (the pipeline's destinations), and make a blurb of each article's LEAD only (the
paragraphs of section 0, sanitized by nh3 with the b/i/p/br allowlist). Much less work than
fieldpack's full blurbs (every section, boilerplate rules, summary).

Usage: wiki_baseline.py --dump articles.ndjson --pipeline pipeline.json [--processes 2]
Prints one line: articles, HTML bytes of the wanted articles, seconds.
"""
import argparse
import json
import multiprocessing
import sys
import time

import lxml.html
import nh3

ALLOWED = {"b", "i", "p", "br"}


def lead_blurb(html):
    document = lxml.html.fromstring(html)
    sections = document.xpath("//section[@data-mw-section-id='0']")
    scope = sections[0] if sections else document
    paragraphs = [p for p in scope.xpath(".//p") if not p.get("class")]
    markup = "".join(lxml.html.tostring(p, encoding="unicode") for p in paragraphs)
    return nh3.clean(markup, tags=ALLOWED, attributes={})


def work(line):
    article = json.loads(line)
    html = article["article_body"]["html"]
    return len(html.encode("utf-8")), len(lead_blurb(html))


def lines(path, wanted):
    with open(path, "rb") as dump:
        for line in dump:
            # The title is read from the JSON; unwanted lines are skipped before parsing HTML.
            article = json.loads(line)
            if article["name"] in wanted:
                yield line


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    with open(args.pipeline, encoding="utf-8") as handle:
        wanted = {d["wikipedia"] for d in json.load(handle)["destinations"] if "wikipedia" in d}
    start = time.perf_counter()
    articles = 0
    html_bytes = 0
    with multiprocessing.Pool(args.processes) as pool:
        for size, _ in pool.imap_unordered(work, lines(args.dump, wanted), chunksize=8):
            articles += 1
            html_bytes += size
    elapsed = time.perf_counter() - start
    print(f"wiki_baseline: {articles} articles, {html_bytes} bytes of article HTML in {elapsed:.2f} s "
          f"({html_bytes / elapsed / 1e6:.1f} MB/s), lxml {lxml.etree.LIBXML_VERSION}, nh3 {nh3.__version__ if hasattr(nh3, '__version__') else '?'}")


if __name__ == "__main__":
    sys.exit(main())
