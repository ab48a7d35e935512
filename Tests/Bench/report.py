#!/usr/bin/env python3
"""The benchmark's report: reads what Tests/Bench/run-bench.sh measured (GNU time's
"wall_s peak_rss_kib user_s system_s" per run, the row counts, the versions) and prints the
goals of issue 11 as a markdown table, also written to --results.

Every figure is the median of the runs, with the run-to-run spread (min-max). A ratio is
peer / fieldpack of the medians (above 1: fieldpack is faster). The row counts must agree
(see check_counts); a mismatch is printed and the exit status is 1. A goal that is missed is
reported as FAIL, which is a result, not an error (exit 0).

Standard library only (run with the system python3).
"""
import argparse
import json
import os
import statistics
import sys

TABLES = ("observations", "photos", "taxa", "users", "observation_photos")


class Runs:
    """One command's runs: wall seconds and peak RSS (MiB) per run."""

    def __init__(self, walls, rss):
        self.walls = walls
        self.rss = rss

    @classmethod
    def read(cls, logs, name, runs):
        walls, rss = [], []
        for run in range(1, runs + 1):
            path = os.path.join(logs, f"{name}.r{run}.time" if runs else f"{name}.time")
            wall, rss_kib, *_ = open(path, encoding="utf-8").read().split()
            walls.append(float(wall))
            rss.append(int(rss_kib) / 1024)
        return cls(walls, rss)

    @classmethod
    def once(cls, logs, name):
        wall, rss_kib, *_ = open(os.path.join(logs, f"{name}.time"), encoding="utf-8").read().split()
        return cls([float(wall)], [int(rss_kib) / 1024])

    @classmethod
    def chain(cls, parts):
        """Stages run one after the other: wall times add up, the peak is the largest stage's."""
        return cls([sum(p.walls[i] for p in parts) for i in range(len(parts[0].walls))],
                   [max(p.rss[i] for p in parts) for i in range(len(parts[0].rss))])

    @property
    def wall(self):
        return statistics.median(self.walls)

    @property
    def peak(self):
        return statistics.median(self.rss)

    def wall_text(self):
        spread = f" ({min(self.walls):.2f}–{max(self.walls):.2f})" if len(self.walls) > 1 else ""
        return f"{self.wall:.2f} s{spread}"

    def rss_text(self):
        spread = f" ({min(self.rss):,.0f}–{max(self.rss):,.0f})" if len(self.rss) > 1 else ""
        return f"{self.peak:,.0f} MiB{spread}"

    def text(self):
        return f"{self.wall_text()}, {self.rss_text()}"


def ratio(peer, ours):
    return peer / ours if ours > 0 else float("inf")


def verdict(ok):
    return "PASS" if ok else "FAIL"


def load_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def damage_line(synth):
    """synth.txt's third line (`damage key=value …`) as a dict; empty for a clean dump."""
    with open(synth, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    if len(lines) < 3 or not lines[2].startswith("damage "):
        return {}
    return dict(item.split("=", 1) for item in lines[2].split()[1:])


def check_counts(logs, runs, damage):
    """Compares DuckDB's row counts with fieldpack's bundle; returns (markdown lines, ok).

    Without damage every timed DuckDB run must give fieldpack's counts. With damage, the one
    documented difference is the truncated page: fieldpack keeps its complete records, DuckDB's
    ignore_errors skips the whole page. So the timed runs may count fewer rows, and an untimed
    DuckDB run that also reads those records (the synth's salvageable page) must give exactly
    fieldpack's counts.
    """
    ours = load_json(os.path.join(logs, "fieldpack.counts.json"))
    timed = {f"DuckDB → {fmt}, run {run}": load_json(os.path.join(logs, f"duckdb-{fmt}.r{run}.counts.json"))
             for fmt in ("sqlite", "parquet") for run in range(1, runs + 1)}
    truncated = damage.get("truncated", "none") != "none"
    check = load_json(os.path.join(logs, "duckdb-check.counts.json")) if damage else None
    lines = ["| table | fieldpack bundle | DuckDB (timed runs) |" + (" DuckDB + salvaged records |" if check else ""),
             "| --- | --- | --- |" + (" --- |" if check else "")]
    ok = True
    problems = []
    for table in TABLES:
        values = sorted({counts[table] for counts in timed.values()})
        if len(values) != 1:
            problems.append(f"{table}: the DuckDB runs disagree with each other ({values})")
            ok = False
        if check:
            if check[table] != ours[table]:
                problems.append(f"{table}: DuckDB with the salvaged records gives {check[table]:,}, fieldpack {ours[table]:,}")
                ok = False
            if not truncated and values[0] != ours[table]:
                problems.append(f"{table}: DuckDB gives {values[0]:,}, fieldpack {ours[table]:,}")
                ok = False
            if values[-1] > ours[table]:
                problems.append(f"{table}: DuckDB gives more rows ({values[-1]:,}) than fieldpack ({ours[table]:,})")
                ok = False
        elif values[0] != ours[table]:
            problems.append(f"{table}: DuckDB gives {values[0]:,}, fieldpack {ours[table]:,}")
            ok = False
        lines.append(f"| {table} | {ours[table]:,} | {', '.join(f'{v:,}' for v in values)} |"
                     + (f" {check[table]:,} |" if check else ""))
    lines.append("")
    if truncated:
        lines.append(f"DuckDB's `ignore_errors` skips the truncated page `{damage['truncated']}` whole; fieldpack keeps "
                     f"its {int(damage['salvageable']):,} complete records and rejects the cut one (documented difference). "
                     "The untimed DuckDB run that also reads those records must match fieldpack exactly.")
    lines.append("Row counts: " + ("agree" if ok else "MISMATCH: " + "; ".join(problems)))
    return lines, ok


def check_wiki(logs, runs, html_bytes):
    """The wiki baselines must read the same wanted articles as fieldpack: the bytes of article
    HTML each reports must equal the wiki stage's `html_bytes_cleaned`. Returns (line, ok)."""
    problems = []
    for parser in ("selectolax", "lxml"):
        for run in range(1, runs + 1):
            with open(os.path.join(logs, f"wiki-{parser}.r{run}.log"), encoding="utf-8") as handle:
                last = handle.read().strip().splitlines()[-1]
            words = last.split()
            seen = int(words[words.index("bytes") - 1]) if "bytes" in words else -1
            if seen != html_bytes:
                problems.append(f"{parser} run {run} read {seen:,} bytes of article HTML, fieldpack {html_bytes:,}")
    if problems:
        return "Wiki articles: MISMATCH: " + "; ".join(problems), False
    return f"Wiki articles: every baseline read fieldpack's {html_bytes:,} bytes of wanted article HTML.", True


# Issue 12's limits on a stage's peak RSS, in bytes (MB = 10^6 bytes).
STAGE_LIMIT = 300e6
WIKI_LIMIT = 100e6


def timing_peaks(folder):
    """Each stage's peak RSS (bytes) from the FIELDPACK_TIMINGS files of a whole build."""
    peaks = {}
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                timing = load_json(os.path.join(folder, name))
                peaks[timing["stage"]] = timing["peak_rss_bytes"]
    order = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify"]
    return dict(sorted(peaks.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order), item[0])))


def memory_lines(logs, args, ingest, dedupe, bundle, wiki):
    """Peak RSS per stage (issue 12): at BENCH_N (medians), at 10 x BENCH_N with --scale, the
    growth between them, each stage's limit and verdict; then every stage of the whole build
    (run 1's FIELDPACK_TIMINGS)."""
    scale = args.scale != "0"
    wanted = load_json(args.wiki_report).get("wanted", 0)
    scale_report = os.path.join(logs, "wiki-report.scale.json")
    scale_wanted = load_json(scale_report).get("wanted", 0) if scale and os.path.exists(scale_report) else 0
    out = ["Peak memory per stage (issue 12: at most 300 MB a stage at 1M and 10M observations, the wiki stage "
           "at most 100 MB with 100k articles wanted; MB = 10^6 bytes, GNU time's maximum RSS):", ""]
    if scale:
        out.append("| stage | BENCH_N: wall, peak | 10 × BENCH_N: wall, peak | growth | limit | |")
        out.append("| --- | --- | --- | --- | --- | --- |")
    else:
        out.append("| stage | BENCH_N: wall, peak | limit | |")
        out.append("| --- | --- | --- | --- |")
    stages = [("ingest", ingest, "ingest"), ("dedupe", dedupe, "dedupe"), ("bundle", bundle, "bundle")]
    stages.append(("manifest", Runs.once(logs, "manifest"), "manifest"))
    stages.append(("verify", Runs.once(logs, "verify"), "verify"))
    stages.append((f"wiki ({wanted:,} wanted" + (f"; {scale_wanted:,} at 10 ×)" if scale else ")"), wiki, "wiki"))
    for name, small, key in stages:
        limit = WIKI_LIMIT if key == "wiki" else STAGE_LIMIT
        small_mb = small.peak * 1048576 / 1e6
        cells = [name, f"{small.wall:.2f} s, {small_mb:,.0f} MB"]
        ok = small_mb * 1e6 <= limit
        if scale:
            big = Runs.once(logs, f"{key}.scale")
            big_mb = big.peak * 1048576 / 1e6
            ok = ok and big_mb * 1e6 <= limit
            cells += [f"{big.wall:.2f} s, {big_mb:,.0f} MB", f"× {big_mb / small_mb:.2f}" if small_mb > 0 else "—"]
        cells += [f"≤ {limit / 1e6:,.0f} MB", verdict(ok)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    peaks = timing_peaks(os.path.join(logs, "make-full.r1.timings"))
    if peaks:
        out.append("Every stage of run 1's whole build (`make bundle -j2`, both inputs; FIELDPACK_TIMINGS): "
                   + ", ".join(f"{stage} {peak / 1e6:,.0f} MB" for stage, peak in peaks.items()) + ".")
        out.append("")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logs", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--synth", required=True, help="the iNat dump's synth.txt")
    parser.add_argument("--wiki-report", required=True)
    parser.add_argument("--scale", default="0")
    parser.add_argument("--settings", default="")
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    logs, runs = args.logs, args.runs

    def timed(name):
        return Runs.read(logs, name, runs)

    ingest, dedupe, bundle = timed("ingest"), timed("dedupe"), timed("bundle")
    inat = Runs.chain([ingest, dedupe, bundle])
    duck_sqlite, duck_parquet = timed("duckdb-sqlite"), timed("duckdb-parquet")
    wiki, selectolax, lxml = timed("wiki"), timed("wiki-selectolax"), timed("wiki-lxml")
    hash_ours, hash_openssl = timed("hash-fieldpack"), timed("hash-openssl")
    parse_ours, parse_simdjson = timed("parse-fieldpack"), timed("parse-simdjson")
    make_full, make_rebuild, make_noop = timed("make-full"), timed("make-rebuild"), timed("make-noop")
    damage = damage_line(args.synth)
    wiki_html = load_json(args.wiki_report).get("html_bytes_cleaned", 0)

    out = []
    out.append("# fieldpack benchmark")
    out.append("")
    with open(os.path.join(logs, "versions.txt"), encoding="utf-8") as handle:
        out += [f"- {line.rstrip()}" for line in handle if line.strip()]
    out.append(f"- settings: {args.settings}")
    with open(args.synth, encoding="utf-8") as handle:
        synth = handle.read().splitlines()
    out.append(f"- iNat input: {' '.join(synth[1:2])}" + (f"; damage: {' '.join(synth[2].split()[1:])}" if damage else ""))
    out.append(f"- wiki input: {wiki_html / 1e6:,.1f} MB of wanted article HTML")
    out.append("")
    out.append(f"Medians of {runs} whole-process run(s), (min–max) the run-to-run spread; wall time and peak RSS "
               "from GNU time. Ratio: peer ÷ fieldpack (wall time; memory where stated).")
    out.append("")

    rows = []  # work, fieldpack, peer, ratio, target, verdict
    r = ratio(duck_sqlite.wall, inat.wall)
    rows.append(("iNat path (ingest + dedupe + bundle)", inat.text(), f"DuckDB → SQLite: {duck_sqlite.text()}",
                 f"{r:.2f}", "≥ 3", verdict(r >= 3)))
    r = ratio(duck_parquet.wall, inat.wall)
    rows.append(("", "", f"DuckDB → Parquet: {duck_parquet.text()}", f"{r:.2f}", "≥ 1.5", verdict(r >= 1.5)))
    r = ratio(duck_sqlite.peak, inat.peak)
    rows.append(("iNat path, peak memory", inat.rss_text(), f"DuckDB → SQLite: {duck_sqlite.rss_text()}",
                 f"{r:.1f}", "≥ 10", verdict(r >= 10)))
    r = ratio(selectolax.wall, wiki.wall)
    rows.append(("wiki stage (full blurbs)", wiki.text(), f"selectolax (lexbor) + nh3, 2 processes, lead only: {selectolax.text()}",
                 f"{r:.2f}", "≥ 1.5", verdict(r >= 1.5)))
    rows.append(("", "", f"lxml + nh3, 2 processes, lead only: {lxml.text()}", f"{ratio(lxml.wall, wiki.wall):.2f}", "—", "—"))
    wiki_mb = wiki.peak * 1024 * 1024 / 1e6
    rows.append(("wiki stage, peak memory", f"{wiki_mb:,.0f} MB", "", "", "≤ 100 MB", verdict(wiki_mb <= 100)))
    r = ratio(duck_sqlite.wall, make_full.wall)
    rows.append(("`make bundle -j2`, both inputs (search index, verify)", make_full.text(),
                 f"DuckDB → SQLite, iNat part alone: {duck_sqlite.wall_text()}", f"{r:.2f}", "≥ 1", verdict(r >= 1)))
    share = make_rebuild.wall / make_full.wall if make_full.wall > 0 else float("inf")
    rows.append(("touch the wiki dump, rebuild", make_rebuild.text(), "", f"{share:.2f} of the whole build",
                 "≤ 0.40", verdict(share <= 0.4)))
    rows.append(("no-op `make bundle`", make_noop.wall_text(), "", "", "< 1 s", verdict(make_noop.wall < 1)))
    r = ratio(hash_openssl.wall, hash_ours.wall)
    rows.append(("SHA-256 of 1 GiB (page cache)", hash_ours.text(), f"`openssl dgst -sha256`: {hash_openssl.text()}",
                 f"{r:.2f}", "≥ 0.9", verdict(r >= 0.9)))
    r = ratio(parse_simdjson.wall, parse_ours.wall)
    rows.append(("JSON parse alone, 1 core", parse_ours.text(), f"simdjson (pysimdjson): {parse_simdjson.text()}",
                 f"{r:.2f}", "≥ 1", verdict(r >= 1)))
    out.append("| work | fieldpack | peer | peer ÷ fieldpack | target | |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out.append("")

    out.append("Stages of the iNat path (medians):")
    out.append("")
    out.append("| stage | wall s | peak RSS |")
    out.append("| --- | --- | --- |")
    for name, stage in (("ingest", ingest), ("dedupe", dedupe), ("bundle", bundle)):
        out.append(f"| {name} | {stage.wall_text()} | {stage.rss_text()} |")
    without_costs = Runs.once(logs, "bundle-no-costs")
    every = Runs.once(logs, "bundle-every-licence")
    first_bundle = bundle.walls[0]
    added = first_bundle - without_costs.wall
    share = added / inat.walls[0] * 100 if inat.walls[0] > 0 else 0
    out.append(f"| bundle without display targets (run 1) | {without_costs.wall_text()} | {without_costs.rss_text()} |")
    out.append(f"| bundle with every licence (run 1) | {every.wall_text()} | {every.rss_text()} |")
    out.append("")
    out.append(f"Cost estimation added {added:+.2f} s to run 1's bundle stage, {share:+.1f}% of the iNat path "
               f"(target under 10%: {verdict(share < 10)}).")
    out.append("")

    out += memory_lines(logs, args, ingest, dedupe, bundle, wiki)
    count_lines, counts_ok = check_counts(logs, runs, damage)
    out.append("Row counts (run 1's bundle against every DuckDB run):")
    out.append("")
    out += count_lines
    wiki_line, wiki_ok = check_wiki(logs, runs, wiki_html)
    out.append(wiki_line)
    counts_ok = counts_ok and wiki_ok
    text = "\n".join(out) + "\n"
    sys.stdout.write("\n" + text)
    with open(args.results + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(args.results + ".tmp", args.results)
    print(f"\nwritten to {args.results}", file=sys.stderr)
    if not counts_ok:
        print("run-bench: a peer's counts differ from fieldpack's (above): the timings do not compare the same job",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
