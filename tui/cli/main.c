/* placeto: command dispatch (docs/cli.md). No command opens the explorer
 * on the bundled default graph on a terminal, and prints an overview of
 * that graph otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_train.h"
#include "data.h"
#include "dist.h"
#include "meta.h"
#include "nn.h"
#include "sim.h"
#include "visible.h"

static const CliCmd *const commands[] = {&cmd_explore, &cmd_info, &cmd_simulate, &cmd_place, &cmd_compare, &cmd_train, &cmd_export, &cmd_demo};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *f)
{
    fputs("usage: placeto [COMMAND] [ARGS]\n\n" PLACETO_TAGLINE "\n\ncommands:\n", f);
    for (int k = 0; k < N_COMMANDS; k++) {
        fprintf(f, "  %-10s %s\n", commands[k]->name, commands[k]->brief);
    }
    fputs("\nWith no command: the explorer on the bundled default graph (on a terminal; otherwise\nan overview of that graph).\n"
          "'placeto help COMMAND' (or 'placeto COMMAND --help') describes each command;\n"
          "'placeto --version' (-V) prints the version.\n", f);
}

/* The default view: info on the bundled graph, then a simulation of it on
 * one device and of a layer-wise split over two. */
static int run_default(void)
{
    char path[4096];
    data_path(path, sizeof path, "resnet18.json");
    char *argv_info[] = {"info", path, NULL};
    int rc = cmd_info.run(2, argv_info);
    if (rc)
        return rc;
    Err e = {{0}};
    Graph *g = graph_load(path, &e);
    if (!g)
        return cli_fail(&e);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int *dev = xnew_array((size_t)g->n_nodes, sizeof *dev);
    char b1[32], b2[32];
    double one = sim_run(s, dev)->makespan_us;
    /* the second half of the topological order on the second device */
    for (int k = g->n_nodes / 2; k < g->n_nodes; k++)
        dev[g->topo[k]] = 1;
    double two = sim_run(s, dev)->makespan_us;
    printf("\nsimulated      all on /GPU:0: %s; topological halves on /GPU:0 and /GPU:1: %s\n",
           util_fmt_time(b1, one), util_fmt_time(b2, two));
    printf("\nTry: placeto info GRAPH, placeto simulate GRAPH --placement P, placeto --help\n");
    free(dev);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
    return EXIT_OK;
}

/* Descriptors 0-2 open (on /dev/null when closed), so that no file the
 * program opens becomes standard output or error and receives its
 * messages. */
static int stdout_closed; /* the program started with standard output closed (>&-) */

static void reserve_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            /* standard output held read-only: what is written there fails and is reported at exit (it is not
             * output to lose in /dev/null) */
            if (fd == 1)
                stdout_closed = 1;
            int nfd = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
            if (nfd >= 0 && nfd != fd) { /* a lower one was closed too: it is taken already */
                dup2(nfd, fd);
                close(nfd);
            }
        }
}

/* At exit: standard output written in full, or a message and status 1 (a
 * full disk, a file-size limit, a closed pipe reader). */
static void check_stdout(void)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad && stdout_closed) {
        fprintf(stderr, "placeto: standard output is closed: the output was not written\n");
        fflush(stderr);
        _exit(EXIT_FAIL);
    }
    if (bad && err != EPIPE) {
        fprintf(stderr, "placeto: cannot write the output: %s\n", strerror(err));
        fflush(stderr);
        _exit(EXIT_FAIL);
    }
    if (bad)
        _exit(EXIT_FAIL);
}

static int dispatch(int argc, char **argv);

/* placeto-mpi (the same program with dist.h's MPI backend): `train` alone,
 * one process per rank under mpirun; rank 0 prints. */
static int dispatch_mpi(int argc, char **argv)
{
    int train = argc >= 2 && strcmp(argv[1], "train") == 0;
    /* a rank that runs something else would leave the others waiting in
     * train's first exchange (and itself in MPI_Finalize) */
    if (dist_size() > 1 && dist_any(!train) && dist_any(train)) {
        if (dist_rank() == 0)
            fprintf(stderr, "placeto-mpi: ranks disagree on the command: rank 0 runs `%s`, another rank %s; every rank "
                            "runs `train` with the same arguments\n", argc >= 2 ? argv[1] : "", train ? "does not"
                            : "runs `train`");
        return EXIT_USAGE;
    }
    if (train) {
        nn_blas_init();
        return cmd_train.run(argc - 1, argv + 1);
    }
    if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        if (dist_rank() == 0)
            printf("placeto-mpi %s (%d ranks)\n", meta_version(), dist_size());
        return EXIT_OK;
    }
    if (dist_rank() == 0)
        fprintf(stderr, "placeto-mpi: runs `train` only (mpirun -np R placeto-mpi train GRAPH... [OPTIONS]); "
                        "use placeto for the other commands\n");
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    train_cli_init(); /* train's options: the shared ones and every agent's */
    dist_init(&argc, &argv);
    reserve_std_fds();
    visible_streams();
    signal(SIGXFSZ, SIG_IGN); /* past a file-size limit a write fails (EFBIG) and is reported */
    atexit(check_stdout);
    atexit(agent_policy_cache_clear); /* the policies the commands loaded once */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    if (dist_enabled()) {
        int rc = dispatch_mpi(argc, argv);
        fflush(stdout);
        dist_finalize();
        return rc;
    }
    /* the version, the man page and completion words: before BLAS is opened */
    if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        printf("placeto %s\n", meta_version());
        return EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--man") == 0) {
        meta_man(stdout, commands, N_COMMANDS);
        return EXIT_OK;
    }
    if (argc >= 2 && strcmp(argv[1], "--complete") == 0)
        return meta_complete(stdout, commands, N_COMMANDS, argc - 1, argv + 1);
    nn_blas_init();
    return dispatch(argc, argv);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) { /* the explorer on a terminal, else the overview */
        if (isatty(0) && isatty(1)) {
            char *argv_explore[] = {"explore", NULL};
            return cmd_explore.run(1, argv_explore);
        }
        return run_default();
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") != 0 || argc == 2) {
            usage(stdout);
            return EXIT_OK;
        }
        if (argc > 3) {
            fprintf(stderr, "placeto: help: expected one COMMAND, got %d arguments\nusage: placeto help [COMMAND]\n", argc - 2);
            return EXIT_USAGE;
        }
        /* placeto help CMD: the same as placeto CMD --help */
        for (int k = 0; k < N_COMMANDS; k++)
            if (strcmp(commands[k]->name, argv[2]) == 0) {
                char *argv_help[] = {argv[2], "--help", NULL};
                return commands[k]->run(2, argv_help);
            }
        fprintf(stderr, "placeto: help: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return EXIT_USAGE;
    }
    for (int k = 0; k < N_COMMANDS; k++)
        if (strcmp(commands[k]->name, name) == 0)
            return commands[k]->run(argc - 1, argv + 1);
    fprintf(stderr, "placeto: unknown command '%s'\n", name);
    usage(stderr);
    return EXIT_USAGE;
}
