/* harness.c — the helpers every fuzz target shares (harness.h): failing with a reason, the
 * message checks, running a command with its output captured, the input as a string or a
 * file, and the DG_FUZZ_BROKEN switch. Tests only. */
#include "harness.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void dg_fuzz_fail(const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* fd 2 itself: the C stream stderr may be a capture */
    dprintf(2, "\ndg-fuzz: FAILED: %s\n", why);
    abort();
}

void dg_fuzz_broken(const char *target, const uint8_t *data, size_t size)
{
    const char *want = getenv("DG_FUZZ_BROKEN");
    if (!want || strcmp(want, target) || size == 0 || data[size - 1] != '!')
        return;
    volatile uint8_t past = data[size]; /* the deliberate bug: one byte past the input */
    (void)past;
}

char *dg_fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        dg_fuzz_fail("out of memory copying a %zu-byte input", size);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The first control byte of s[0..n) other than the allowed ones, or -1. */
static int control_at(const char *s, size_t n, const char *allowed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 || c == 0x7f) && !(c && strchr(allowed, c)))
            return (int)i;
    }
    return -1;
}

void dg_fuzz_check_msg(const char *what, const char *msg)
{
    size_t n = strlen(msg);
    if (n == 0)
        dg_fuzz_fail("%s: an empty message", what);
    if (n >= sizeof ((struct dg_err *)0)->msg)
        dg_fuzz_fail("%s: a message of %zu bytes", what, n);
    int at = control_at(msg, n, "");
    if (at >= 0)
        dg_fuzz_fail("%s: control byte 0x%02x at %d of the message '%.200s'", what, (unsigned char)msg[at], at, msg);
}

void dg_fuzz_check_user_err(const char *what, const struct dg_err *err)
{
    if (err->cls != DG_ERR_USER)
        dg_fuzz_fail("%s: error class %s, not user: %.300s", what, dg_err_class_name(err->cls), err->msg);
    dg_fuzz_check_msg(what, err->msg);
}

/* The capture of the last command (the harness runs one input at a time). */
static struct {
    char *text;
    size_t len;
} captured;

const char *dg_fuzz_stderr(void)
{
    return captured.text ? captured.text : "";
}

/* getopt keeps a pointer into the last argv it read; optind 0 makes it start afresh. */
static void reset_getopt(void)
{
    static char *none[] = {"fuzz", NULL};
    optind = 0;
    opterr = 0;
    (void)getopt(1, none, ":");
}

int dg_fuzz_command(int (*cmd)(int, char **), int argc, char **argv)
{
    FILE *saved_out = stdout, *saved_err = stderr;
    FILE *null = fopen("/dev/null", "w");
    free(captured.text);
    captured.text = NULL;
    captured.len = 0;
    FILE *cap = open_memstream(&captured.text, &captured.len);
    if (!null || !cap)
        dg_fuzz_fail("cannot capture a command's output");
    reset_getopt();
    stdout = null;
    stderr = cap;
    int rc = cmd(argc, argv);
    stdout = saved_out;
    stderr = saved_err;
    fclose(null);
    fclose(cap);
    char line[512];
    snprintf(line, sizeof line, "dbgauge");
    for (int i = 0; i < argc && i < 8; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), " %.60s", argv[i]);
    if (rc != 0 && rc != 2)
        dg_fuzz_fail("%s: exit status %d (a bad input must give 2); stderr: %.600s", line, rc, dg_fuzz_stderr());
    int at = control_at(captured.text, captured.len, "\n");
    if (at >= 0)
        dg_fuzz_fail("%s: control byte 0x%02x on stderr: %.600s", line, (unsigned char)captured.text[at],
                     captured.text);
    if (rc == 2) {
        const char *t = dg_fuzz_stderr();
        const char *nl = strchr(t, '\n');
        if (strncmp(t, "dbgauge ", 8) || !nl || nl[1])
            dg_fuzz_fail("%s: status 2 without exactly one 'dbgauge ...' line on stderr: '%.600s'", line, t);
    }
    return rc;
}

void dg_fuzz_remove_file(const char *path)
{
    static const char *const ext[] = {"", "-wal", "-shm", "-journal"};
    char p[600];
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        snprintf(p, sizeof p, "%s%s", path, ext[i]);
        unlink(p);
    }
}

void dg_fuzz_write_file(const char *suffix, const uint8_t *data, size_t size, char *path, size_t n)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, n, "%s/dg-fuzz-%ld%s", dir, (long)getpid(), suffix);
    dg_fuzz_remove_file(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        dg_fuzz_fail("cannot write %s", path);
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            dg_fuzz_fail("cannot write %s", path);
        done += (size_t)w;
    }
    close(fd);
}
