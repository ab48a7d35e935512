#!/usr/bin/env python3
"""The wiki benchmark's baselines: what a user might write instead of fieldpack-wiki, with an
HTML parser and nh3 (ammonia) from PyPI, on 2 processes: read the NDJSON dump, keep the wanted
articles (the pipeline's destinations), and make a blurb of each article's LEAD only (the
paragraphs of section 0, sanitized by nh3 with the b/i/p/br allowlist). Much less work than
fieldpack's full blurbs (every section, boilerplate rules, summary).

Two parsers: `--parser selectolax` (selectolax's lexbor backend, the fastest HTML parser on PyPI)
and `--parser lxml` (libxml2, the parser fieldpack uses).

Usage: wiki_baseline.py --parser selectolax|lxml --dump articles.ndjson --pipeline pipeline.json [--processes 2]
Prints one line on stderr: articles, HTML bytes of the wanted articles, seconds, versions.
"""
import argparse
import json
import multiprocessing
import sys
import time

import nh3

ALLOWED = {"b", "i", "p", "br"}
PARSER = None


def lxml_lead(html):
    import lxml.html

    document = lxml.html.fromstring(html)
    sections = document.xpath("//section[@data-mw-section-id='0']")
    scope = sections[0] if sections else document
    paragraphs = [p for p in scope.xpath(".//p") if not p.get("class")]
    markup = "".join(lxml.html.tostring(p, encoding="unicode") for p in paragraphs)
    return nh3.clean(markup, tags=ALLOWED, attributes={})


def selectolax_lead(html):
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    scope = tree.css_first('section[data-mw-section-id="0"]') or tree.body
    if scope is None:
        return ""
    markup = "".join(p.html for p in scope.css("p") if not p.attributes.get("class"))
    return nh3.clean(markup, tags=ALLOWED, attributes={})


LEADS = {"lxml": lxml_lead, "selectolax": selectolax_lead}


WANTED = set()


def start(parser, wanted):
    global PARSER, WANTED
    PARSER = LEADS[parser]
    WANTED = wanted


def work(line):
    """One dump line: (HTML bytes, blurb length) of a wanted article, else None."""
    article = json.loads(line)
    if article.get("name") not in WANTED:
        return None
    html = article["article_body"]["html"]
    return len(html.encode("utf-8")), len(PARSER(html))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--parser", choices=sorted(LEADS), default="lxml")
    args = parser.parse_args()
    with open(args.pipeline, encoding="utf-8") as handle:
        wanted = {d["wikipedia"] for d in json.load(handle)["destinations"] if "wikipedia" in d}
    began = time.perf_counter()
    articles = 0
    html_bytes = 0
    blanks = 0
    with multiprocessing.Pool(args.processes, initializer=start, initargs=(args.parser, wanted)) as pool:
        # Lines are parsed (JSON, then HTML) in the workers; unwanted ones are dropped there.
        with open(args.dump, "rb") as dump:
            for result in pool.imap_unordered(work, dump, chunksize=8):
                if result is None:
                    continue
                size, blurb = result
                articles += 1
                html_bytes += size
                blanks += blurb == 0
    elapsed = time.perf_counter() - began
    print(f"wiki_baseline: {args.parser}: {articles} articles, {html_bytes} bytes of article HTML in {elapsed:.2f} s "
          f"({html_bytes / elapsed / 1e6:.1f} MB/s), {blanks} with an empty lead, {version(args.parser)}", file=sys.stderr)


def version(parser):
    from importlib.metadata import version as installed

    return f"{parser} {installed(parser)}, nh3 {installed('nh3')}"


if __name__ == "__main__":
    sys.exit(main())
