/* main.c — argv to a subcommand: one per registered workload (its command and summary come
 * from the registry), then the built-in ones; nothing else. Names no workload. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/workload.h"
#include "dist/ranks.h"

static const struct dg_builtin commands[] = {
    {"runs", dg_cmd_runs, "list stored runs, or show one (runs show ID)", &dg_runs_doc},
    {"report", dg_cmd_report, "HTML (charts), Markdown, CSV or JSON report of stored runs and groups", &dg_report_doc},
    {"compare", dg_cmd_compare, "stored runs or groups side by side, with the change in percent", &dg_compare_doc},
    {"experiment", dg_cmd_experiment, "run a job file's steps, or show one's step table (see dbgauge experiment --help)",
     &dg_experiment_doc},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof *commands))

static void usage(FILE *out)
{
    fprintf(out, "dbgauge %s - " DG_HELP_SUMMARY "\n\n"
                 "usage: dbgauge COMMAND [options]\n\ncommands:\n", DG_VERSION);
    for (int i = 0; dg_workloads[i]; i++)
        if (dg_workloads[i]->cli)
            fprintf(out, "  %-10s %s\n", dg_workloads[i]->command, dg_workloads[i]->summary);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "\na command's options: dbgauge COMMAND --help, or dbgauge help COMMAND [SUBCOMMAND]\n"
                 "\ntargets:\n" DG_HELP_TARGETS "\nexit status: " DG_HELP_EXIT "\n");
}

static int dispatch(int argc, char **argv);

/* help COMMAND [SUBCOMMAND]: that command's own --help, as `dbgauge COMMAND [SUB] --help`
 * prints it (git help's habit); an unknown command is named by dispatch. */
static int help_for(int argc, char **argv)
{
    if (argc > 4)
        return dg_usage_error("help", "at most a command and a subcommand (dbgauge help tpcc run)");
    if (!strcmp(argv[2], "help") && argc == 3) { /* help's own help is the overview */
        usage(stdout);
        return DG_EXIT_OK;
    }
    char help[] = "--help";
    char *args[] = {argv[0], argv[2], argc > 3 ? argv[3] : help, help, NULL};
    return dispatch(argc, args);
}

/* The command itself, between MPI's start and end. */
static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return DG_EXIT_USAGE;
    }
    /* help --man, help --completion: what the build installs (docgen.c); help COMMAND; help
     * help and help --help: the overview */
    if (!strcmp(argv[1], "help") && argc > 2)
        return argv[2][0] == '-' && strcmp(argv[2], "--help") && strcmp(argv[2], "-h")
                   ? dg_cmd_docgen(argc - 1, argv + 1, commands, NCOMMANDS) : help_for(argc, argv);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return DG_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        const char *mpi = dg_ranks_library();
        printf("dbgauge %s (mpi: %s)\n", DG_VERSION, mpi ? mpi : "not built");
        return DG_EXIT_OK;
    }
    for (int i = 0; dg_workloads[i]; i++)
        if (dg_workloads[i]->cli && !strcmp(argv[1], dg_workloads[i]->command))
            return dg_cmd_workload(dg_workloads[i], argc - 1, argv + 1);
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "dbgauge: unknown command '%s' (see dbgauge --help)\n", argv[1]);
    return DG_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* Under mpirun every rank runs the same command line: one run, several client processes
     * (dist/ranks.h); without it this does nothing. */
    if (dg_ranks_init(&argc, &argv))
        return DG_EXIT_FAILED;
    int rc = dispatch(argc, argv);
    dg_ranks_finalize(0, rc);
    return rc;
}
