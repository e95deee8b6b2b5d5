#!/usr/bin/env python3
# report_check.py — checks of dbgauge's reports against the results database they came from
# (python3 stdlib only): HTML numbers, CSV and JSON round trips, compare's percentages, and a
# headless Chromium run of each report. Prints `ok - ...` / `not ok - ...` lines; never skips.
#   report_check.py html REPORT.html RESULTS.db RUN_ID GROUP_ID LABEL
#   report_check.py csv FILE.csv RESULTS.db
#   report_check.py json FILE.json RESULTS.db
#   report_check.py compare OUT.txt RESULTS.db A B          (runs)
#   report_check.py compare-groups OUT.txt RESULTS.db GA GB [GC ...]
#   report_check.py compare-groups-html OUT.txt COMPARE.html RESULTS.db GA GB [GC ...]
#   report_check.py browser REPORT.html SCREENSHOT.png LABEL|- [REPORT.html SCREENSHOT.png LABEL|- ...]
#       (or REPORT.html SCREENSHOT.png [LABEL]: every page in one browser)
#   report_check.py card REPORT.html RESULTS.db RUN_ID KEY SQL-EXPRESSION-ON-run
#   report_check.py monitor REPORT.html RESULTS.db RUN_ID   (monitor charts, cards, means = run_monitor)
#   report_check.py targets REPORT.html RESULTS.db RUN_ID   (per-target charts, table, spread = run_target)
#   report_check.py exp-html REPORT.html RESULTS.db EXP_ID [LABEL]   (step table, charts, percent changes)
#   report_check.py exp-json|exp-csv|exp-md FILE RESULTS.db EXP_ID  (the same figures in each export)
#   report_check.py exp-mixed REPORT.html   (an experiment of a tpcc step then a stress step)
#   report_check.py exact-json FILE.json RESULTS.db          (stored doubles read back bit for bit)
#   report_check.py compare-exp OUT.txt COMPARE.html RESULTS.db EA EB   (steps paired by swept value)
#   report_check.py causes RUN.json CAUSE NAME [PCT]   (every error of CAUSE, at least one; with PCT:
#       those at most PCT% of the transactions, none of another cause)
#   report_check.py events REPORT.html RUN.json RUN.txt RESULTS.db RUN_ID   (outages, faults, schedule, in doubt)
import csv, html.parser, json, math, os, pathlib, re, sqlite3, struct, sys
sys.dont_write_bytecode = True  # no __pycache__ left in the tree by the import below
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from browser import Browser, BrowserError  # noqa: E402 (scripts/browser.py: one Chromium for many pages)

def check(cond, name, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond or not detail else ": " + str(detail)))
    return cond

def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(float(a) - float(b)) <= rel * max(1.0, abs(float(b)))

def db(path):
    c = sqlite3.connect(path)
    c.row_factory = sqlite3.Row
    return c

def figs(d, run_id, idx=-1):
    """A run's headline figures as stored (run_figure, schema 9): {name: value}."""
    return {r["name"]: r["value"] for r in d.execute(
        "SELECT name, value FROM run_figure WHERE run_id = ? AND target_idx = ? ORDER BY seq", (run_id, idx))}

def pct(a, b):
    return "n/a" if a == 0 else "%+.1f%%" % (100.0 * (b / a - 1))

class Page(html.parser.HTMLParser):
    """Collects cards, table cells with data-v (by the nearest tr/section), chart data and label text."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cards, self.rows, self.charts, self.labels = {}, [], [], []
        self.section = None; self.tr = None; self.script = None; self.in_label = None; self.td = None; self.figure = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("data-run-id") or ("g" + a["data-group-id"] if "data-group-id" in a else
                                                    "e" + a["data-experiment-id"] if "data-experiment-id" in a else "cmp")
        if tag == "div" and a.get("class") == "card":
            self.cards[(self.section, a["data-key"])] = float(a["data-v"])
        if tag == "figure":
            self.figure = a.get("id")
        if tag == "tr":
            self.tr = {"attrs": a, "cells": [], "text": [], "section": self.section, "figure": self.figure}
            self.rows.append(self.tr)
        if tag == "td" and self.tr is not None:
            self.tr["cells"].append(float(a["data-v"]) if "data-v" in a else None)
            self.td = ""
        if tag == "script" and a.get("class") == "chart-data":
            self.script = ""
        if tag == "span" and a.get("class") == "label":
            self.in_label = ""
    def handle_endtag(self, tag):
        if tag == "figure": self.figure = None
        if tag == "script" and self.script is not None:
            self.charts.append((self.section, json.loads(self.script))); self.script = None
        if tag == "span" and self.in_label is not None:
            self.labels.append(self.in_label); self.in_label = None
        if tag == "td" and self.td is not None and self.tr is not None:
            self.tr["text"].append(self.td); self.td = None
    def handle_data(self, d):
        if self.script is not None: self.script += d
        if self.in_label is not None: self.in_label += d
        if self.td is not None: self.td += d

def parse(path):
    p = Page(); p.feed(open(path, encoding="utf-8").read()); return p

def labels(c, k=None):
    """The texts written above series k's points, or above the one labelled series when k is None."""
    if c is None: return None
    if k is not None: return c["series"][k].get("labels")
    return next((s["labels"] for s in c["series"] if "labels" in s), None)

def chart(p, section, suffix):
    for s, c in p.charts:
        if s == section and c["id"].endswith("-" + suffix): return c
    return None

def html_check(path, dbp, run_id, group_id, label):
    d = db(dbp); p = parse(path); raw = open(path, encoding="utf-8").read()
    run = d.execute("SELECT * FROM run WHERE id = ?", (run_id,)).fetchone()
    txn = d.execute("SELECT * FROM run_txn WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
    s = str(run_id)
    for key, col in (("nopm", "nopm"), ("tpm", "tpm"), ("measured_s", "measured_s")):
        check(close(p.cards.get((s, key)), run[col]), f"html: run {run_id} headline {key} equals the stored {run[col]}", p.cards.get((s, key)))
    check(close(p.cards.get((s, "p95_ms")), txn[0]["p95_ms"]) and close(p.cards.get((s, "p99_ms")), txn[0]["p99_ms"]),
          "html: headline p95/p99 equal the stored ones")
    rows = {r["attrs"]["data-type"]: r["cells"] for r in p.rows if "data-type" in r["attrs"] and r["section"] == s}
    good = len(rows) == len(txn)
    for t in txn:
        c = (rows.get(t["type"]) or [None])[1:]
        want = [t["committed"] + t["rollbacks"], None, t["committed"], t["rollbacks"], t["retries"], t["errors"]] + \
               ([t["in_doubt"]] if t["in_doubt"] is not None else []) + \
               [t["avg_ms"], t["p50_ms"], t["p90_ms"], t["p95_ms"], t["p99_ms"], t["max_ms"]]  # in doubt: schema 10 on
        if not c or any(w is not None and not close(c[i], w) for i, w in enumerate(want)): good = False
    check(good, f"html: per-type table of run {run_id} equals run_txn ({len(txn)} types)")
    tp = chart(p, s, "tput")
    ser = d.execute("SELECT second, SUM(committed + rollbacks) n FROM run_series WHERE run_id = ? GROUP BY second ORDER BY second", (run_id,)).fetchall()
    check(tp is not None and tp["x"] == [r["second"] for r in ser] and tp["series"][0]["values"] == [r["n"] for r in ser],
          f"html: throughput chart equals run_series per second ({len(ser)} seconds)")
    check(tp is not None and tp.get("shade", {}).get("from") == ser[0]["second"] and ser[0]["second"] < 0, "html: warm-up shaded from its first second to 0")
    lat = chart(p, s, "lat")
    s99 = d.execute("SELECT p99_ms, committed + rollbacks n FROM run_series WHERE run_id = ? AND seq = 0 ORDER BY second", (run_id,)).fetchall()
    check(lat is not None and all((v is None and r["n"] == 0) or close(v, r["p99_ms"]) for v, r in zip(lat["series"][1]["values"], s99)),
          "html: p99 latency chart equals run_series")
    pc = chart(p, s, "pct")
    ok = pc is not None and pc["log_y"] and len(pc["series"]) == len(txn)
    if ok:
        xs = pc["x_text"]
        for k, t in enumerate(txn):
            for ptxt, col in (("50%", "p50_ms"), ("90%", "p90_ms"), ("95%", "p95_ms"), ("99%", "p99_ms")):
                if not close(pc["series"][k]["values"][xs.index(ptxt)], t[col]): ok = False
    check(ok, "html: percentile curve per type (log scale) from the histograms matches stored p50/p90/p95/p99")
    # The group: one row per step, MB/s and run time as stored, percent change on the chart.
    steps = d.execute("SELECT id, vus, measured_s, bytes, rows FROM run WHERE group_id = ? ORDER BY id", (group_id,)).fetchall()
    g = "g" + str(group_id)
    srows = [r for r in p.rows if r["section"] == g and "data-run-id" in r["attrs"]]
    ok = len(srows) == len(steps) and len(steps) >= 2
    for r, st in zip(srows, steps):
        mb = st["bytes"] / 1e6 / st["measured_s"]
        if not (r["cells"][0] == st["vus"] and r["cells"][1] == st["id"] and close(r["cells"][2], st["measured_s"]) and close(r["cells"][6], mb)):
            ok = False
    check(ok, f"html: group {group_id} steps table equals the stored steps ({len(steps)})")
    mc = chart(p, g, "mbps")
    mbs = [st["bytes"] / 1e6 / st["measured_s"] for st in steps]
    want = [None] + [pct(mbs[i - 1], mbs[i]) for i in range(1, len(mbs))]
    check(mc is not None and labels(mc) == want and all(close(a, b) for a, b in zip(mc["series"][0]["values"], mbs)),
          "html: MB/s per thread count with the percent change written on the chart", mc and labels(mc))
    tc = chart(p, g, "time")
    check(tc is not None and all(close(a, st["measured_s"]) for a, st in zip(tc["series"][0]["values"], steps)) and len(labels(tc) or []) == len(steps),
          "html: run time per thread count with percent changes")
    check(label in p.labels, "html: the label is in the page as text, unchanged", p.labels[:3])
    check("<script>alert(1)" not in raw, "html: the label's <script> is not in the page raw")
    n_scripts = len(re.findall(r"<script\b", raw))
    check(n_scripts == 3 + len(p.charts), f"html: only our scripts ({n_scripts} = 3 + {len(p.charts)} data blocks)")
    check(not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", raw) and "<link" not in raw, "html: nothing loaded from the network (no src/href/link)")

MON_COLS = ("cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "disk_read_mb_s", "disk_write_mb_s", "disk_read_iops",
            "disk_write_iops", "disk_await_ms", "server_rss_bytes", "server_read_mb_s", "server_write_mb_s",
            "cache_hits_per_s", "cache_misses_per_s")

def mon_means(rows):
    """Means of the measured window (second >= 0) over the available (non-NULL) samples, from run_monitor rows."""
    out = {}
    for c in MON_COLS:
        v = [r[c] for r in rows if r["second"] >= 0 and r[c] is not None]
        out[c] = sum(v) / len(v) if v else None
    h = sum(r["cache_hits_per_s"] for r in rows if r["second"] >= 0 and r["cache_hits_per_s"] is not None)
    m = sum(r["cache_misses_per_s"] for r in rows if r["second"] >= 0 and r["cache_misses_per_s"] is not None)
    out["cache_hit_ratio"] = h / (h + m) if h + m > 0 else None
    return out

def monitor_check(path, dbp, run_id):
    d = db(dbp); p = parse(path); s = str(run_id)
    rows = d.execute("SELECT * FROM run_monitor WHERE run_id = ? ORDER BY second", (run_id,)).fetchall()
    if not check(len(rows) >= 2, f"monitor: run {run_id} has monitor samples stored ({len(rows)})"):
        return
    secs = [r["second"] for r in rows]
    same = lambda got, col: len(got) == len(rows) and all((g is None and r[col] is None) or close(g, r[col]) for g, r in zip(got, rows))
    for suffix, cols in (("moncpu", ("cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct")), ("mondisk", ("disk_read_mb_s", "disk_write_mb_s")),
                         ("moniops", ("disk_read_iops", "disk_write_iops", "disk_await_ms"))):
        c = chart(p, s, suffix)
        ok = c is not None and c["x"] == secs and len(c["series"]) == len(cols)
        ok = ok and all(same(c["series"][k]["values"], col) for k, col in enumerate(cols))
        check(ok, f"monitor: chart {suffix} of run {run_id} equals run_monitor {'/'.join(cols)} per second ({len(rows)} s)")
        check(c is not None and (secs[0] >= 0 or c.get("shade", {}).get("from") == secs[0]), f"monitor: chart {suffix} shades the warm-up from second {secs[0]}")
    # the table under the CPU chart: one row per second with the same numbers
    cpu_rows = [r for r in p.rows if r["figure"] == "run%d-moncpu" % run_id and r["cells"]]
    check(len(cpu_rows) == len(rows) and [t["cells"][0] for t in cpu_rows] == secs and all(close(t["cells"][1], r["cpu_user_pct"]) for t, r in zip(cpu_rows, rows)),
          "monitor: the table under the CPU chart holds the same numbers")
    want = mon_means(rows)
    means = {r["attrs"]["data-mean"]: r["cells"][1] for r in p.rows if r["section"] == s and "data-mean" in r["attrs"]}
    bad = [c for c, v in want.items() if not ((v is None and means.get(c) is None) or close(means.get(c), v))]
    check(len(means) == len(want) and not bad, f"monitor: measured-window means in the configuration equal those of run_monitor", bad)
    for key, v in (("mon_disk_read_mb_s", want["disk_read_mb_s"]), ("mon_disk_write_mb_s", want["disk_write_mb_s"]),
                   ("mon_cache_hit_pct", None if want["cache_hit_ratio"] is None else 100 * want["cache_hit_ratio"])):
        got = p.cards.get((s, key))
        check((v is None and got is None) or close(got, v), f"monitor: headline {key} = {v} from run_monitor", got)

def targets_check(path, dbp, run_id):
    d = db(dbp); p = parse(path); s = str(run_id); raw = open(path, encoding="utf-8").read()
    run = d.execute("SELECT * FROM run WHERE id = ?", (run_id,)).fetchone()
    ts = d.execute("SELECT * FROM run_target WHERE run_id = ? ORDER BY idx", (run_id,)).fetchall()
    n = len(ts)
    if not check(n >= 2, f"targets: run {run_id} has {n} stored targets"):
        return
    mean = sum(t["nopm"] for t in ts) / n
    pcts = ["%+.1f%%" % (100.0 * (t["nopm"] - mean) / mean) for t in ts]
    c = chart(p, s, "tnopm")
    ok = c is not None and c["bars"] and c["x_text"] == ["#%d" % (k + 1) for k in range(n)] + ["mean", "total"]
    ok = ok and all(close(a, b) for a, b in zip(c["series"][0]["values"], [t["nopm"] for t in ts] + [mean, run["nopm"]]))
    ok = ok and all(close(a, b) for a, b in zip(c["series"][1]["values"], [t["tpm"] for t in ts] + [sum(t["tpm"] for t in ts) / n, run["tpm"]]))
    check(ok, f"targets: NOPM/TPM bars per target equal run_target, then their mean and the run's total", c and c["series"][0]["values"])
    check(c is not None and (labels(c) or [])[:n] == pcts, f"targets: each target's percent from the mean NOPM written on the chart {pcts}", c and labels(c))
    lc = chart(p, s, "tlat")
    lmean = sum(t["avg_ms"] for t in ts) / n
    ok = lc is not None and all(close(a, b) for a, b in zip(lc["series"][0]["values"], [t["avg_ms"] for t in ts] + [lmean]))
    ok = ok and all(close(a, t["p95_ms"]) for a, t in zip(lc["series"][1]["values"], ts)) and len(lc["x"]) == n + 1
    check(ok, "targets: avg/p95 latency bars per target equal run_target, then the mean")
    check(lc is not None and (labels(lc) or [])[:n] == ["%+.1f%%" % (100.0 * (t["avg_ms"] - lmean) / lmean) for t in ts],
          "targets: each target's avg latency percent from the mean written on the chart")
    rows = {int(r["attrs"]["data-target-idx"]): r for r in p.rows if r["section"] == s and "data-target-idx" in r["attrs"]}
    ok = len(rows) == n
    for t in ts:
        r = rows.get(t["idx"])
        if not r or r["text"][1] != t["target_redacted"] or not all(close(r["cells"][i], t[col]) for i, col in
                ((3, "warehouses"), (4, "vus"), (5, "nopm"), (6, "tpm"), (8, "avg_ms"), (9, "p50_ms"), (10, "p95_ms"), (11, "p99_ms"), (12, "max_ms"))):
            ok = False
    check(ok, f"targets: per-target table equals run_target (targets as text, figures exact)")
    sp = {r["attrs"]["data-spread"]: r["cells"][1:] for r in p.rows if r["section"] == s and "data-spread" in r["attrs"]}
    nv = [t["nopm"] for t in ts]
    want = [mean, min(nv), nv.index(min(nv)) + 1, 100 * (min(nv) - mean) / mean, max(nv), nv.index(max(nv)) + 1, 100 * (max(nv) - mean) / mean]
    check("nopm" in sp and all(close(a, b) for a, b in zip(sp["nopm"], want)), f"targets: spread of NOPM (mean, min, max and whose) recomputed from run_target", sp.get("nopm"))
    note = re.search(r"fastest: target #(\d+).*slowest: target #(\d+)", raw)
    check(note is not None and int(note[1]) == want[5] and int(note[2]) == want[2], "targets: fastest and slowest named from run_target")
    for t in ts:
        check(t["target_redacted"] not in raw or "<" not in t["target_redacted"], f"targets: target {t['idx'] + 1} text is escaped in the page")

CAUSES = ("deadlock", "serialization", "lock_timeout", "busy", "other")

def csv_check(path, dbp):
    d = db(dbp)
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    check(rows and all(r["schema_version"] == "1" for r in rows), "csv: every row carries schema_version 1")
    num = lambda v: float(v) if v != "" else None
    runs = [r for r in rows if r["kind"] == "run"]
    ok = bool(runs)
    for r in runs:
        x = d.execute("SELECT * FROM run WHERE id = ?", (int(r["run_id"]),)).fetchone()
        f = figs(d, int(r["run_id"]))  # a column named after a figure the run has not: 0
        if not (x and r["label"] == (x["label"] or "") and all(close(num(r[k]), f.get(k, 0)) for k in ("nopm", "tpm", "mb_per_s"))
                and num(r["measured_s"]) == x["measured_s"] and int(r["threads"]) == x["vus"] and int(r["bytes"]) == x["bytes"]):
            ok = False
    check(ok, f"csv: {len(runs)} run rows equal the run table and run_figure (labels and figures)")
    txns = [r for r in rows if r["kind"] == "txn"]
    ok = bool(txns)
    for r in txns:
        x = d.execute("SELECT * FROM run_txn WHERE run_id = ? AND type = ?", (int(r["run_id"]), r["type"])).fetchone()
        for c in ("committed", "rollbacks", "retries", "errors", "in_doubt", "avg_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"):
            if num(r[c]) != x[c]: ok = False
        causes = [num(r["retries_" + c]) for c in CAUSES]
        if causes != [x["retries_" + c] for c in CAUSES] or sum(causes) != x["retries"]: ok = False
    check(ok, f"csv: {len(txns)} txn rows equal run_txn exactly (in_doubt too), the retries by cause summing to the retries")
    ser = [r for r in rows if r["kind"] == "series"]
    stored = d.execute("SELECT COUNT(*) FROM run_series WHERE run_id IN (%s)" % ",".join(r["run_id"] for r in runs)).fetchone()[0]
    ok = len(ser) == stored and stored > 0
    types = {}
    for r in ser:
        key = (int(r["run_id"]), r["type"])
        if key not in types:
            types[key] = d.execute("SELECT seq FROM run_txn WHERE run_id = ? AND type = ?", key).fetchone()[0]
        x = d.execute("SELECT * FROM run_series WHERE run_id = ? AND second = ? AND seq = ?", (key[0], int(r["second"]), types[key])).fetchone()
        if not x or any(num(r[c]) != x[c] for c in ("committed", "rollbacks", "retries", "errors", "p50_ms", "p95_ms", "p99_ms")):
            ok = False
    check(ok, f"csv: {len(ser)} series rows equal run_series ({stored} stored)")
    pc = [r for r in rows if r["kind"] == "percentile"]
    ok = bool(pc)
    for r in pc:
        if r["percentile"] in ("50", "95", "99"):
            x = d.execute("SELECT * FROM run_txn WHERE run_id = ? AND type = ?", (int(r["run_id"]), r["type"])).fetchone()
            if num(r["latency_ms"]) != x["p" + r["percentile"] + "_ms"]: ok = False
    check(ok, f"csv: percentile rows (from the histograms) agree with the stored p50/p95/p99")
    mon = [r for r in rows if r["kind"] == "monitor"]
    stored = d.execute("SELECT COUNT(*) FROM run_monitor WHERE run_id IN (%s)" % ",".join(r["run_id"] for r in runs)).fetchone()[0]
    ok = len(mon) == stored and stored > 0
    for r in mon:
        x = d.execute("SELECT * FROM run_monitor WHERE run_id = ? AND second = ?", (int(r["run_id"]), int(r["second"]))).fetchone()
        if not x or any(num(r[c]) != x[c] for c in MON_COLS): ok = False
    check(ok, f"csv: {len(mon)} monitor rows equal run_monitor exactly ({stored} stored)")

def json_check(path, dbp):
    d = db(dbp); doc = json.load(open(path))
    check(doc.get("schema_version") == 1, "json: schema_version 1")
    ok = True; n = 0; nmon = 0
    for it in doc["items"]:
        for r in it["runs"]:
            n += 1
            x = d.execute("SELECT * FROM run WHERE id = ?", (r["run_id"],)).fetchone()
            secs = d.execute("SELECT COUNT(DISTINCT second) FROM run_series WHERE run_id = ?", (r["run_id"],)).fetchone()[0]
            f = figs(d, r["run_id"])  # every headline figure under its name, none other
            if not (f and all(close(r.get(k), v) for k, v in f.items()) and r["label"] == (x["label"] or "")
                    and len(r["series"]) == secs and r["percentiles"]):
                ok = False
            mon = d.execute("SELECT * FROM run_monitor WHERE run_id = ? ORDER BY second", (r["run_id"],)).fetchall()
            nmon += len(mon)
            got = r.get("monitor_series", [])
            if len(got) != len(mon) or any(g["second"] != m["second"] or any(not ((g[c] is None and m[c] is None) or close(g[c], m[c], 1e-13)) for c in MON_COLS) for g, m in zip(got, mon)):
                ok = False
    check(ok and n > 0 and nmon > 0, f"json: {n} runs with their figures, series, percentiles and monitor_series ({nmon} samples) equal the database")

def compare_check(path, dbp, a, b):
    d = db(dbp); text = open(path).read()
    ra = d.execute("SELECT * FROM run WHERE id = ?", (a,)).fetchone(); rb = d.execute("SELECT * FROM run WHERE id = ?", (b,)).fetchone()
    ta = d.execute("SELECT p95_ms FROM run_txn WHERE run_id = ? AND seq = 0", (a,)).fetchone()[0]
    tb = d.execute("SELECT p95_ms FROM run_txn WHERE run_id = ? AND seq = 0", (b,)).fetchone()[0]
    for name, va, vb in (("NOPM", ra["nopm"], rb["nopm"]), ("TPM", ra["tpm"], rb["tpm"]), ("new_order p95 ms", ta, tb)):
        line = next((l for l in text.splitlines() if l.startswith(name + " ")), "")
        check(line.split()[-1] == pct(va, vb), f"compare: {name} change {pct(va, vb)} from the stored {va} and {vb}", line)
    for name in ("retries", "errors"):
        va, vb = [d.execute("SELECT SUM(%s) FROM run_txn WHERE run_id = ?" % name, (x,)).fetchone()[0] for x in (a, b)]
        line = next((l for l in text.splitlines() if l.startswith(name + " ")), "")
        f = line.split()
        check(f[1:3] == ["{:,}".format(va), "{:,}".format(vb)] and f[3] == (pct(va, vb) if va else "n/a"),
              f"compare: {name} of all types side by side ({va}, {vb}) as stored", line)

def compare_groups_check(path, dbp, groups, html_path=None):
    """compare group:A group:B [group:C ...]: each later side's MB/s change from the first, per
    thread count they share with it, in the text table and (html_path) written on its own bars."""
    d = db(dbp); text = open(path).read()
    def mb(g, th):
        r = d.execute("SELECT bytes, measured_s FROM run WHERE group_id = ? AND vus = ?", (g, th)).fetchone()
        return r["bytes"] / 1e6 / r["measured_s"] if r else None
    ths = [[r[0] for r in d.execute("SELECT vus FROM run WHERE group_id = ? ORDER BY vus", (g,))] for g in groups]
    g0 = groups[0]
    ok = all(set(ths[0]) & set(t) for t in ths[1:])
    for th in ths[0]:
        name = "MB/s, %d thread%s" % (th, "" if th == 1 else "s")
        line = next((l for l in text.splitlines() if l.startswith(name + " ")), "")
        cells = line[len(name):].split()  # side 0, then each side's value and change
        for i, g in enumerate(groups[1:], 1):
            want = pct(mb(g0, th), mb(g, th)) if th in ths[i] else "n/a"
            if len(cells) != 2 * len(groups) - 1 or cells[2 * i] != want: ok = False; print("#", name, i, want, line)
    check(ok, f"compare groups: {len(groups)} sides, steps paired by thread count {ths}, MB/s changes from the stored figures")
    if html_path is None:
        return
    c = next((c for s, c in parse(html_path).charts if c["id"] == "cmp-0"), None)
    x = [int(t) for t in c["x_text"]] if c else []
    ok = c is not None and len(c["series"]) == len(groups) and labels(c, 0) is None
    for i, g in enumerate(groups):
        for j, th in enumerate(x):
            v = mb(g, th) if th in ths[i] else None
            if ok and not (close(c["series"][i]["values"][j], v) if v is not None else c["series"][i]["values"][j] is None): ok = False
            if ok and i and (labels(c, i) or [None] * len(x))[j] != (pct(mb(g0, th), v) if v is not None and th in ths[0] else None):
                ok = False; print("#", i, th, labels(c, i))
    check(ok, f"compare groups html: MB/s per thread count {x}, one series per side, each later side's change from the first on its bars",
          c and [s.get("labels") for s in c["series"]])

def browser(*args):
    """browser PAGE SHOT LABEL|- [PAGE SHOT LABEL|- ...] (or PAGE SHOT [LABEL]): every page in
    one headless Chromium (scripts/browser.py), since each start of one costs about 1.5 s of CPU"""
    if len(args) % 3 == 2:  # PAGE SHOT alone: no label
        args = (*args, "-")
    jobs = [(args[i], args[i + 1], None if args[i + 2] == "-" else args[i + 2]) for i in range(0, len(args) - 2, 3)]
    try:
        b = Browser()
    except Exception as e:
        return check(False, "browser: chromium starts", e)
    try:
        for path, shot, label in jobs:
            browse(b, path, shot, label)
    finally:
        b.close()

def browse(b, path, shot, label):
    # a URL, not a path: a soak repeat's folder (artifacts/asan_e2e_faults#1) holds a "#"
    url = pathlib.Path(os.path.abspath(path)).as_uri()
    m = lambda a: (re.search(r'<html[^>]*\b%s="([^"]*)"' % a, dom) or [None, None])[1]
    # The DOM as it is once report.js has run: it sets data-ready last, and the browser waits
    # for it (at most 30 s: a page whose script fails still gets ready, one that never does is
    # judged as it is then)
    name = os.path.basename(path)
    try:
        dom = b.dom(url, 1280, 5600, timeout=30)
    except BrowserError as e:
        return check(False, f"browser: chromium opened {name}", e)
    check(m("data-ready") == "1", f"browser: {name} got ready (report.js ran)", m("data-ready"))
    check(m("data-errors") == "", f"browser: {name} opens with no script error or blocked load", m("data-errors"))
    figs = re.findall(r'<figure class="chart" id="([^"]+)"', open(path, encoding="utf-8").read())
    check(m("data-charts") == "%d/%d" % (len(figs), len(figs)) and figs, f"browser: {name} draws all {len(figs)} charts", m("data-charts"))
    px = json.loads(html.unescape(m("data-pixels") or "{}"))
    blank = [f for f in figs if px.get(f, 0) < 50]
    check(not blank, f"browser: every chart's canvas shows its series (pixels {sorted(px.values())[:1]}.. per chart)", blank)
    check(m("data-alerted") is None, f"browser: no alert() ran in {name}")
    # a chart of counts (every value whole) has whole ticks only, written without decimals
    yt = json.loads(html.unescape(m("data-yticks") or "{}"))
    p = Page(); p.feed(open(path, encoding="utf-8").read())
    counts = [c["id"] for _, c in p.charts if not c.get("log_y") and c["series"] and
              all(v is None or float(v).is_integer() for s in c["series"] for v in s["values"])]
    bad = {i: yt.get(i) for i in counts if not yt.get(i) or not all(re.fullmatch(r"-?[0-9,]+", t) for t in yt[i])}
    check(not bad, f"browser: the {len(counts)} charts of counts have whole y ticks", bad)
    if label is not None:
        p = Page(); p.feed(dom)
        check(label in p.labels, f"browser: the label is shown as text in {name}", p.labels[:2])
    try:
        if os.path.exists(shot):
            os.remove(shot)
        b.shot(url, 1280, 5600, os.path.abspath(shot), timeout=30)
    except BrowserError as e:
        print("# browser: screenshot of", name, "failed:", e)
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, f"browser: screenshot saved as {shot}")

def exp_mixed(path):
    """A tpcc step then a stress step: shared column heads name both, no change written across."""
    p = parse(path); raw = open(path, encoding="utf-8").read()
    check("<th>TPM or rows/s</th><th>NOPM or MB/s</th>" in raw, "mixed exp html: the step table's heads name both workloads' figures")
    check("complete (stress)" in raw, "mixed exp html: the stress step is marked")
    cs = [c for s, c in p.charts if s.startswith("e")]
    across = [(c["id"], s.get("labels")) for c in cs for s in c["series"] if (s.get("labels") or [None, None])[1] is not None]
    check(len(cs) >= 2 and not across, f"mixed exp html: {len(cs)} charts, no change written across workloads", across)

def events_check(path, jpath, tpath, dbp, run_id):
    """A run's outages, faults, schedule and in-doubt errors in the HTML, the JSON and the text = the database."""
    d = db(dbp); p = parse(path); doc = json.load(open(jpath)); text = open(tpath, encoding="utf-8").read()
    outs = d.execute("SELECT * FROM run_outage WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
    flts = d.execute("SELECT * FROM run_fault WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
    run = d.execute("SELECT * FROM run WHERE id = ?", (run_id,)).fetchone()
    s = str(run_id)
    per_s = [c for sec, c in p.charts if sec == s and c["x_label"] == "second"]
    ok = len(per_s) >= 3 and outs and flts
    for c in per_s:
        sh = [x for x in c.get("spans", []) if x["kind"] == "shade"]
        mk = [x for x in c.get("spans", []) if x["kind"] == "mark"]
        if [x["from"] for x in sh] != [o["start_s"] for o in outs] or [x["from"] for x in mk] != [f["start_s"] for f in flts]:
            ok = False
        if any(not close(x["to"], o["start_s"] + o["duration_s"]) for x, o in zip(sh, outs)): ok = False
    check(ok, f"events html: each of the {len(per_s)} per-second charts has one shaded span per outage ({len(outs)}) "
              f"and one mark per fault ({len(flts)}), from their stored starts", [c["id"] for c in per_s])
    err = next((c for c in per_s if c["id"].endswith("-err")), None)
    rec = [r[0] for r in d.execute("SELECT reconnects FROM run_series WHERE run_id = ? AND seq = 0 ORDER BY second", (run_id,))]
    check(err is not None and next(x["values"] for x in err["series"] if x["name"] == "reconnects") == rec,
          "events html: the errors chart's reconnects per second = run_series' type-0 rows", rec)
    rows = [r for r in p.rows if r["section"] == s and "data-outage" in r["attrs"]]
    check(len(rows) == len(outs) and all(close(r["cells"][2], o["start_s"]) and r["cells"][4] == o["errors"] and
                                          (r["cells"][6] is None) == (o["first_commit_s"] is None) for r, o in zip(rows, outs)),
          "events html: the outages table = run_outage (a never as an empty cell)")
    frows = [r for r in p.rows if r["section"] == s and "data-fault" in r["attrs"]]
    check(len(frows) == len(flts) and all(r["text"][-1] == f["command"] for r, f in zip(frows, flts)),
          "events html: the faults table = run_fault, commands as text")
    jo, jf = doc.get("outages"), doc.get("faults")
    check(jo is not None and len(jo) == len(outs) and all(
              j["target"] == o["target_idx"] + 1 and j["start_s"] == o["start_s"] and j["errors"] == o["errors"] and
              j["reconnects"] == o["reconnects"] and j["first_commit_s"] == o["first_commit_s"] and
              j["recovery_s"] == o["recovery_s"] and j["back_on"] == (o["back_on"] or None) for j, o in zip(jo, outs)),
          "events json: outages = run_outage (targets from 1, never as null)", jo)
    check(jf is not None and len(jf) == len(flts) and all(
              j["offset_s"] == f["offset_s"] and j["start_s"] == f["start_s"] and j["end_s"] == f["end_s"] and
              j["exit_status"] == f["exit_status"] and j["command"] == f["command"] for j, f in zip(jf, flts)),
          "events json: faults = run_fault (a running one's end null)", jf)
    sc = doc.get("schedule") or {}
    kept = (run["late"] + run["skipped"]) * 100 <= run["arrivals"]
    check([sc.get("arrivals"), sc.get("late"), sc.get("skipped")] == [run["arrivals"], run["late"], run["skipped"]]
          and doc["rate"]["kept_up"] == kept, f"events json: the schedule = run's, kept_up {kept} by late + skipped <= 1%", sc)
    txn = d.execute("SELECT type, in_doubt FROM run_txn WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
    check(all(doc["transactions"][t["type"]]["in_doubt"] == t["in_doubt"] for t in txn), "events json: in_doubt per type = run_txn")
    lines = [l for l in text.splitlines() if l.startswith("  outage ") or l.startswith("  fault ")]
    check(len(lines) == len(outs) + len(flts) and ("kept up;" if kept else "FELL BEHIND") in text and
          "%d arrivals" % run["arrivals"] in text, "events text: a line per outage and fault, the schedule and its verdict", lines)

def card_check(path, dbp, run_id, key, expr):
    p = parse(path)
    want = db(dbp).execute("SELECT %s FROM run WHERE id = ?" % expr, (run_id,)).fetchone()[0]
    got = p.cards.get((str(run_id), key))
    check(close(got, want), f"html: run {run_id} card {key} = {expr} as stored ({want})", got)

def exp_steps(d, exp_id):
    """The stored steps of an experiment, each with what the reports derive from stored columns."""
    out = []
    for r in d.execute("SELECT * FROM run WHERE experiment_id = ? ORDER BY experiment_step", (exp_id,)).fetchall():
        txn = d.execute("SELECT * FROM run_txn WHERE run_id = ? ORDER BY seq", (r["id"],)).fetchall()
        n = sum(t["committed"] + t["rollbacks"] for t in txn)
        mon = mon_means(d.execute("SELECT * FROM run_monitor WHERE run_id = ? ORDER BY second", (r["id"],)).fetchall())
        sw = json.loads(r["swept"] or "{}")
        stress = r["workload"] == "stress"
        out.append({"run": r, "id": r["id"], "step": r["experiment_step"], "nopm": r["nopm"], "tpm": r["tpm"], "swept": sw,
                    # the headline (NOPM; stress: MB/s) and the figure beside it (TPM; stress: rows/s)
                    "head": r["bytes"] / 1e6 / r["measured_s"] if stress else r["nopm"],
                    "second": r["rows"] / r["measured_s"] if stress else r["tpm"],
                    "key": ", ".join("%s=%s" % (k, sw[k]) for k in sorted(sw)),
                    "avg_ms": sum(t["avg_ms"] * (t["committed"] + t["rollbacks"]) for t in txn) / n if n else None,
                    "p95_lo": min(t["p95_ms"] for t in txn), "p95_hi": max(t["p95_ms"] for t in txn),
                    "read": mon["disk_read_mb_s"], "write": mon["disk_write_mb_s"], "hit": mon["cache_hit_ratio"]})
    return out

def exp_html(path, dbp, exp_id, label):
    d = db(dbp); p = parse(path); raw = open(path, encoding="utf-8").read(); e = "e%d" % exp_id
    st = exp_steps(d, exp_id)
    if not check(len(st) >= 3, f"exp html: experiment {exp_id} has {len(st)} stored steps"):
        return
    nopm = [x["head"] for x in st]  # NOPM, or MB/s for stress
    rows = [r for r in p.rows if r["section"] == e and "data-step" in r["attrs"]]
    ok = len(rows) == len(st)
    for r, x in zip(rows, st):
        c = r["cells"]
        # step, swept value (text), run, TPM, NOPM, avg, p95, disk read, disk write, hit %, vs prev, vs first
        if not (c[0] == x["step"] and r["text"][1] == list(x["swept"].values())[0] and c[2] == x["id"] and close(c[3], x["second"])
                and close(c[4], x["head"]) and close(c[5], x["avg_ms"], 1e-6) and x["p95_lo"] <= c[6] <= x["p95_hi"]
                and ((c[7] is None and x["read"] is None) or close(c[7], x["read"])) and ((c[8] is None and x["write"] is None) or close(c[8], x["write"]))
                and ((c[9] is None and x["hit"] is None) or close(c[9], 100 * x["hit"]))):
            ok = False; print("#", c, dict(x["run"])["id"])
    check(ok, f"exp html: step table equals the stored steps (NOPM, TPM exactly; latency and disk MB/s from run_txn and run_monitor)")
    want_prev = [None] + [pct(nopm[i - 1], nopm[i]) for i in range(1, len(st))]
    want_first = [None] + [pct(nopm[0], nopm[i]) for i in range(1, len(st))]
    got_prev = [None] + ["%+.1f%%" % r["cells"][10] for r in rows[1:]]
    got_first = [None] + ["%+.1f%%" % r["cells"][11] for r in rows[1:]]
    check(got_prev == want_prev and got_first == want_first and [r["text"][10] for r in rows[1:]] == want_prev[1:],
          f"exp html: vs prev {want_prev[1:]} and vs first {want_first[1:]} recomputed from the stored NOPM (stress: MB/s)", (got_prev, got_first))
    tp = chart(p, e, "tput")
    stress = st[0]["run"]["workload"] == "stress"
    check(tp is not None and tp["bars"] and tp["x_text"] == [list(x["swept"].values())[0] for x in st]
          and all(close(a, b) for a, b in zip(tp["series"][0]["values"], nopm)) and len(tp["series"]) == (1 if stress else 2)
          and (stress or tp["series"][1]["values"] == [x["tpm"] for x in st]),
          "exp html: throughput chart: NOPM and TPM (stress: MB/s) bars by swept value, as stored", tp and tp["series"][0]["values"])
    if stress:
        rc = chart(p, e, "rows")
        check(rc is not None and all(close(a, x["second"]) for a, x in zip(rc["series"][0]["values"], st)),
              "exp html: stress: rows/s chart from the stored rows and measured seconds")
    check(tp is not None and labels(tp) == want_prev, f"exp html: each step's headline change written on the chart {want_prev}", tp and labels(tp))
    under = [r for r in p.rows if r["figure"] == "exp%d-tput" % exp_id and r["cells"]]
    check(all(close(r["cells"][1], v) for r, v in zip(under, nopm)) and len(under) == len(nopm) and [r["text"][-1] for r in under] == [""] + want_prev[1:],
          "exp html: the table under the throughput chart holds the NOPM and the changes")
    lat = chart(p, e, "lat")
    ok = lat is not None and all(close(a, x["avg_ms"], 1e-6) and x["p95_lo"] <= b <= x["p95_hi"]
                                 for a, b, x in zip(lat["series"][0]["values"], lat["series"][1]["values"], st))
    p95 = lat["series"][1]["values"] if lat else []
    check(ok and labels(lat) == [None] + [pct(p95[i - 1], p95[i]) for i in range(1, len(p95))],
          "exp html: latency chart: avg (= run_txn's weighted mean) and p95 per step, the p95 change written on it")
    dk = chart(p, e, "disk")
    if not any((x["read"] or 0) > 0 or (x["write"] or 0) > 0 for x in st):
        check(dk is None and "No storage chart" in raw, "exp html: no (blank) storage chart without monitor disk traffic, a note instead")
    else:
        tot = [x["read"] + x["write"] for x in st]
        ok = dk is not None and all(close(a, x["read"]) and close(b, x["write"]) and close(c, t)
                                    for a, b, c, x, t in zip(*[s["values"] for s in dk["series"]], st, tot))
        check(ok and labels(dk) == [None] + [pct(tot[i - 1], tot[i]) for i in range(1, len(tot))],
              "exp html: storage chart: disk read/write MB/s = run_monitor means, the change of read + write written on it", dk and labels(dk))
    if label is None:
        return
    check(label in p.labels, "exp html: the experiment's label is in the page as text, unchanged", p.labels[:3])
    check("<script>alert(1)" not in raw, "exp html: the label's <script> is not in the page raw")
    n_scripts = len(re.findall(r"<script\b", raw))
    check(n_scripts == 3 + len(p.charts), f"exp html: only our scripts ({n_scripts} = 3 + {len(p.charts)} data blocks)")

def exp_export(mode, path, dbp, exp_id):
    d = db(dbp); st = exp_steps(d, exp_id); nopm = [x["nopm"] for x in st]
    prev = [None] + [100.0 * (nopm[i] / nopm[i - 1] - 1.0) for i in range(1, len(st))]
    first = [None] + [100.0 * (nopm[i] / nopm[0] - 1.0) for i in range(1, len(st))]
    if mode == "exp-json":
        doc = json.load(open(path))
        it = [i for i in doc["items"] if i["kind"] == "experiment" and i["id"] == exp_id]
        if not check(len(it) == 1, f"exp json: one item of kind experiment, id {exp_id}"):
            return
        it = it[0]; steps = it["steps"]
        exp = d.execute("SELECT * FROM experiment WHERE id = ?", (exp_id,)).fetchone()
        check(it["label"] == exp["label"] and it["file"] == exp["file"] and it["headline"] == "nopm", "exp json: label, file and headline as stored")
        ok = len(steps) == len(st) and all(s["nopm"] == x["nopm"] and s["tpm"] == x["tpm"] and s["run_id"] == x["id"] and s["swept"] == x["swept"]
                                           for s, x in zip(steps, st))
        check(ok, "exp json: each step's NOPM and TPM equal the stored ones exactly, with its swept values")
        ok = all((a is None and s["change_prev_pct"] is None) or close(s["change_prev_pct"], a, 1e-12) for s, a in zip(steps, prev))
        ok = ok and all((a is None and s["change_first_pct"] is None) or close(s["change_first_pct"], a, 1e-12) for s, a in zip(steps, first))
        check(ok, f"exp json: change_prev_pct and change_first_pct recomputed from the stored NOPM", [s["change_prev_pct"] for s in steps])
        ok = all(close(s["disk_write_mb_s"], x["write"]) and close(s["avg_ms"], x["avg_ms"], 1e-6) for s, x in zip(steps, st) if x["write"] is not None)
        check(ok, "exp json: disk write MB/s = run_monitor means, avg latency = run_txn's weighted mean")
        check([r["run_id"] for r in it["runs"]] == [x["id"] for x in st] and all(r["series"] and r["percentiles"] for r in it["runs"]),
              "exp json: every step's run with its series and percentiles")
    elif mode == "exp-csv":
        rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
        sr = [r for r in rows if r["kind"] == "step" and r["experiment_id"] == str(exp_id)]
        ok = len(sr) == len(st) and all(float(r["nopm"]) == x["nopm"] and float(r["tpm"]) == x["tpm"] and int(r["run_id"]) == x["id"]
                                        and json.loads(r["swept"]) == x["swept"] and int(r["experiment_step"]) == x["step"] for r, x in zip(sr, st))
        check(ok, f"exp csv: {len(sr)} step rows with the stored NOPM, TPM and swept values")
        ok = all((a is None and r["change_prev_pct"] == "") or close(float(r["change_prev_pct"]), a, 1e-12) for r, a in zip(sr, prev))
        ok = ok and all((a is None and r["change_first_pct"] == "") or close(float(r["change_first_pct"]), a, 1e-12) for r, a in zip(sr, first))
        check(ok, "exp csv: change_prev_pct and change_first_pct recomputed from the stored NOPM")
        ids = {str(x["id"]) for x in st}
        runs = [r for r in rows if r["kind"] == "run" and r["run_id"] in ids]
        check(len(runs) == len(st) and all(r["experiment_id"] == str(exp_id) for r in rows if r["run_id"] in ids),
              "exp csv: each step's run rows follow, every row carrying the experiment id")
    else:
        text = open(path, encoding="utf-8").read()
        lines = [l for l in text.splitlines() if re.match(r"^\| \d+ \| ", l)]
        ok = len(lines) == len(st)
        for l, x, a, f in zip(lines, st, prev, first):
            c = [v.strip() for v in l.strip("|").split("|")]
            # step | vus | run | TPM | NOPM | avg | p95 | read | write | hit % | vs prev | vs first
            if not (c[1] == list(x["swept"].values())[0] and c[2] == str(x["id"]) and c[3] == "{:,.0f}".format(x["tpm"])
                    and c[4] == "{:,.0f}".format(x["nopm"]) and c[10] == ("" if a is None else "%+.1f%%" % a)
                    and c[11] == ("" if f is None else "%+.1f%%" % f)):
                ok = False; print("#", c)
        check(ok, f"exp md: {len(lines)} step lines with the stored NOPM/TPM and the changes recomputed")

def exact_json(path, dbp):
    """Every stored double of the runs in the document reads back from the JSON bit for bit."""
    d = db(dbp); doc = json.load(open(path))
    n = bad = long = 0
    def same(a, b):
        nonlocal n, bad, long
        n += 1
        if not (isinstance(a, (int, float)) and float(a) == b and struct.pack("<d", float(a)) == struct.pack("<d", b)):
            bad += 1; print("#", a, "!=", repr(b))
        if len(repr(b).replace("-", "").replace(".", "").lstrip("0")) > 15: long += 1
    for it in doc["items"]:
        for r in it["runs"]:
            x = d.execute("SELECT * FROM run WHERE id = ?", (r["run_id"],)).fetchone()
            for k, col in (("measured_seconds", "measured_s"), ("nopm", "nopm"), ("tpm", "tpm"), ("client_cpu_seconds", "client_cpu_s")):
                same(r[k], x[col])
            for t in d.execute("SELECT * FROM run_txn WHERE run_id = ?", (r["run_id"],)):
                for col in ("avg_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"):
                    same(r["transactions"][t["type"]][col], t[col])
            for g, m in zip(r.get("monitor_series", []), d.execute("SELECT * FROM run_monitor WHERE run_id = ? ORDER BY second", (r["run_id"],))):
                for col in ("disk_write_mb_s", "cpu_user_pct"):
                    if m[col] is not None: same(g[col], m[col])
    check(n > 0 and bad == 0, f"json: {n} stored doubles read back from the JSON bit for bit ({bad} differ)")
    check(long > 0, f"json: {long} of them need more than 15 significant digits (so the check has teeth)")

def compare_exp(path, html_path, dbp, ea, eb):
    d = db(dbp); text = open(path).read().splitlines()
    a = {x["key"]: x for x in exp_steps(d, ea)}; b = {x["key"]: x for x in exp_steps(d, eb)}
    both = [k for k in a if k in b]; only = [k for k in a if k not in b] + [k for k in b if k not in a]
    check(both and only, f"compare exp: the sweeps partly overlap (paired {both}, unpaired {only})")
    ok = True
    for k in both:
        for name, col in (("NOPM", "nopm"), ("TPM", "tpm")):
            line = next((l for l in text if l.startswith("%s, %s " % (name, k))), "")
            if not line or line.split()[-1] != pct(a[k][col], b[k][col]): ok = False; print("#", name, k, line)
    check(ok, f"compare exp: steps paired by swept value, NOPM/TPM changes from the stored figures")
    ok = True
    for k in only:
        line = next((l for l in text if l.startswith("NOPM, %s " % k)), "")
        f = line.split()
        want = ("{:,.0f}".format(a[k]["nopm"]), "-") if k in a else ("-", "{:,.0f}".format(b[k]["nopm"]))
        if not line or f[-3:] != [want[0], want[1], "n/a"]: ok = False; print("#", k, line)
    check(ok, f"compare exp: unpaired steps shown with - on the missing side")
    p = parse(html_path)
    c = next((c for s, c in p.charts if c["id"] == "cmpexp-0-0"), None)
    keys = c["x_text"] if c else []
    order_ok = c is not None and sorted(keys) == sorted(set(a) | set(b)) and all(k in keys for k in both)
    vals_ok = order_ok and all((a[k]["nopm"] if k in a else None) == c["series"][0]["values"][i] and
                               (b[k]["nopm"] if k in b else None) == c["series"][1]["values"][i] for i, k in enumerate(keys))
    lab_ok = order_ok and labels(c, 0) is None and all(labels(c, 1)[i] == (pct(a[k]["nopm"], b[k]["nopm"]) if k in a and k in b else None) for i, k in enumerate(keys))
    check(vals_ok and lab_ok, f"compare exp html: NOPM per swept value {keys}, one series per experiment, the change written on it",
          c and (c["series"][0]["values"], c["series"][1]["values"], labels(c, 1)))
    rows = {r["attrs"]["data-figure"]: r["cells"] for r in p.rows if "data-figure" in r["attrs"]}
    ok = all(close(rows.get("NOPM, " + k, [None] * 4)[3], 100 * (b[k]["nopm"] / a[k]["nopm"] - 1), 1e-12) for k in both)
    check(ok, "compare exp html: the table's change cells equal those from the stored NOPM")

def causes_check(run_json, cause, name, pct=None):
    """A run's errors by cause (its --json): the line says how many were of cause and how many of
    any other; a failure adds each type's errors and causes and the run's first error. A run
    without its JSON (it failed to start) is a failure too, never a missing line."""
    try:
        d = json.load(open(run_json))
        tx = d["transactions"]
    except (OSError, ValueError, KeyError) as e:
        return check(False, name, "no run to read in %s: %s" % (run_json, e))
    count = sum(v.get("count", 0) for v in tx.values())
    errors = sum(v.get("errors", 0) for v in tx.values())
    n = sum(v.get("error_causes", {}).get(cause, 0) for v in tx.values())
    counts = "%s %d, other errors %d, of %d transactions" % (cause, n, errors - n, count)
    ok = errors == n and (n * 100 <= float(pct) * count if pct is not None else n > 0)
    why = "; ".join("%s: %s errors, causes %s" % (k, v.get("errors"), v.get("error_causes"))
                    for k, v in tx.items() if v.get("errors"))
    print(("ok - %s (%s)" if ok else "not ok - %s: %s") % (name, counts) +
          ("" if ok else "; %s; first error: %s" % (why, (d.get("error") or "")[:300])))

if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "html": html_check(args[0], args[1], int(args[2]), int(args[3]), args[4])
    elif mode == "csv": csv_check(*args)
    elif mode == "json": json_check(*args)
    elif mode == "compare": compare_check(args[0], args[1], int(args[2]), int(args[3]))
    elif mode == "compare-groups": compare_groups_check(args[0], args[1], [int(g) for g in args[2:]])
    elif mode == "compare-groups-html": compare_groups_check(args[0], args[2], [int(g) for g in args[3:]], args[1])
    elif mode == "browser": browser(*args)
    elif mode == "monitor": monitor_check(args[0], args[1], int(args[2]))
    elif mode == "targets": targets_check(args[0], args[1], int(args[2]))
    elif mode == "card": card_check(args[0], args[1], int(args[2]), args[3], args[4])
    elif mode == "exp-html": exp_html(args[0], args[1], int(args[2]), args[3] if len(args) > 3 else None)
    elif mode in ("exp-json", "exp-csv", "exp-md"): exp_export(mode, args[0], args[1], int(args[2]))
    elif mode == "exact-json": exact_json(*args)
    elif mode == "exp-mixed": exp_mixed(*args)
    elif mode == "events": events_check(args[0], args[1], args[2], args[3], int(args[4]))
    elif mode == "compare-exp": compare_exp(args[0], args[1], args[2], int(args[3]), int(args[4]))
    elif mode == "causes": causes_check(*args)
    else: sys.exit("unknown mode " + mode)
