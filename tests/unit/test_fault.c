/* test_fault.c — the fault schedule (src/core/fault.h): spec parsing and its errors, command
 * redaction, and faults set off at their offsets on the window's clock, with their exit status,
 * a fault not yet due when the run ends, and a command that outlives nothing it should not. */
#include "core/fault.h"

#include <string.h>
#include <time.h>

#include "check.h"

static void check_parse(struct dg_test *t)
{
    struct dg_fault_spec f;
    struct dg_err err;
    CHECK(t, dg_fault_parse("8s:pg_ctl stop -m immediate", 30 * DG_NS_PER_S, &f, &err) == 0 &&
                 f.offset_ns == 8 * DG_NS_PER_S && !strcmp(f.command, "pg_ctl stop -m immediate"),
          "parse: OFFSET:COMMAND", "%s", err.msg);
    CHECK(t, dg_fault_parse("1500ms: echo a:b", 0, &f, &err) == 0 && f.offset_ns == 1500 * DG_NS_PER_MS &&
                 !strcmp(f.command, "echo a:b"), "parse: the command may hold colons", "%s", f.command);
    const struct {
        const char *spec, *says;
    } bad[] = {
        {"8s", "expected OFFSET:COMMAND"},
        {"8s:", "no command"},
        {"8s:   ", "no command"},
        {":ls", "expected OFFSET:COMMAND"},
        {"-2s:ls", "negative"},
        {"soon:ls", "soon"},
        {"30s:ls", "past the end of the 30s"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[96];
        snprintf(name, sizeof name, "parse: '%s' is refused, naming it", bad[i].spec);
        int rc = dg_fault_parse(bad[i].spec, 30 * DG_NS_PER_S, &f, &err);
        CHECK(t, rc != 0 && err.cls == DG_ERR_USER && strstr(err.msg, bad[i].says), name, "rc %d: %s", rc, err.msg);
    }
}

static void check_redact(struct dg_test *t)
{
    const struct {
        const char *in, *out;
    } cases[] = {
        {"PGPASSWORD=s3cret psql -c 'select 1'", "PGPASSWORD=*** psql -c 'select 1'"},
        {"mysql -uroot -ps3cret -e 'x'", "mysql -uroot -p*** -e 'x'"},
        {"psql postgres://u:s3cret@h:5432/db", "psql postgres://u:***@h:5432/db"},
        {"tool --password=s3cret --port 5", "tool --password=*** --port 5"},
        {"pg_ctl stop -D /data -m immediate", "pg_ctl stop -D /data -m immediate"},
        {"sshpass -p s3cret ssh db1 sudo reboot", "sshpass -p *** ssh db1 sudo reboot"},
        {"sshpass -p 's3cret' ssh db1", "sshpass -p *** ssh db1"},
        {"tool --password s3cret --port 5", "tool --password *** --port 5"},
        {"tool --passwd  s3cret", "tool --passwd  ***"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[256], name[96];
        dg_redact_command(cases[i].in, out, sizeof out);
        snprintf(name, sizeof name, "redact: case %zu", i + 1);
        CHECK(t, !strcmp(out, cases[i].out) && !strstr(out, "s3cret"), name, "'%s' gave '%s'", cases[i].in, out);
    }
}

static void check_schedule(struct dg_test *t)
{
    struct dg_fault_spec specs[3];
    struct dg_err err = {0};
    dg_fault_parse("200ms:exit 3", 0, &specs[0], &err);
    dg_fault_parse("300ms:kill -9 $$", 0, &specs[1], &err);
    dg_fault_parse("10s:touch /tmp/dg-never-run", 0, &specs[2], &err);
    dg_ns start = dg_now_ns() + 100 * DG_NS_PER_MS;
    struct dg_fault_run *fr = dg_faults_start(specs, 3, start, &err);
    struct timespec ts = {0, 700 * 1000 * 1000};
    nanosleep(&ts, NULL);
    struct dg_fault_event ev[3];
    int n = dg_faults_finish(fr, ev, 3);
    CHECK(t, n == 3, "schedule: one event per fault", "%d", n);
    CHECK(t, ev[0].start_s >= 0.199 && ev[0].start_s < 0.26 && ev[0].exit_status == 3,
          "schedule: the first ran at its offset and exit 3 is kept", "start %.3f exit %d", ev[0].start_s, ev[0].exit_status);
    CHECK(t, ev[0].end_s >= ev[0].start_s, "schedule: its end is after its start", "%.3f", ev[0].end_s);
    CHECK(t, ev[1].start_s >= 0.299 && ev[1].exit_status == 128 + 9, "schedule: killed by SIGKILL is 137",
          "start %.3f exit %d", ev[1].start_s, ev[1].exit_status);
    CHECK(t, ev[2].start_s < 0 && ev[2].exit_status == -1, "schedule: a fault not yet due at the end never runs",
          "start %.3f exit %d", ev[2].start_s, ev[2].exit_status);
    CHECK(t, dg_faults_finish(NULL, ev, 3) == 0, "schedule: no faults, no events", "!");
}

int main(void)
{
    struct dg_test t = {0};
    check_parse(&t);
    check_redact(&t);
    check_schedule(&t);
    return dg_test_done(&t);
}
