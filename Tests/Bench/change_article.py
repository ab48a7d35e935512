#!/usr/bin/env python3
"""Changes one wanted article's text in a synthetic Wikimedia Enterprise dump, for the
benchmark's content-change rebuild (Tests/Bench/run-bench.sh, issue 11).

    change_article.py --dump DIR/articles.ndjson --pipeline DIR/pipeline.json --marker TEXT

The article is the pipeline's first destination (`destinations[0].wikipedia`: fieldpack-synth
--wiki-articles writes the destinations the wiki stage wants). In its line, the lead paragraph
of `article_body.html` (`<p id="mwAg"><b>TITLE</b> SENTENCE. …`, as SyntheticWiki writes it)
gets its first sentence replaced by "TEXT." (or a previous edit's sentence, so every run's
marker replaces the last one). Only that line is written again (json.dumps of the parsed line);
every other line is copied byte for byte. The new dump goes to a temporary file beside the dump,
then replaces it by a rename. Prints the article's title on stdout.

Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import sys

LEAD = re.compile(r'(<p id="mwAg"><b>[^<]*</b> )([^.<]*\.)')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--marker", required=True, help="the new first sentence of the lead (without its full stop)")
    args = parser.parse_args()
    if not re.fullmatch(r"[A-Za-z0-9 -]+", args.marker):
        sys.exit("change_article: the marker must be letters, digits, spaces and hyphens")
    with open(args.pipeline, encoding="utf-8") as handle:
        destinations = json.load(handle).get("destinations") or []
    if not destinations or not destinations[0].get("wikipedia"):
        sys.exit(f"change_article: {args.pipeline} wants no article (no destination with a wikipedia title)")
    title = destinations[0]["wikipedia"]
    needle = b'"name":' + json.dumps(title, ensure_ascii=False).encode("utf-8")
    temporary = args.dump + ".change.tmp"
    changed = False
    with open(args.dump, "rb") as source, open(temporary, "wb") as target:
        for line in source:
            if needle in line[:4096]:
                record = json.loads(line)
                if record.get("name") == title:
                    html = record["article_body"]["html"]
                    new_html, count = LEAD.subn(lambda m: m.group(1) + args.marker + ".", html, count=1)
                    if count != 1 or new_html == html:
                        sys.exit(f"change_article: no lead paragraph to change in {title!r}")
                    record["article_body"]["html"] = new_html
                    target.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
                    shutil.copyfileobj(source, target, 16 << 20)
                    changed = True
                    break
            target.write(line)
    if not changed:
        os.unlink(temporary)
        sys.exit(f"change_article: {title!r} is not in {args.dump}")
    os.replace(temporary, args.dump)
    print(title)


if __name__ == "__main__":
    main()
