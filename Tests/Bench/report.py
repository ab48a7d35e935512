#!/usr/bin/env python3
"""The benchmark's report: reads what Tests/Bench/run-bench.sh measured (GNU time's
"wall_s peak_rss_kib user_s system_s" per run, the row counts, the versions) and prints the
goals of issue 11 as a markdown table, also written to --results.

Every figure is the median of the runs, with the run-to-run spread (min-max). A ratio is
peer / fieldpack of the medians (above 1: fieldpack is faster). The row counts must agree
(see check_counts); a mismatch is printed and the exit status is 1. A goal that is missed is
reported as FAIL, which is a result, not an error (exit 0).

--parts names the sections that ran (BENCH_PARTS: runs, scale, opendata, slurm); the report holds
those, and says of the others that they did not run, with no figure or verdict for them.

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
    HTML each reports must equal the wiki stage's `html_bytes_cleaned` in the same run (each
    run's content-change rebuild edits the dump the next run reads). Returns (line, ok)."""
    problems = []
    for run in range(1, runs + 1):
        report = os.path.join(logs, f"wiki-report.r{run}.json")
        run_bytes = load_json(report).get("html_bytes_cleaned", 0) if os.path.exists(report) else html_bytes
        for parser in ("selectolax", "lxml"):
            with open(os.path.join(logs, f"wiki-{parser}.r{run}.log"), encoding="utf-8") as handle:
                last = handle.read().strip().splitlines()[-1]
            words = last.split()
            seen = int(words[words.index("bytes") - 1]) if "bytes" in words else -1
            if seen != run_bytes:
                problems.append(f"{parser} run {run} read {seen:,} bytes of article HTML, fieldpack {run_bytes:,}")
    if problems:
        return "Wiki articles: MISMATCH: " + "; ".join(problems), False
    return f"Wiki articles: every baseline read fieldpack's bytes of wanted article HTML in its run ({html_bytes:,} in the last).", True


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


def memory_lines(logs, args, small_runs, scale):
    """Peak RSS per stage (issue 12): at BENCH_N (medians) when the runs ran (small_runs: ingest,
    dedupe, bundle and wiki Runs, else None), at 10 x BENCH_N when the scale section ran, the
    growth between them when both did, each stage's limit and verdict; then every stage of the
    whole build (run 1's FIELDPACK_TIMINGS)."""
    small = small_runs is not None
    wanted = load_json(args.wiki_report).get("wanted", 0) if small else 0
    scale_report = os.path.join(logs, "wiki-report.scale.json")
    scale_wanted = load_json(scale_report).get("wanted", 0) if scale and os.path.exists(scale_report) else 0
    out = ["Peak memory per stage (issue 12: at most 300 MB a stage at 1M and 10M observations, the wiki stage "
           "at most 100 MB with 100k articles wanted; MB = 10^6 bytes, GNU time's maximum RSS):", ""]
    header = ["stage"]
    if small:
        header.append("BENCH_N: wall, peak")
    if scale:
        header.append("10 × BENCH_N: wall, peak")
    if small and scale:
        header.append("growth")
    header += ["limit", ""]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + " --- |" * len(header))
    if small:
        ingest, dedupe, bundle, wiki = small_runs
        stages = [("ingest", ingest), ("dedupe", dedupe), ("bundle", bundle),
                  ("manifest", Runs.once(logs, "manifest")), ("verify", Runs.once(logs, "verify")), ("wiki", wiki)]
    else:
        stages = [(key, None) for key in ("ingest", "dedupe", "bundle", "manifest", "verify", "wiki")]
    if small and scale:
        wiki_name = f"wiki ({wanted:,} wanted; {scale_wanted:,} at 10 ×)"
    elif small:
        wiki_name = f"wiki ({wanted:,} wanted)"
    else:
        wiki_name = f"wiki ({scale_wanted:,} wanted at 10 ×)"
    for key, small_stage in stages:
        limit = WIKI_LIMIT if key == "wiki" else STAGE_LIMIT
        cells = [wiki_name if key == "wiki" else key]
        ok = True
        if small:
            small_mb = small_stage.peak * 1048576 / 1e6
            cells.append(f"{small_stage.wall:.2f} s, {small_mb:,.0f} MB")
            ok = small_mb * 1e6 <= limit
        if scale:
            big = Runs.once(logs, f"{key}.scale")
            big_mb = big.peak * 1048576 / 1e6
            ok = ok and big_mb * 1e6 <= limit
            cells.append(f"{big.wall:.2f} s, {big_mb:,.0f} MB")
            if small:
                cells.append(f"× {big_mb / small_mb:.2f}" if small_mb > 0 else "—")
        cells += [f"≤ {limit / 1e6:,.0f} MB", verdict(ok)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if not small:
        out.append("The figures at BENCH_N were not measured (BENCH_PARTS without runs): no growth is given.")
        out.append("")
    if not scale:
        out.append("The figures at 10 × BENCH_N were not measured ("
                   + ("BENCH_SCALE=0" if args.scale == "0" else "BENCH_PARTS without scale") + ").")
        out.append("")
    peaks = timing_peaks(os.path.join(logs, "make-full.r1.timings")) if small else {}
    if peaks:
        out.append("Every stage of run 1's whole build (`make bundle -j2`, both inputs; FIELDPACK_TIMINGS): "
                   + ", ".join(f"{stage} {peak / 1e6:,.0f} MB" for stage, peak in peaks.items()) + ".")
        out.append("")
    return out


def timing_walls(folder):
    """Each stage's wall seconds from a build's FIELDPACK_TIMINGS files, a sharded stage's shards
    added up (the work they did; make -j runs them side by side). {stage: (seconds, files)}."""
    walls = {}
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                timing = load_json(os.path.join(folder, name))
                seconds, files = walls.get(timing["stage"], (0.0, 0))
                walls[timing["stage"]] = (seconds + timing["seconds"], files + 1)
    order = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify"]
    return dict(sorted(walls.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order), item[0])))


def shards_lines(logs, runs, make_full, bench_n):
    """Issue 12: a fresh SHARDS=4 build against a fresh SHARDS=1 build (make -j2, same pipeline),
    with the unsharded whole build beside them. Returns (main-table rows, lines below the table)."""
    four, one = Runs.read(logs, "make-shards4", runs), Runs.read(logs, "make-shards1", runs)
    extra = (four.wall / one.wall - 1) * 100 if one.wall > 0 else float("inf")
    per_run = [(f / o - 1) * 100 for f, o in zip(four.walls, one.walls) if o > 0]
    cell = f"SHARDS=4 ÷ SHARDS=1: {extra:+.1f}%"
    if len(per_run) > 1:
        cell += f" (runs: {min(per_run):+.1f}% to {max(per_run):+.1f}%)"
    rows = [("fresh `make bundle -j2 SHARDS=4`, both inputs (issue 12)", four.text(),
             f"fresh `SHARDS=1`: {one.text()}; unsharded whole build (above): {make_full.wall_text()}",
             cell, "≤ +15%", verdict(extra <= 15) if bench_n == 1_000_000 else "— (set on the 1M set)")]
    below = []
    with open(os.path.join(logs, "shards-check.txt"), encoding="utf-8") as handle:
        checks = [line.strip() for line in handle if line.strip()]
    below.append(f"Sharded builds: {len(checks)} of {2 * runs} published the unsharded build's bundle byte for byte "
                 "(every file of bundle/, cmp; the benchmark stops at the first that does not).")
    if bench_n != 1_000_000:
        below.append(f"Issue 12's SHARDS target is set on the 1M set; this run has BENCH_N={bench_n:,}.")
    walls = {name: timing_walls(os.path.join(logs, f"{name}.r1.timings")) for name in ("make-full", "make-shards1", "make-shards4")}
    stages = list(dict.fromkeys(stage for build in walls.values() for stage in build))
    if stages:
        below.append("")
        below.append("Run 1's builds stage by stage (FIELDPACK_TIMINGS wall seconds; a sharded stage's shards added up, "
                     "which make -j2 runs two at a time):")
        below.append("")
        below.append("| stage | unsharded | SHARDS=1 | SHARDS=4 |")
        below.append("| --- | --- | --- | --- |")
        for stage in stages:
            cells = []
            for name in ("make-full", "make-shards1", "make-shards4"):
                seconds, files = walls[name].get(stage, (None, 0))
                cells.append("—" if seconds is None else f"{seconds:.2f}" + (f" ({files} shards)" if files > 1 else ""))
            below.append(f"| {stage} | " + " | ".join(cells) + " |")
    return rows, below


PARTS = {"runs": "the runs at BENCH_N (the main table)", "scale": "the scale section (10 × BENCH_N)",
         "opendata": "the open-data export path", "slurm": "the Slurm engine's overhead"}


def slurm_section(logs):
    """The lines of Tests/Bench/run-bench.sh's step 4c: check-slurm.sh --measure's own figures
    (its stdout, logs/slurm.out), as measured, and GNU time's wall for the whole step."""
    lines = ["## The Slurm engine's overhead (issue 12)", ""]
    path = os.path.join(logs, "slurm.out")
    with open(path, encoding="utf-8") as handle:
        said = [line.rstrip()[len("check-slurm: "):] for line in handle if line.startswith("check-slurm: ")]
    if not said:
        raise SystemExit(f"report: {path} holds no check-slurm figures")
    lines.append("`Tests/Slurm/check-slurm.sh --measure` on a one-node cluster (`slurm-local.sh`; its scheduler "
                 "settings on the line \"measuring on\"); a Slurm array's time runs from `sbatch` to an empty queue, "
                 "a build's from `make` to the verified bundle:")
    lines.append("")
    lines += [f"- {line}" for line in said]
    step = Runs.once(logs, "slurm")
    lines += ["", f"The whole step (cluster up and down included): {step.walls[0]:.1f} s."]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logs", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--synth", required=True, help="the iNat dump's synth.txt")
    parser.add_argument("--scale-synth", help="the 10 x iNat dump's synth.txt")
    parser.add_argument("--wiki-report", required=True)
    parser.add_argument("--scale", default="0")
    parser.add_argument("--parts", default="runs,scale,opendata", help="the sections that ran (comma list)")
    parser.add_argument("--bench-n", type=int, default=1_000_000)
    parser.add_argument("--settings", default="")
    parser.add_argument("--results", required=True)
    args = parser.parse_args()
    logs, runs = args.logs, args.runs
    ran = {part for part in args.parts.split(",") if part}
    unknown = ran - set(PARTS)
    if unknown:
        parser.error(f"--parts: not a part: {', '.join(sorted(unknown))}")
    runs_ran = "runs" in ran
    scale_ran = "scale" in ran and args.scale != "0"
    import opendata_report
    opendata_ran = "opendata" in ran
    if opendata_ran and not opendata_report.present(logs):
        parser.error(f"--parts names opendata, but {logs} holds no open-data figures")

    out = []
    out.append("# fieldpack benchmark")
    out.append("")
    with open(os.path.join(logs, "versions.txt"), encoding="utf-8") as handle:
        out += [f"- {line.rstrip()}" for line in handle if line.strip()]
    out.append(f"- settings: {args.settings}")
    not_run = []
    for part, what in PARTS.items():
        if part == "scale" and args.scale == "0":
            not_run.append(f"{what}: BENCH_SCALE=0")
        elif part not in ran:
            not_run.append(f"{what}: not in BENCH_PARTS")
    out.append("- parts run: " + ", ".join(part for part in PARTS if part in ran and (part != "scale" or scale_ran))
               + ("; not run: " + "; ".join(not_run) if not_run else ""))
    damage = damage_line(args.synth) if runs_ran else {}
    if runs_ran:
        with open(args.synth, encoding="utf-8") as handle:
            synth = handle.read().splitlines()
        out.append(f"- iNat input: {' '.join(synth[1:2])}" + (f"; damage: {' '.join(synth[2].split()[1:])}" if damage else ""))
        wiki_html = load_json(args.wiki_report).get("html_bytes_cleaned", 0)
        out.append(f"- wiki input: {wiki_html / 1e6:,.1f} MB of wanted article HTML")
    if scale_ran and args.scale_synth and os.path.exists(args.scale_synth):
        with open(args.scale_synth, encoding="utf-8") as handle:
            synth = handle.read().splitlines()
        out.append(f"- iNat input at 10 ×: {' '.join(synth[1:2])}")
        scale_report = os.path.join(logs, "wiki-report.scale.json")
        if os.path.exists(scale_report):
            out.append(f"- wiki input at 10 ×: {load_json(scale_report).get('html_bytes_cleaned', 0) / 1e6:,.1f} MB of wanted article HTML")
    out.append("")

    counts_ok = True
    if runs_ran:
        lines, counts_ok = runs_section(logs, runs, args, damage, scale_ran)
        out += lines
    else:
        out.append("The runs at BENCH_N did not run (BENCH_PARTS without runs): no main table, no goal of issue 11 "
                   "is measured here.")
        out.append("")
        if scale_ran:
            out += memory_lines(logs, args, None, True)
    # The open-data export path (Tests/Bench/opendata.sh), when it ran: its own section.
    if opendata_ran:
        lines, export_ok = opendata_report.section(logs, runs, args.scale)
        out += [""] + lines
        counts_ok = counts_ok and export_ok
    else:
        out += ["", "## The open-data export path (issue 13)", "",
                "Not run (BENCH_PARTS without opendata): no figure."]
    out += [""] + (slurm_section(logs) if "slurm" in ran else [
        "## The Slurm engine's overhead (issue 12)", "", "Not run (BENCH_PARTS without slurm): no figure."])
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


def runs_section(logs, runs, args, damage, scale):
    """The runs at BENCH_N: the main table, the iNat path's stages, peak memory per stage (with
    the 10 x figures when the scale section ran), the row counts. Returns (lines, counts agree)."""

    def timed(name):
        return Runs.read(logs, name, runs)

    ingest, dedupe, bundle = timed("ingest"), timed("dedupe"), timed("bundle")
    inat = Runs.chain([ingest, dedupe, bundle])
    duck_sqlite, duck_parquet = timed("duckdb-sqlite"), timed("duckdb-parquet")
    wiki, selectolax, lxml = timed("wiki"), timed("wiki-selectolax"), timed("wiki-lxml")
    hash_ours, hash_openssl = timed("hash-fieldpack"), timed("hash-openssl")
    parse_ours, parse_simdjson = timed("parse-fieldpack"), timed("parse-simdjson")
    make_full, make_rebuild, make_noop = timed("make-full"), timed("make-rebuild"), timed("make-noop")
    make_changed = timed("make-changed")
    wiki_html = load_json(args.wiki_report).get("html_bytes_cleaned", 0)

    out = []
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
    share = make_changed.wall / make_full.wall if make_full.wall > 0 else float("inf")
    rows.append(("one wanted article changed, rebuild", make_changed.text(), "", f"{share:.2f} of the whole build",
                 "none (issue 11's ≤ 0.40 is for a touch)", "—"))
    rows.append(("no-op `make bundle`", make_noop.wall_text(), "", "", "< 1 s", verdict(make_noop.wall < 1)))
    shard_rows, shard_below = shards_lines(logs, runs, make_full, args.bench_n)
    rows += shard_rows
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
    changed = []
    for run in range(1, runs + 1):
        with open(os.path.join(logs, f"make-changed.r{run}.article"), encoding="utf-8") as handle:
            changed.append(handle.read().splitlines()[0])
    out.append(f"The changed article: \"{changed[0]}\" (its lead's first sentence, a new text every run, the dump "
               "file replaced untimed; each rebuilt bundle carried the new text in that article's blurb).")
    out += shard_below
    out.append("")

    out.append("Stages of the iNat path (medians):")
    out.append("")
    out.append("| stage | wall s | peak RSS |")
    out.append("| --- | --- | --- |")
    for name, stage in (("ingest", ingest), ("dedupe", dedupe), ("bundle", bundle)):
        out.append(f"| {name} | {stage.wall_text()} | {stage.rss_text()} |")
    without_costs = Runs.read(logs, "bundle-no-costs", runs)
    every = Runs.once(logs, "bundle-every-licence")
    out.append(f"| bundle without display targets (beside it, every run) | {without_costs.wall_text()} | {without_costs.rss_text()} |")
    out.append(f"| bundle with every licence (run 1) | {every.wall_text()} | {every.rss_text()} |")
    out.append("")
    # Paired run by run: each run's bundle stage against the one without targets beside it (after
    # it in odd runs, before it in even ones), as a share of that run's iNat path; the median decides.
    added = [with_ - without for with_, without in zip(bundle.walls, without_costs.walls)]
    shares = [a / path * 100 if path > 0 else 0 for a, path in zip(added, inat.walls)]
    # The median run's pair (the lower middle one for an even count), seconds and share alike.
    middle = sorted(range(len(shares)), key=lambda i: shares[i])[(len(shares) - 1) // 2]
    share = shares[middle]
    spread = f"; runs: {min(shares):+.1f}% to {max(shares):+.1f}%" if len(shares) > 1 else ""
    out.append(f"Cost estimation added {added[middle]:+.2f} s to the bundle stage, {share:+.1f}% of the iNat path "
               f"(run {middle + 1}, the median of the runs' differences{spread}; target under 10%: {verdict(share < 10)}).")
    out.append("")

    out += memory_lines(logs, args, (ingest, dedupe, bundle, wiki), scale)
    count_lines, counts_ok = check_counts(logs, runs, damage)
    out.append("Row counts (run 1's bundle against every DuckDB run):")
    out.append("")
    out += count_lines
    wiki_line, wiki_ok = check_wiki(logs, runs, wiki_html)
    out.append(wiki_line)
    return out, counts_ok and wiki_ok


if __name__ == "__main__":
    sys.exit(main())
