#!/usr/bin/env python3
"""The open-data export path's section of the benchmark report (issue 13), from what
Tests/Bench/opendata.sh measured in LOGS (od-*.time: GNU time's "wall_s peak_rss_kib user_s
system_s"; od-fieldpack.counts.json and od-duckdb.rN.counts.json; od-same-rows.txt).

    opendata_report.py --logs DIR --runs N [--scale 1] --results FILE   the section, to FILE and stdout
    opendata_report.py --logs DIR --runs 1 --check-only                 only the row check (exit 1 on a mismatch)

report.py adds the same section to results.md when the logs hold it (`section`). The goals:
fieldpack's three stages at least 3x faster than DuckDB (wall time, DuckDB / fieldpack) at
most 1/10 of its peak memory (the largest stage's peak against DuckDB's), and with
BENCH_SCALE=1 each stage's peak at F x N within 1.2 x of its peak at N (constant memory; F is
BENCH_OPEN_DATA_SCALE, default 10, which opendata.sh writes to od-scale-factor.txt).
Standard library only.
"""
import argparse
import json
import os
import statistics
import sys

TABLES = ("observations", "photos", "taxa", "users", "observation_photos")
STAGES = ("ingest", "dedupe", "bundle")
# The export as iNaturalist publishes it: each table gzipped, and the .tar.gz of the tables, its
# members in the benchmark's order (observers, taxa, photos, observations) and in name order.
PUBLISHED = {"gz": ("the tables gzipped (`observations.csv.gz`, …)", "read_csv on the same `.csv.gz`"),
             "tar": ("the `.tar.gz` (`inaturalist-open-data-20241127.tar.gz`)", "`tar -xzf`, then the same on the unpacked tables"),
             "tar-last": ("the same `.tar.gz` packed in name order, its taxa last", "the same")}


def times(logs, name):
    """(wall seconds, peak RSS MiB) of one run's .time file."""
    with open(os.path.join(logs, f"{name}.time"), encoding="utf-8") as handle:
        wall, rss_kib, *_ = handle.read().split()
    return float(wall), int(rss_kib) / 1024


def present(logs):
    return os.path.exists(os.path.join(logs, "od-fieldpack.counts.json"))


def check(logs, runs):
    """The rows agree: every DuckDB run's counts are fieldpack's, and run 1 kept the same
    observations and photos. Returns (markdown lines, ok)."""
    with open(os.path.join(logs, "od-fieldpack.counts.json"), encoding="utf-8") as handle:
        ours = json.load(handle)
    lines = ["| table | fieldpack bundle | DuckDB |", "| --- | --- | --- |"]
    problems = []
    for table in TABLES:
        values = []
        for run in range(1, runs + 1):
            with open(os.path.join(logs, f"od-duckdb.r{run}.counts.json"), encoding="utf-8") as handle:
                values.append(json.load(handle)[table])
        distinct = sorted(set(values))
        if distinct != [ours[table]]:
            problems.append(f"{table}: DuckDB gives {', '.join(f'{v:,}' for v in distinct)}, fieldpack {ours[table]:,}")
        lines.append(f"| {table} | {ours[table]:,} | {', '.join(f'{v:,}' for v in distinct)} |")
    # The export as published (when measured): fieldpack's bundles and DuckDB's runs from the
    # gzipped tables and from the .tar.gz hold the loose tables' rows.
    for form in PUBLISHED:
        path = os.path.join(logs, f"od-fieldpack-{form}.counts.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as handle:
            theirs = {f"fieldpack ({form})": json.load(handle)}
        for run in range(1, runs + 1):
            with open(os.path.join(logs, f"od-duckdb-{form}.r{run}.counts.json"), encoding="utf-8") as handle:
                theirs[f"DuckDB ({form}, run {run})"] = json.load(handle)
        for who, counts in theirs.items():
            differ = [f"{table} {counts[table]:,} (loose: {ours[table]:,})" for table in TABLES if counts[table] != ours[table]]
            if differ:
                problems.append(f"{who}: " + ", ".join(differ))
    with open(os.path.join(logs, "od-same-rows.txt"), encoding="utf-8") as handle:
        same = handle.read().strip() == "same"
    if not same:
        problems.append("the kept observations' uuids or the kept photos' ids differ")
    lines.append("")
    lines.append("Rows: " + ("agree (counts, and the very uuids and photo ids kept)" if not problems
                             else "MISMATCH: " + "; ".join(problems)))
    return lines, not problems


def scale_factor(logs):
    """How many times N the scale step's export holds (od-scale-factor.txt; 10 before it was written)."""
    path = os.path.join(logs, "od-scale-factor.txt")
    if not os.path.exists(path):
        return 10
    with open(path, encoding="utf-8") as handle:
        return int(handle.read().strip())


def section(logs, runs, scale):
    """The section's markdown lines, and whether the rows agree."""
    factor = scale_factor(logs) if scale != "0" else 10
    share = "a tenth" if factor == 10 else f"1/{factor}"
    stages = {stage: [times(logs, f"od-{stage}.r{run}") for run in range(1, runs + 1)] for stage in STAGES}
    duck = [times(logs, f"od-duckdb.r{run}") for run in range(1, runs + 1)]
    chain_walls = [sum(stages[s][i][0] for s in STAGES) for i in range(runs)]
    chain_peaks = [max(stages[s][i][1] for s in STAGES) for i in range(runs)]
    wall, peak = statistics.median(chain_walls), statistics.median(chain_peaks)
    duck_wall, duck_peak = statistics.median(w for w, _ in duck), statistics.median(r for _, r in duck)

    def spread(values, unit, digits):
        return f" ({min(values):,.{digits}f}–{max(values):,.{digits}f})" if len(values) > 1 else ""

    out = ["## The open-data export path (issue 13)", ""]
    with open(os.path.join(logs, "od-input.txt"), encoding="utf-8") as handle:
        out.append(f"- input: {handle.read().strip()} (fieldpack-synth --open-data, loose tables)")
    out.append("- select: a polygon with a hole (about Europe), and Animalia without one genus")
    out.append("- DuckDB: read_csv (tab, no quote or escape character, typed columns, ignore_errors), the same dedupe "
               "(QUALIFY row_number()), the polygon with the spatial extension (ST_Intersects), into SQLite")
    out.append("")
    wall_ratio = duck_wall / wall if wall > 0 else float("inf")
    memory_ratio = duck_peak / peak if peak > 0 else float("inf")
    out.append("| work | fieldpack (ingest + dedupe + bundle) | DuckDB → SQLite | DuckDB ÷ fieldpack | target | |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    out.append(f"| wall time | {wall:.2f} s{spread(chain_walls, 's', 2)} | {duck_wall:.2f} s{spread([w for w, _ in duck], 's', 2)} "
               f"| {wall_ratio:.2f} | ≥ 3 | {'PASS' if wall_ratio >= 3 else 'FAIL'} |")
    out.append(f"| peak memory (largest stage) | {peak:,.0f} MiB | {duck_peak:,.0f} MiB | {memory_ratio:.1f} | ≥ 10 "
               f"| {'PASS' if memory_ratio >= 10 else 'FAIL'} |")
    out.append("")
    # At F x N with a guide of about N's size (information beside the test), when measured.
    guide = scale != "0" and os.path.exists(os.path.join(logs, "od-ingest.scale-guide.time"))
    out.append("| stage | wall s | peak RSS |" + (f" at {factor} × N: wall s, peak RSS | {factor} × N ÷ N (peak) |" if scale != "0" else "")
               + (f" at {factor} × N, a guide of N's size: wall s, peak RSS | ÷ N (peak) |" if guide else ""))
    out.append("| --- | --- | --- |" + (" --- | --- |" if scale != "0" else "") + (" --- | --- |" if guide else ""))
    flat = True
    for stage in STAGES:
        walls = [w for w, _ in stages[stage]]
        peaks = [r for _, r in stages[stage]]
        row = f"| {stage} | {statistics.median(walls):.2f}{spread(walls, 's', 2)} | {statistics.median(peaks):,.0f} MiB |"
        if scale != "0":
            big_wall, big_peak = times(logs, f"od-{stage}.scale")
            growth = big_peak / statistics.median(peaks)
            flat = flat and growth <= 1.2
            row += f" {big_wall:.2f} s, {big_peak:,.0f} MiB | {growth:.2f} |"
        if guide:
            guide_wall, guide_peak = times(logs, f"od-{stage}.scale-guide")
            row += f" {guide_wall:.2f} s, {guide_peak:,.0f} MiB | {guide_peak / statistics.median(peaks):.2f} |"
        out.append(row)
    out.append("")
    if scale != "0":
        with open(os.path.join(logs, "od-scale-input.txt"), encoding="utf-8") as handle:
            out.append(f"At {factor} × N: {handle.read().strip()}.")
        out.append(f"Constant memory (each stage's peak at {factor} × N within 1.2 × of its peak at N): {'PASS' if flat else 'FAIL'}.")
        if guide:
            kept = []
            for name in ("od-fieldpack", "od-scale", "od-scale-guide"):
                with open(os.path.join(logs, f"{name}.counts.json"), encoding="utf-8") as handle:
                    kept.append(json.load(handle)["observations"])
            out.append(f"Kept observations: {kept[0]:,} at N, {kept[1]:,} at {factor} × N, {kept[2]:,} at {factor} × N with the "
                       f"polygon's area {share}. That last column is information beside the test, not its verdict: with the guide about "
                       "the same size, what grows is the export alone.")
        out.append("")
    # The export as published, when measured: beside the goal, which issue 13 sets on the tables.
    if os.path.exists(os.path.join(logs, "od-ingest.gz.r1.time")):
        out.append("The export as published (the same export and selection; information beside the goal above, which is "
                   "set on the loose tables):")
        out.append("")
        out.append("| input | fieldpack (ingest + dedupe + bundle) | of which ingest | DuckDB → SQLite | DuckDB ÷ fieldpack |")
        out.append("| --- | --- | --- | --- | --- |")
        for form, (what, how) in PUBLISHED.items():
            if not os.path.exists(os.path.join(logs, f"od-ingest.{form}.r1.time")):
                continue
            chain = [[times(logs, f"od-{stage}.{form}.r{run}") for stage in STAGES] for run in range(1, runs + 1)]
            walls = [sum(w for w, _ in run) for run in chain]
            peaks = [max(r for _, r in run) for run in chain]
            ingest = [run[0][0] for run in chain]
            peer = [times(logs, f"od-duckdb-{form}.r{run}") for run in range(1, runs + 1)]
            peer_walls = [w for w, _ in peer]
            ratio = statistics.median(peer_walls) / statistics.median(walls)
            out.append(f"| {what} | {statistics.median(walls):.2f} s{spread(walls, 's', 2)}, {statistics.median(peaks):,.0f} MiB "
                       f"| {statistics.median(ingest):.2f} s{spread(ingest, 's', 2)} "
                       f"| {how}: {statistics.median(peer_walls):.2f} s{spread(peer_walls, 's', 2)}, "
                       f"{statistics.median(r for _, r in peer):,.0f} MiB | {ratio:.2f} |")
        out.append("")
    # The export at F x N as one .tar.gz, when measured: ingest's memory on the form as published.
    if scale != "0" and os.path.exists(os.path.join(logs, "od-ingest.scale-tar.time")):
        big_wall, big_peak = times(logs, "od-ingest.scale-tar")
        small = [times(logs, f"od-ingest.tar.r{run}")[1] for run in range(1, runs + 1)]
        with open(os.path.join(logs, "od-scale-tar.counts.json"), encoding="utf-8") as handle:
            tar_kept = json.load(handle)["observations"]
        with open(os.path.join(logs, "od-scale.counts.json"), encoding="utf-8") as handle:
            loose_kept = json.load(handle)["observations"]
        out.append(f"At {factor} × N as one `.tar.gz` (the benchmark's member order; information beside the test): ingest "
                   f"{big_wall:.2f} s, {big_peak:,.0f} MiB, {big_peak / statistics.median(small):.2f} times its peak on the "
                   f"`.tar.gz` at N; {tar_kept:,} observations kept"
                   + ("" if tar_kept == loose_kept else f" (MISMATCH: {loose_kept:,} from the loose tables)") + ".")
        out.append("")
        ok_tar = tar_kept == loose_kept
    else:
        ok_tar = True
    lines, ok = check(logs, runs)
    out += lines
    return out, ok and ok_tar


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logs", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--scale", default="0")
    parser.add_argument("--results")
    parser.add_argument("--check-only", action="store_true")
    args = parser.parse_args()
    if args.check_only:
        lines, ok = check(args.logs, args.runs)
        print("\n".join(lines), file=sys.stderr)
        return 0 if ok else 1
    lines, ok = section(args.logs, args.runs, args.scale)
    text = "\n".join(lines) + "\n"
    sys.stdout.write("\n" + text)
    if args.results:
        with open(args.results + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(args.results + ".tmp", args.results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
