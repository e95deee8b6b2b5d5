/* replay.c — a fuzz target as a plain test program (no libFuzzer): feeds every file of its
 * corpus (DG_FUZZ_CORPUS, or the files and folders on the command line) to
 * LLVMFuzzerTestOneInput, each in a child process so one crash names its file and the others
 * still run. Prints `ok - fuzz/NAME: N inputs` or one `not ok - fuzz/NAME: FILE: why` per
 * failed input, then `N passed, N failed`, as the unit tests do. Tests only. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef DG_FUZZ_NAME
#error "DG_FUZZ_NAME: the target's name"
#endif

/* libFuzzer's optional hook: a target that has none leaves it NULL. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs one input in a child; returns 0, or fills why. */
static int run_one(const char *path, char *why, size_t n)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, n, "cannot fork");
        return -1;
    }
    if (pid == 0) {
        FILE *f = fopen(path, "rb");
        if (!f)
            _exit(3);
        size_t cap = 1 << 16, len = 0, got;
        unsigned char *buf = malloc(cap);
        while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0)
            if ((len += got) == cap && !(buf = realloc(buf, cap *= 2)))
                _exit(4);
        fclose(f);
        if (!buf)
            _exit(4);
        /* an exact copy, as libFuzzer hands it: a read past the end is past the allocation */
        unsigned char *data = malloc(len ? len : 1);
        memcpy(data, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(data, len);
        free(data);
        exit(0); /* exit, not _exit: the leak checker of a sanitizer build runs at exit */
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0) {
        snprintf(why, n, "waitpid failed");
        return -1;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFSIGNALED(st))
        snprintf(why, n, "killed by signal %d", WTERMSIG(st));
    else
        snprintf(why, n, "exit status %d", WEXITSTATUS(st));
    return -1;
}

/* Runs path (a file, or every file of a folder, in name order); counts into *ok and *bad. */
static void run_path(const char *path, int *ok, int *bad)
{
    struct stat sb;
    char why[128];
    if (stat(path, &sb) != 0) {
        printf("not ok - fuzz/%s: %s: no such file or folder\n", DG_FUZZ_NAME, path);
        (*bad)++;
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        if (run_one(path, why, sizeof why) == 0)
            (*ok)++;
        else {
            printf("not ok - fuzz/%s: %s: %s\n", DG_FUZZ_NAME, path, why);
            (*bad)++;
        }
        return;
    }
    DIR *d = opendir(path);
    char **names = NULL;
    size_t nn = 0, cap = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names)))
            break;
        names[nn++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    qsort(names, nn, sizeof *names, cmp_names);
    for (size_t i = 0; i < nn; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        run_path(p, ok, bad);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int ok = 0, bad = 0;
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            run_path(argv[i], &ok, &bad);
    else
        run_path(DG_FUZZ_CORPUS, &ok, &bad);
    if (ok == 0 && bad == 0) {
        printf("not ok - fuzz/%s: no input in the corpus\n", DG_FUZZ_NAME);
        bad = 1;
    } else if (bad == 0) {
        printf("ok - fuzz/%s: %d inputs replayed, none failed\n", DG_FUZZ_NAME, ok);
    }
    printf("%d passed, %d failed\n", bad ? 0 : 1, bad);
    return bad ? 1 : 0;
}
