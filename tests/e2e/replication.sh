#!/usr/bin/env bash
# replication.sh — the monitor samples replication each second (issue 15 item 2): a TPC-C run
# on a PostgreSQL primary with two synchronous standbys has, in `runs show ID --monitor
# --json`, rows for each standby (streaming, a sync one, lag figures) and records
# synchronous_commit and synchronous_standby_names with its settings; an async run during
# which a standby's walreceiver is stopped shows that standby's bytes behind growing and still
# completes; a run on a standby has the standby's own "self" row; the text and HTML reports
# show them. Starts and stops its OWN servers (by PID, env file
# in its temp dir); a server that does not start is a `not ok`, never a skip. Then (unless
# --no-my) a 3-node Galera cluster's settings: wsrep_on, the cluster size, the provider options
# that shape a run, binlog_format.
. "$(dirname "$0")/../lib.sh"

SERVERS=$DG_ROOT/tests/servers.sh
export DG_SERVERS_ENV=$T_TMP/servers.env
trap '"$SERVERS" stop pgrep >/dev/null 2>&1; "$SERVERS" stop galera >/dev/null 2>&1
      [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT
RES=$T_TMP/results.db

if ! DG_PGR_STANDBYS=2 "$SERVERS" start pgrep >"$T_TMP/start.log" 2>&1; then
    not_ok "start pgrep (a primary, two standbys)" "$(tail -n 8 "$T_TMP/start.log" | tr '\n' ' ')"
    exit 1
fi
ok "start pgrep (a primary, two standbys)"
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"
export PGPASSWORD=$DG_PGR_PASSWORD # libpq reads it: no password in argv
P=$DG_PGR_PRIMARY_URL
S=$DG_PGR_STANDBY_URL
# The standbys' details in pg_stat_replication need pg_read_all_stats (pg_monitor would do).
check "the benchmark role may read replication statistics" \
    psql -X -q -At -v ON_ERROR_STOP=1 "$DG_PGR_PRIMARY_ADMIN_URL" -c "GRANT pg_read_all_stats TO dbgauge"
check "synchronous replication on" "$SERVERS" sync pgrep on

run_dg "$T_TMP/load.out" "$T_TMP/load.err" tpcc load --target "$P" --warehouses 1 --drop
check_exit "tpcc load on the primary exits 0" 0

# pyrelay WHAT ARGS... (a python script on stdin printing `ok - ` / `not ok - ` lines): one check
# per line; a script that crashed is a `not ok` too.
pyrelay() {
    local what=$1
    shift
    python3 - "$@" >"$T_TMP/py.out" 2>&1
    local rc=$?
    relay < <(grep -E '^(ok|not ok) - ' "$T_TMP/py.out")
    [[ $rc == 0 ]] || not_ok "$what: the checks ran" "$(tail -n 3 "$T_TMP/py.out" | tr '\n' ' ')"
}

# run_id FILE: the run id of a run's JSON document (tpcc: run_id; stress: its first step's)
run_id() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("run_id") or d["steps"][0]["run_id"])' "$1" 2>/dev/null; }

# measured NAME WHAT ARGS...: dbgauge ARGS --results --json --label NAME must exit 0 (check WHAT);
# sets id, and NAME.mon.json holds `runs show ID --monitor --json`.
measured() {
    local name=$1 what=$2
    shift 2
    run_dg "$T_TMP/$name.json" "$T_TMP/$name.err" "$@" --results "$RES" --json --label "$name"
    check_exit "$what exits 0" 0
    id=$(run_id "$T_TMP/$name.json")
    "$DG" runs show "$id" --monitor --json --results "$RES" >"$T_TMP/$name.mon.json" 2>/dev/null
}

# --- 1. synchronous: a row per standby and second ---------------------------------------------
measured sync "a synchronous run" tpcc run --target "$P" --vus 2 --warmup 1s --duration 5s
"$DG" runs show "$id" --json --results "$RES" >"$T_TMP/sync.show.json" 2>/dev/null
pyrelay sync "$T_TMP/sync.mon.json" "$T_TMP/sync.show.json" "$DG_PGR_STANDBYS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); show = json.load(open(sys.argv[2])); n = int(sys.argv[3])
def say(c, m): print(("ok" if c else "not ok") + " - sync: " + m)
rows = d.get("replication", [])
names = sorted({r["name"] for r in rows if r["target"] == 1})
say(len(names) == n and "self" not in names, f"rows for each of the {n} standbys ({names})")
secs = {r["second"] for r in rows}
last = max(s["second"] for s in d["monitor_series"]) if d.get("monitor_series") else None
say(len(secs) >= 5 and max(secs) == last, f"one row per standby and second, as the monitor's seconds ({len(secs)} s, last {max(secs) if secs else None} vs {last})")
say(all(r["state"] == "streaming" for r in rows), "every standby streaming: " + ",".join(sorted({str(r["state"]) for r in rows})))
say(any(r["sync_state"] == "sync" for r in rows), "a standby is synchronous: " + ",".join(sorted({str(r["sync_state"]) for r in rows})))
say(all(r["lag_bytes"] is not None and r["lag_bytes"] >= 0 for r in rows), "bytes not replayed told every second")
say(any(r["replay_lag_s"] is not None and r["replay_lag_s"] >= 0 for r in rows), "a replay lag figure is present")
summ = d.get("replication_summary", [])
say(len(summ) == n and all(s["seconds"] == len(secs) for s in summ), f"a summary per standby ({len(summ)})")
st = show.get("settings", {})
say(st.get("synchronous_commit") not in (None, "") and st.get("synchronous_standby_names", "") != "" and st.get("in_recovery") == "false",
    f"settings: synchronous_commit {st.get('synchronous_commit')}, synchronous_standby_names '{st.get('synchronous_standby_names')}', in_recovery {st.get('in_recovery')}")
PY
"$DG" runs show "$id" --monitor --results "$RES" >"$T_TMP/sync.mon.txt" 2>&1
check "text: runs show --monitor has the replication section with each standby" \
    grep -Eq "^ +1  standby2 .*streaming \((sync|potential)" "$T_TMP/sync.mon.txt"
"$DG" report "$id" --results "$RES" -o "$T_TMP/r.html" >/dev/null 2>&1
check "HTML: a replay-lag chart" grep -q "run$id-repllag" "$T_TMP/r.html"
check "HTML: a bytes-behind chart" grep -q "run$id-replbytes" "$T_TMP/r.html"
"$DG" report "$id" --results "$RES" --format json -o "$T_TMP/r.json" >/dev/null 2>&1
check "JSON export: the run's replication rows, as runs show has them" test \
    "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); r=[x for i in a["items"] for x in i.get("runs",[i])][0]; print(r["replication"]==b["replication"] and len(b["replication"])>0)' "$T_TMP/r.json" "$T_TMP/sync.mon.json" 2>&1)" = True

# --- 2. async, a standby's walreceiver stopped for 4 s ----------------------------------------
check "synchronous replication off" "$SERVERS" sync pgrep off
measured async "an async run with a stopped walreceiver" tpcc run --target "$P" --vus 2 --duration 9s \
    --fault "2s:$SERVERS walrcv-stop pgrep standby1" --fault "6s:$SERVERS walrcv-cont pgrep standby1"
check "it completes" test "$(json_get "$T_TMP/async.json" status 2>/dev/null)" = complete
pyrelay async "$T_TMP/async.mon.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def say(c, m): print(("ok" if c else "not ok") + " - async: " + m)
rows = [r for r in d.get("replication", []) if r["name"] == "standby1"]
held = [r for r in rows if 3 <= r["second"] <= 5]
grow = [r["lag_bytes"] or 0 for r in held]
say(len(held) >= 2 and grow[-1] > 0 and grow[-1] > grow[0], f"standby1's bytes behind grow while its walreceiver is stopped: {grow}")
say(any(r["behind"] for r in held), "and it is marked behind")
# the lag measured now (since the standby last replied), not the server's last replay_lag
lag = [r["replay_lag_s"] or 0 for r in held]
say(len(held) >= 2 and lag[-1] > lag[0] and lag[-1] >= 1.0, f"its replay lag rises while it takes no WAL: {lag}")
after = [r["lag_bytes"] for r in rows if r["second"] >= 8]
say(not after or min(x or 0 for x in after) < max(grow or [0]), f"it catches up after (last seconds: {after})")
other = [r["lag_bytes"] or 0 for r in d.get("replication", []) if r["name"] == "standby2" and 3 <= r["second"] <= 5]
say(other and max(other) < max(grow or [1]), f"standby2, streaming, stays closer: {other}")
PY

# --- 3. a standby as the target: its own "self" row; a run that writes is refused there --------
run_dg "$T_TMP/ro.json" "$T_TMP/ro.err" tpcc run --target "$S" --vus 2 --duration 3s --results "$RES" --json
check "standby: a tpcc run on a standby is refused before its window (exit 2), saying why" test \
    "$RC/$(grep -c "TPC-C on" "$T_TMP/ro.err")/$(grep -c "takes no writes: a standby (pg_is_in_recovery() is true); a TPC-C run writes" "$T_TMP/ro.err")" = 2/0/1
measured standby "a stress run on a standby" stress --target "$S" --query "SELECT 1" --threads 2 --duration 3s
pyrelay standby "$T_TMP/standby.mon.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def say(c, m): print(("ok" if c else "not ok") + " - standby: " + m)
rows = d.get("replication", [])
say(len(rows) >= 3 and all(r["target"] == 1 and r["name"] == "self" and r["state"] == "streaming" for r in rows),
    f"one row a second about itself, streaming: {[(r['name'], r['state']) for r in rows][:2]} ({len(rows)} rows)")
say(rows and all(r["replay_lag_s"] == 0 and r["lag_bytes"] == 0 and not r["behind"] for r in rows),
    "an idle primary's standby that replayed all it received: lag 0 (not the age of its last replay), not behind")
say(rows and all(r["sync_state"] is None and r["write_lag_s"] is None for r in rows), "no sync state or write lag of its own: null")
PY
"$DG" runs show "$id" --json --results "$RES" >"$T_TMP/standby.show.json" 2>/dev/null
check "the standby's settings say it is in recovery" test \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["settings"]["in_recovery"])' "$T_TMP/standby.show.json" 2>/dev/null)" = true

# --- 4. the monitored primary crashes and comes back: the monitor goes on -----------------------
# Its session seen on the revived primary shows the monitor reconnected (the workers call
# themselves dbgauge): whether the standbys are back on the primary before the run ends is the
# standbys' timing, not ours. The server's cache and process figures come back too (the
# revived primary is a new process).
# The fault then waits for that session (up to 4 s after the revive, inside the window) and
# writes how long it took: the event itself, not a count taken at a fixed second.
cat >"$T_TMP/wait-session.sh" <<SH
t0=\$(date +%s%N)
until [ "\$(psql -X -At '$DG_PGR_PRIMARY_ADMIN_URL' -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dbgauge-monitor'" 2>/dev/null || echo 0)" -ge 1 ]; do
    [ \$(( (\$(date +%s%N) - t0) / 1000000 )) -lt 4000 ] || { echo never >'$T_TMP/sessions'; exit 1; }
    sleep 0.1
done
echo "\$(( (\$(date +%s%N) - t0) / 1000000 ))" >'$T_TMP/sessions'
SH
measured crash "a run whose primary crashes and comes back" tpcc run --target "$P" --vus 2 --duration 18s \
    --fault "3s:$SERVERS crash pgrep primary && sleep 2 && $SERVERS revive pgrep primary && sh '$T_TMP/wait-session.sh'"
pyrelay crash "$T_TMP/crash.mon.json" "$T_TMP/crash.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); run = json.load(open(sys.argv[2]))
def say(c, m): print(("ok" if c else "not ok") + " - crash: " + m)
mon = [p["second"] for p in d.get("monitor_series", [])]
say(len(mon) >= 12 and mon == list(range(mon[0], mon[0] + len(mon))), f"the host's points go on every second through the outage ({len(mon)})")
secs = sorted({r["second"] for r in d.get("replication", []) if r["name"] == "standby1"})
say(secs and min(secs) < 3, f"replication rows before the crash ({secs[:4]})")
# from 2 s after the workers committed again (a loaded machine takes seconds to recover the
# server): the monitor's reconnect, then a second of the new server's counters
o = (run.get("outages") or [{}])[0]
back = o.get("start_s", 99) + (o.get("first_commit_s") or 99)
late = [p for p in d.get("monitor_series", []) if p["second"] >= back + 2]
say(late and any(p["cache_hits_per_s"] is not None for p in late),
    f"the server's cache figures come back after it ({[p['cache_hits_per_s'] for p in late]})")
say(late and any(p["server_rss_bytes"] is not None for p in late),
    f"... and its process's, the revived one ({[p['server_rss_bytes'] for p in late]})")
PY
back=$(cat "$T_TMP/sessions" 2>/dev/null)
check "the monitor reconnected to the revived primary (its session there ${back:-?} ms after the revive)" \
    test -n "$back" -a "$back" != never
# reloaded: the revived primary's PID
# shellcheck disable=SC1090
. "$DG_SERVERS_ENV"

check "no password in the stored runs or the logs" bash -c "! grep -rqF -- '$DG_PGR_PASSWORD' '$T_TMP'/*.err '$T_TMP'/*.json '$RES'"

"$SERVERS" stop pgrep >"$T_TMP/stop.log" 2>&1
check "the servers are stopped by PID" bash -c "! kill -0 $DG_PGR_PRIMARY_PID 2>/dev/null && ! kill -0 $DG_PGR_STANDBY1_PID 2>/dev/null"
# --- 5. Galera: the settings that shape replication, recorded with the run -------------------
galera_settings() {
    if ! "$SERVERS" start galera >"$T_TMP/galera.log" 2>&1; then
        not_ok "start galera (three nodes)" "$(tail -n 8 "$T_TMP/galera.log" | tr '\n' ' ')"
        return 1
    fi
    ok "start galera (three nodes)"
    # shellcheck disable=SC1090
    . "$DG_SERVERS_ENV"
    export MYSQL_PWD=$DG_GAL_PASSWORD
    measured galera "a stress run on a Galera node" stress --target "$DG_GAL_URL1" --query "SELECT 1" --threads 1 --duration 1s
    "$DG" runs show "$id" --json --results "$RES" >"$T_TMP/galera.show.json" 2>/dev/null
    pyrelay galera "$T_TMP/galera.show.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1])).get("settings", {})
def say(c, m): print(("ok" if c else "not ok") + " - galera: " + m)
say(st.get("wsrep_on") == "ON" and st.get("wsrep_cluster_size") == "3", f"wsrep_on {st.get('wsrep_on')}, cluster size {st.get('wsrep_cluster_size')} at connect")
po = st.get("wsrep_provider_options", "")
parts = po.split("; ")
say("gcache.size = " in po and "gcs.fc_limit = " in po and all(" = " in p for p in parts) and len(po) < 96,
    f"the provider options that shape a run, whole parts only: '{po}'")
say(st.get("binlog_format") == "ROW" and "wsrep_sync_wait" in st, f"binlog_format {st.get('binlog_format')}, wsrep_sync_wait {st.get('wsrep_sync_wait')}")
PY
    "$SERVERS" stop galera >/dev/null 2>&1
}
if [[ -n ${DG_NO_MY:-} ]]; then echo "# galera: not run (--no-my)"; else galera_settings; fi
finish
