/* harness.h — what the fuzz targets of tests/fuzz/ share: the libFuzzer entry points, a
 * failure that stops the run with its reason, the checks every message must pass (one line,
 * no control byte), a command run with its stderr captured, the input as a string or a file,
 * and the test-only switch that breaks a target on purpose (DG_FUZZ_BROKEN). Tests only:
 * never linked into dbgauge. */
#ifndef DG_FUZZ_HARNESS_H
#define DG_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* libFuzzer's entry points (replay.c calls them the same way). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Says why on the real stderr and aborts: the fuzzer keeps the input as a crash. */
void dg_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The test-only switch: when the environment has DG_FUZZ_BROKEN=target, an input whose last
 * byte is '!' is read one byte past its end (the smoke test must then report a crash).
 * Nothing otherwise. */
void dg_fuzz_broken(const char *target, const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd, the caller frees; it ends at the first NUL
 * byte of the input). Never NULL: out of memory fails the run. */
char *dg_fuzz_str(const uint8_t *data, size_t size);

/* Fails the run unless msg is one message as dbgauge shows it: not empty, no control byte,
 * shorter than struct dg_err's buffer. what names the call for the failure. */
void dg_fuzz_check_msg(const char *what, const char *msg);
/* Fails the run unless err is a DG_ERR_USER error with a good message. */
void dg_fuzz_check_user_err(const char *what, const struct dg_err *err);

/* A command of src/cmd/ (dg_cmd_runs, ...) run on argv with stdout sent to /dev/null and
 * stderr captured, getopt's state reset first. Fails the run when the status is not 0 or 2,
 * when anything on stderr holds a control byte, or when a status 2 came without exactly one
 * "dbgauge ..." message line. Returns the status. */
int dg_fuzz_command(int (*cmd)(int, char **), int argc, char **argv);
/* The last captured stderr of dg_fuzz_command (valid until the next call). */
const char *dg_fuzz_stderr(void);

/* Writes data to a file of this process in /dev/shm (TMPDIR when /dev/shm is missing) named
 * with suffix; path (n bytes) gets its name. Any -wal, -shm and -journal file left next to it
 * by SQLite is removed first. Fails the run when it cannot be written. */
void dg_fuzz_write_file(const char *suffix, const uint8_t *data, size_t size, char *path, size_t n);
/* Removes path and SQLite's files next to it. */
void dg_fuzz_remove_file(const char *path);

#endif
