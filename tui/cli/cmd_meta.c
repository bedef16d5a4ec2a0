/* meta: see meta.h. PLACETO_VERSION and PLACETO_GIT come from the Makefile
 * (-D, for this file only). */
#include "meta.h"

#include <string.h>

#include "agent.h"
#include "ctl.h"
#include "place.h"

#ifndef PLACETO_VERSION
#define PLACETO_VERSION "unknown"
#endif
#ifndef PLACETO_GIT
#define PLACETO_GIT ""
#endif

const char *meta_version(void)
{
    return PLACETO_GIT[0] ? PLACETO_VERSION " (git " PLACETO_GIT ")" : PLACETO_VERSION;
}

/* ------------------------------------------------------------------ */
/* The man page                                                        */

/* len bytes of s as roff text: backslashes as \e, every '-' as \- (a minus,
 * so that options copy and paste and never break or hyphenate), and \& before
 * a '.' or '\'' that starts the line (a request otherwise). */
static void roff_put(FILE *f, const char *s, size_t len, int line_start)
{
    if (line_start && len && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", f);
    for (size_t k = 0; k < len; k++) {
        if (s[k] == '\\')
            fputs("\\e", f);
        else if (s[k] == '-')
            fputs("\\-", f);
        else
            fputc(s[k], f);
    }
}

static void roff_str(FILE *f, const char *s, int line_start)
{
    roff_put(f, s, strlen(s), line_start);
}

/* Text of one or more lines, each an input line of its own (filled). */
static void roff_lines(FILE *f, const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len) {
            roff_put(f, s, len, 1);
            fputc('\n', f);
        }
        s += len + (nl ? 1 : 0);
    }
}

/* A command's details: prose lines are filled; example lines, and lines
 * that start with a space (their continuations), are kept as they are. */
static void roff_details(FILE *f, const char *s)
{
    int literal = -1; /* the mode of the open paragraph: none yet */
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        int lit = strncmp(s, "example", 7) == 0 || s[0] == ' ';
        if (lit != literal) {
            if (literal == 1)
                fputs(".fi\n", f);
            fputs(lit ? ".PP\n.nf\n" : ".PP\n", f);
            literal = lit;
        }
        if (len) {
            roff_put(f, s, len, 1);
            fputc('\n', f);
        }
        s += len + (nl ? 1 : 0);
    }
    if (literal == 1)
        fputs(".fi\n", f);
}

static void man_option(FILE *f, char short_name, const char *name, const char *arg, const char *help)
{
    fputs(".TP\n", f);
    if (short_name)
        fprintf(f, "\\fB\\-%c\\fR, ", short_name);
    fputs("\\fB\\-\\-", f);
    roff_str(f, name, 0);
    fputs("\\fR", f);
    if (arg) {
        fputs(" \\fI", f);
        roff_str(f, arg, 0);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff_lines(f, help);
}

static void man_row(FILE *f, const AgentOpt *o)
{
    char help[1024];
    agent_opt_help(o, help, sizeof help);
    man_option(f, o->short_name, o->name, o->arg, help);
}

/* Whether some agent's trainer has option name (train's table merges them). */
static int agents_have(const char *name)
{
    for (int i = 0; i < agent_count(); i++)
        if (agent_opt_find(agent_at(i)->train.opts, name))
            return 1;
    return 0;
}

static void man_command(FILE *f, const CliCmd *c)
{
    fprintf(f, ".SS %s\n.PP\n\\fBplaceto %s\\fR ", c->name, c->name);
    roff_str(f, c->usage, 0);
    fputs("\n.PP\n", f);
    roff_lines(f, c->summary);
    int train = strcmp(c->name, "train") == 0; /* its shared rows, then each agent's own, with their defaults */
    for (const CliOpt *o = c->opts; o->name; o++)
        if (!train || !agents_have(o->name))
            man_row(f, o);
    man_option(f, 'h', "help", NULL, "show this help and exit");
    if (c->details)
        roff_details(f, c->details);
    for (int i = 0; train && i < agent_count(); i++) {
        const AgentKind *k = agent_at(i);
        fputs(".PP\nWith \\fB\\-\\-agent ", f);
        roff_str(f, k->name, 0);
        fputs("\\fR, ", f);
        roff_str(f, k->title, 0);
        fputs(":\n", f);
        for (const AgentOpt *o = k->train.opts; o && o->name; o++)
            man_row(f, o);
    }
}

static void man_keys(FILE *f)
{
    fputs(".SH KEYS\n"
          "The explorer's keys (also its help, \\fB?\\fR), by section.\n", f);
    for (int replay = 0; replay < 2; replay++) {
        int n;
        const CtlKeyDoc *keys = ctl_keys(replay, &n);
        for (int s = 0; s < (replay ? 1 : CTL_KEY_SECTIONS); s++) {
            fputs(".SS ", f);
            roff_str(f, ctl_key_section(s, replay), 0);
            fputc('\n', f);
            if (replay)
                fputs("While replaying a file (\\fBexplore \\-\\-replay\\fR), in place of the episode's keys:\n", f);
            for (int k = 0; k < n; k++) {
                if (keys[k].section != s)
                    continue;
                fputs(".TP\n\\fB", f);
                roff_str(f, keys[k].keys, 0);
                fputs("\\fR\n", f);
                roff_lines(f, keys[k].help);
            }
        }
        if (!replay) {
            fputs(".PP\n", f);
            roff_lines(f, CTL_MOUSE_HELP);
        }
    }
}

void meta_man(FILE *f, const CliCmd *const *cmds, int n)
{
    fprintf(f, ".\\\" placeto.1, written by 'placeto --man' from the tables of --help\n"
               ".TH PLACETO 1 \"\" \"placeto %s\" \"User Commands\"\n"
               ".nh\n.ad l\n"
               ".SH NAME\nplaceto \\- learned device placement (Placeto), explorable in the terminal\n"
               ".SH SYNOPSIS\n"
               "\\fBplaceto\\fR [\\fICOMMAND\\fR] [\\fIARGS\\fR]\n.br\n"
               "\\fBplaceto help\\fR [\\fICOMMAND\\fR]\n.br\n"
               "\\fBplaceto\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR\n.br\n"
               "\\fBplaceto \\-\\-version\\fR\n"
               ".SH DESCRIPTION\n", PLACETO_VERSION);
    roff_lines(f, PLACETO_TAGLINE);
    fputs("It places the op groups of a neural network's computation graph onto devices, one group at a\n"
          "time, with a graph neural network trained by reinforcement learning, and measures each\n"
          "placement on an event\\-driven simulator.\n"
          ".PP\n"
          "With no command, \\fBplaceto\\fR opens the explorer on the bundled default graph (a\n"
          "ResNet\\-18 training step) when standard input and output are a terminal, and prints an\n"
          "overview of that graph otherwise.\n"
          ".SH OPTIONS\n", f);
    man_option(f, 'h', "help", NULL, "list the commands and exit");
    man_option(f, 'V', "version", NULL, "print the version and exit");
    fputs(".SH COMMANDS\n", f);
    for (int k = 0; k < n; k++) {
        fprintf(f, ".TP\n\\fB%s\\fR\n", cmds[k]->name);
        roff_lines(f, cmds[k]->brief);
    }
    for (int k = 0; k < n; k++)
        man_command(f, cmds[k]);
    int nm;
    const PlaceMethod *m = place_methods(&nm);
    fputs(".SH METHODS\nThe placement methods of \\fBplace \\-\\-method\\fR and \\fBcompare \\-\\-methods\\fR:\n", f);
    for (int k = 0; k < nm; k++) {
        fputs(".TP\n\\fB", f);
        roff_str(f, m[k].name, 0);
        fputs("\\fR\n", f);
        roff_lines(f, m[k].help);
    }
    man_keys(f);
    fputs(".SH ENVIRONMENT\n"
          ".TP\n\\fBPLACETO_DATA\\fR\n"
          "the directory of the bundled graphs, clusters and policies (see \\fBFILES\\fR)\n"
          ".TP\n\\fBPLACETO_KERNELS=plain\\fR\n"
          "the policy network runs its own kernels for every layer, also the wide ones BLAS takes otherwise:\n"
          "the same bytes on every machine, at about the same speed\n"
          ".TP\n\\fBOPENBLAS_NUM_THREADS\\fR\n"
          "BLAS threads (default 1)\n"
          ".TP\n\\fBNO_COLOR\\fR\n"
          "the explorer draws without colours\n"
          ".TP\n\\fBPLACETO_PYTHON\\fR\n"
          "the Python interpreter the installed importers (\\fBplaceto\\-import\\-torch\\fR,\n"
          "\\fBplaceto\\-import\\-onnx\\fR) run with; unset, the \\fBpython3\\fR on \\fBPATH\\fR when it can\n"
          "import torch (onnx), else \\fI/usr/bin/python3\\fR\n"
          ".TP\n\\fBPLACETO_SLIDE_DIR\\fR\n"
          "where the explorer's slide key (F2, Ctrl\\-P) writes placeto\\-slide\\-NNN.svg and .png (default: the\n"
          "working directory; \\-\\-slide\\-dir comes first)\n"
          ".SH FILES\n"
          "The bundled data (graphs, \\fIclusters/\\fR, \\fIplacements/\\fR, \\fIpolicies/\\fR) is looked up\n"
          "in \\fB$PLACETO_DATA\\fR when that is set, else in \\fIgraphs/\\fR beside the executable or one\n"
          "directory up (a source tree), else in \\fIPREFIX/share/placeto\\fR for an executable\n"
          "installed as \\fIPREFIX/bin/placeto\\fR, else in \\fIgraphs/\\fR in the working directory.\n"
          ".SH EXIT STATUS\n"
          "0 on success, 1 on a failure (a file that cannot be read, is invalid or cannot be written),\n"
          "2 on a usage error (an unknown command or option, a bad value).\n"
          ".SH SEE ALSO\n"
          "\\fBdot\\fR(1); the README and docs/ of the source tree.\n",
          f);
}

/* ------------------------------------------------------------------ */
/* Completion words                                                    */

static const CliCmd *find_cmd(const CliCmd *const *cmds, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(cmds[k]->name, name) == 0)
            return cmds[k];
    return NULL;
}

/* One row of `--complete table`: --NAME, -X (or -), ARG (or -), then the
 * value column of docs/cli.md, tab-separated. */
static void table_row(FILE *f, const AgentOpt *o)
{
    char md[1024];
    agent_opt_md(o, md, sizeof md);
    fprintf(f, "--%s\t", o->name);
    if (o->short_name)
        fprintf(f, "-%c", o->short_name);
    else
        fputc('-', f);
    fprintf(f, "\t%s\t%s\n", o->arg ? o->arg : "-", md);
}

int meta_complete(FILE *f, const CliCmd *const *cmds, int n, int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "values") == 0 && argc == 4) { /* the choices of a word option */
        const CliCmd *c = find_cmd(cmds, n, argv[2]);
        const char *opt = argv[3];
        const AgentOpt *o = NULL;
        if (c && opt[0] == '-' && opt[1] && opt[1] != '-' && !opt[2]) { /* -l: the short name */
            for (const AgentOpt *r = c->opts; r->name && !o; r++)
                if (r->short_name == opt[1])
                    o = r;
        } else if (c) {
            o = agent_opt_find(c->opts, strncmp(opt, "--", 2) == 0 ? opt + 2 : opt);
        }
        if (!o) {
            fprintf(stderr, "placeto: --complete values: no option '%s' of '%s'\n", argv[3], argv[2]);
            return EXIT_USAGE;
        }
        for (const char *w = o->type == AGENT_OPT_WORD ? o->choices : ""; *w;) {
            size_t len = strcspn(w, " ");
            if (len)
                fprintf(f, "%.*s\n", (int)len, w);
            w += len + (w[len] == ' ');
        }
        return EXIT_OK;
    }
    if (strcmp(what, "table") == 0 && (argc == 3 || argc == 4)) { /* docs/cli.md's value column */
        const CliCmd *c = find_cmd(cmds, n, argv[2]);
        const AgentKind *k = argc == 4 ? agent_find(argv[3]) : NULL;
        if (!c || (argc == 4 && (!k || strcmp(c->name, "train") != 0))) {
            fprintf(stderr, "placeto: --complete table: expected a command (and with train an agent), got '%s%s%s'\n",
                    argv[2], argc == 4 ? " " : "", argc == 4 ? argv[3] : "");
            return EXIT_USAGE;
        }
        const AgentOpt *t = k ? k->train.opts : c->opts;
        Err e = {{0}};
        if (agent_opt_table_check(t, &e)) {
            fprintf(stderr, "placeto: --complete table %s%s%s: %s\n", argv[2], k ? " " : "", k ? argv[3] : "", e.msg);
            return EXIT_FAIL;
        }
        for (const AgentOpt *o = t; o && o->name; o++)
            table_row(f, o);
        return EXIT_OK;
    }
    if (strcmp(what, "commands") == 0 && argc == 2) {
        for (int k = 0; k < n; k++)
            fprintf(f, "%s\n", cmds[k]->name);
        fputs("help\n--help\n--version\n", f);
        return EXIT_OK;
    }
    if (strcmp(what, "methods") == 0 && argc == 2) {
        int nm;
        const PlaceMethod *m = place_methods(&nm);
        for (int k = 0; k < nm; k++)
            fprintf(f, "%s\n", m[k].name);
        return EXIT_OK;
    }
    if (strcmp(what, "options") == 0 && argc == 3) {
        for (int k = 0; k < n; k++) {
            if (strcmp(cmds[k]->name, argv[2]) != 0)
                continue;
            const CliOpt *o;
            for (o = cmds[k]->opts; o->name; o++)
                fprintf(f, "--%s %s\n", o->name, o->arg ? o->arg : "-");
            fputs("--help -\n", f);
            for (o = cmds[k]->opts; o->name; o++)
                if (o->short_name)
                    fprintf(f, "-%c %s\n", o->short_name, o->arg ? o->arg : "-");
            fputs("-h -\n", f);
            return EXIT_OK;
        }
        fprintf(stderr, "placeto: --complete options: unknown command '%s'\n", argv[2]);
        return EXIT_USAGE;
    }
    fputs("placeto: usage: placeto --complete (commands | options COMMAND | values COMMAND OPTION | methods | table COMMAND [AGENT])\n", stderr);
    return EXIT_USAGE;
}
