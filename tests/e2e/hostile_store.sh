#!/usr/bin/env bash
# hostile_store.sh — results databases that cannot take a run, one check per row: a file of a
# future schema version, a read-only one (a read-only mount: root writes through file modes),
# one on a full file system (a small tmpfs), a missing directory. Each gives exit 2 and a
# message naming the file before anything is measured; readers still read what they can; a
# run whose store fills up after it measured exits 1 with its figures on the terminal.
. "$(dirname "$0")/../lib.sh"

DB=$T_TMP/tpcc.db
RES=$T_TMP/results.db
check "a 1-warehouse SQLite database (sqlite_tpcc)" sqlite_tpcc "$DB"
expect_exit "a first run is stored" 0 tpcc run --target "sqlite:$DB" --duration 1s --results "$RES"

# one line, no control bytes, names the file
names_file() { # FILE-NAME: the last stderr is one line naming it
    [[ $(wc -l <"$T_TMP/last.err") == 1 ]] && grep -qF -- "$1" "$T_TMP/last.err" && ! grep -q $'[\x01-\x08\x0b-\x1f]' "$T_TMP/last.err"
}

# --- a future schema version
cp "$RES" "$T_TMP/future.db"
sqlite3 "$T_TMP/future.db" "PRAGMA user_version = 99"
expect_exit "a run into a results database of schema 99 exits 2" 2 tpcc run --target "sqlite:$DB" --duration 1s \
    --results "$T_TMP/future.db"
check "it says the schema is newer, naming the file" names_file "future.db' has schema version 99, newer"
check "nothing was measured for it (no start line)" bash -c "! grep -q 'virtual user' '$T_TMP/last.err'"
expect_exit "runs on it exits 2" 2 runs --results "$T_TMP/future.db"
check "runs names the file and the version" names_file "schema version 99"

# --- a missing directory
expect_exit "a run into a missing directory exits 2" 2 tpcc run --target "sqlite:$DB" --duration 1s \
    --results "$T_TMP/no/such/dir/r.db"
check "it names the file and the missing directory" names_file "directory '$T_TMP/no/such/dir' does not exist"
expect_exit "report from a missing directory exits 2" 2 report 1 --results "$T_TMP/no/such/dir/r.db" -o "$T_TMP/x.html"

# A small tmpfs of our own (root; else a mount namespace of our own).
MNT=$T_TMP/mnt
mkdir -p "$MNT"
mount_small() { mount -t tmpfs -o size="$1" tmpfs "$MNT" 2>/dev/null; }
if ! mount_small 1m; then
    not_ok "a 1 MB tmpfs for the read-only and full-disk rows" "mount -t tmpfs failed (not root?)"
    finish
fi
trap 'umount "$MNT" 2>/dev/null; [[ -n ${DG_KEEP_TMP:-} ]] || rm -rf "$T_TMP"' EXIT

# --- read-only
cp "$RES" "$MNT/r.db"
mount -o remount,ro "$MNT"
expect_exit "a run into a read-only results database exits 2" 2 tpcc run --target "sqlite:$DB" --duration 1s \
    --results "$MNT/r.db"
check "it says the file is read-only, naming it" names_file "$MNT/r.db' is read-only"
expect_exit "runs still reads the read-only file" 0 runs --results "$MNT/r.db"
check "and lists its run" grep -Eq '^ +1 .* complete ' "$T_TMP/last.out"
expect_exit "report still renders from it" 0 report 1 --results "$MNT/r.db" -o "$T_TMP/ro.html"
expect_exit "an experiment into it exits 2" 2 experiment "$DG_ROOT/recipes/sqlite-memory/job.ini" --results "$MNT/r.db"
check "the experiment names the file" names_file "$MNT/r.db' is read-only"
umount "$MNT"

# --- a full file system: nothing left when the run starts
mount_small 1m
cp "$RES" "$MNT/r.db"
dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null
expect_exit "a run into a results database on a full file system exits 2" 2 tpcc run --target "sqlite:$DB" \
    --duration 1s --results "$MNT/r.db"
check "it says the file system is full, naming the file" names_file "$MNT/r.db' cannot be written: its file system is full"
expect_exit "runs still reads it" 0 runs --results "$MNT/r.db"

# --- the file system fills up while the run measures: room for the check, not for the run
kept=""
for free in 48 64 96 128 192; do
    rm -f "$MNT/fill" "$MNT/r.db"-*
    dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null
    truncate -s "-${free}k" "$MNT/fill"
    run_dg "$T_TMP/full.out" "$T_TMP/full.err" tpcc run --target "sqlite:$DB" --duration 4s --checkpoint-every 0 \
        --results "$MNT/r.db"
    [[ $RC == 2 ]] && continue # the check before the run took the room: leave more
    kept=$free
    break
done
check "with ${kept:-no} kB left, the run measured and then could not be stored: exit 1" test "${RC:-}" = 1 -a -n "$kept"
check "it names the file and says the disk is full" grep -q "results database '$MNT/r.db'.*disk is full" "$T_TMP/full.err"
check "the measured figures are on the terminal all the same" grep -q 'NOPM' "$T_TMP/full.out"
umount "$MNT"
finish
