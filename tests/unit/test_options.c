/* Options as data (agent.h's AgentOpt rows, core/agent/agent.c): every
 * registered agent's table is well-formed (agent_opt_table_check, so a
 * seventh agent is checked without a test edit); a row gives the value's
 * check and its message, the default when the option is absent, the bounds
 * of the readers and the texts of --help and docs/cli.md. */
#include <string.h>

#include "agent.h"
#include "test.h"

static const AgentOpt rows[] = {
    {.name = "budget", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 40, .def = "20", .help = "placements"},
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "0.001", .note = "paper 0.1",
     .help = "learning rate"},
    {.name = "keep", .arg = "K", .type = AGENT_OPT_WORD, .choices = "best last", .def = "best", .note = "paper: last",
     .help = "the weights kept"},
    {.name = "devices", .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = 1024, .note = "the policy's, else 2",
     .help = "devices"},
    {.name = "start", .arg = "S", .type = AGENT_OPT_WORD, .choices = "random heuristic", .help = "where to start"},
    {.name = "json", .help = "JSON on stdout"},
    {0},
};

/* The values given: "name=value" pairs in ctx, NULL-ended. */
static const char *get(void *ctx, const char *name)
{
    for (const char *const *kv = ctx; *kv; kv++) {
        size_t n = strlen(name);
        if (strncmp(*kv, name, n) == 0 && (*kv)[n] == '=')
            return *kv + n + 1;
    }
    return NULL;
}

static AgentArgs args_of(const char *const *kv)
{
    return (AgentArgs){.get = get, .ctx = (void *)kv, .opts = rows};
}

TEST(options_every_agent_table_is_well_formed)
{
    Err e = {{0}};
    CHECK(agent_opt_table_check(rows, &e) == 0);
    for (int i = 0; i < agent_count(); i++) {
        const AgentKind *k = agent_at(i);
        e.msg[0] = 0;
        CHECK_MSG(agent_opt_table_check(k->train.opts, &e) == 0, "%s: %s", k->name, e.msg);
        for (const AgentOpt *o = k->train.opts; o && o->name; o++)
            CHECK_MSG(o->type == AGENT_OPT_TEXT || o->def || o->note, "%s --%s: neither a default nor a note", k->name,
                      o->name);
    }
    /* what the check refuses */
    AgentOpt bad[2] = {{.name = "x", .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = 8, .def = "9", .help = "x"}};
    CHECK(agent_opt_table_check(bad, &e) != 0 && strstr(e.msg, "--x: its default"));
    bad[0] = (AgentOpt){.name = "y", .arg = "W", .type = AGENT_OPT_WORD, .choices = "a b", .def = "c", .help = "y"};
    CHECK(agent_opt_table_check(bad, &e) != 0 && strstr(e.msg, "--y"));
    bad[0] = (AgentOpt){.name = "z", .help = "z (default 3)"};
    CHECK(agent_opt_table_check(bad, &e) != 0 && strstr(e.msg, "states a default"));
}

TEST(options_readers_take_the_row)
{
    Err e = {{0}};
    long v = 0;
    double x = 0;
    AgentArgs none = args_of((const char *const[]){NULL});
    CHECK(agent_opt_int(&none, "budget", &v, &e) == 0 && v == 20);
    CHECK(agent_opt_num(&none, "lr", &x, &e) == 0 && x == 0.001);
    CHECK(agent_opt_int_or(&none, "devices", 0, &v, &e) == 0 && v == 0);
    CHECK(strcmp(agent_opt_word(&none, "keep", &e), "best") == 0);
    CHECK(agent_opt_word(&none, "start", &e) == NULL && e.msg[0] == 0);

    AgentArgs given = args_of((const char *const[]){"budget=1099511627776", "lr=1e-2", "keep=last", "devices=4", NULL});
    CHECK(agent_opt_int(&given, "budget", &v, &e) == 0 && v == 1L << 40);
    CHECK(agent_opt_num(&given, "lr", &x, &e) == 0 && x == 0.01);
    CHECK(strcmp(agent_opt_word(&given, "keep", &e), "last") == 0);
    CHECK(agent_opt_int_or(&given, "devices", 2, &v, &e) == 0 && v == 4);
    /* narrower bounds where they depend on the input */
    CHECK(agent_opt_int_in(&given, "devices", 1, 3, 2, &v, &e) != 0);
    CHECK_MSG(strcmp(e.msg, "--devices: expected an integer from 1 to 3, got '4'") == 0, "%s", e.msg);

    AgentArgs bad = args_of((const char *const[]){"budget=0", "lr=-1", "keep=first", "devices=4x", NULL});
    CHECK(agent_opt_int(&bad, "budget", &v, &e) != 0);
    CHECK_MSG(strcmp(e.msg, "--budget: expected an integer from 1 to 1099511627776, got '0'") == 0, "%s", e.msg);
    CHECK(agent_opt_num(&bad, "lr", &x, &e) != 0);
    CHECK_MSG(strcmp(e.msg, "--lr: expected a number from 0 to 1e+09, got '-1'") == 0, "%s", e.msg);
    CHECK(agent_opt_word(&bad, "keep", &e) == NULL);
    CHECK_MSG(strcmp(e.msg, "--keep: expected best or last, got 'first'") == 0, "%s", e.msg);
    CHECK(agent_opt_int_or(&bad, "devices", 2, &v, &e) != 0 && strstr(e.msg, "got '4x'"));
}

TEST(options_help_and_docs_text_come_from_the_row)
{
    static const AgentOpt big = {.name = "n", .arg = "N", .type = AGENT_OPT_INT, .min = 0, .max = 100000000, .help = "n"};
    static const AgentOpt small = {.name = "t", .arg = "T", .type = AGENT_OPT_NUM, .min = 1e-9, .max = 1e-3, .help = "t"};
    static const struct {
        const AgentOpt *row;
        const char *help, *md; /* --help's line, docs/cli.md's value column */
    } want[] = {
        {&rows[0], "placements (1-2^40, default 20)", "1–2^40, default 20"},
        {&rows[1], "learning rate (0-1e9, default 0.001; paper 0.1)", "0–1e9, default 0.001 (paper 0.1)"},
        {&rows[2], "the weights kept (default best; paper: last)", "`best` (default) or `last` (paper: last)"},
        {&rows[3], "devices (1-1024, default: the policy's, else 2)", "1–1024, default: the policy's, else 2"},
        {&rows[4], "where to start", "`random` or `heuristic`"},
        {&rows[5], "JSON on stdout", ""},
        {&big, "n (0-10^8)", "0–10^8"},
        {&small, "t (1e-9-0.001)", "1e-9–0.001"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char buf[256];
        agent_opt_help(want[k].row, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, want[k].help) == 0, "--%s: help '%s', expected '%s'", want[k].row->name, buf, want[k].help);
        agent_opt_md(want[k].row, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, want[k].md) == 0, "--%s: docs '%s', expected '%s'", want[k].row->name, buf, want[k].md);
    }
}
