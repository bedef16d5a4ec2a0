/* The strict JSON grammar of every file (jdoc_check.c): what cJSON would take
 * leniently is refused with FILE:LINE:COL and what was expected, what RFC 8259
 * allows still loads; and running out of memory while reading a valid file
 * is reported as that, never as a syntax error. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "graph.h"
#include "jdoc.h"
#include "placement.h"
#include "test.h"
#include "testutil.h"
#include "util.h"

typedef struct StrictCase {
    const char *text; /* '@' marks where the error must point */
    const char *msg;  /* what the message must contain */
} StrictCase;

#define G "{\"format\": \"placeto-graph\", \"version\": 1, \"nodes\": ["

TEST(jdoc_strict_refuses_what_cjson_takes_leniently)
{
    static const StrictCase cases[] = {
        {G "{\"name\": \"a@\tb\"}]}", "raw control character 0x09 in a string: expected it escaped"},
        {G "{\"name\": \"a@\nb\"}]}", "raw control character 0x0a in a string"},
        {G "{\"name\": \"a@\xff\"}]}", "invalid UTF-8 in a string (byte 0xff)"},
        {G "{\"name\": \"a@\xc0\xafx\"}]}", "invalid UTF-8 in a string (byte 0xc0)"},     /* overlong '/' */
        {G "{\"name\": \"a@\xed\xa0\x80x\"}]}", "invalid UTF-8 in a string (byte 0xed)"}, /* a surrogate */
        {G "{\"name\": \"a@\xe2\x82\"}]}", "invalid UTF-8 in a string (byte 0xe2)"},     /* cut short */
        {G "{\"name\": \"a\"}]@\x0c}", "JSON syntax error near byte 0x0c: a control character"},
        {"@\x0b" G "{\"name\": \"a\"}]}", "near byte 0x0b"},
        {G "{\"name\": \"a\", \"cost_us\": @012}]}", "a number with a leading zero"},
        {G "{\"name\": \"a\", \"cost_us\": @-012}]}", "a number with a leading zero"},
        {G "{\"name\": \"a\", \"cost_us\": 12.@}]}", "near '}': expected a digit after the decimal point"},
        {G "{\"name\": \"a\", \"cost_us\": 1e@}]}", "expected a digit in the exponent"},
        {G "{\"name\": \"a\", \"cost_us\": @.5}]}", "expected a value"},
        {G "{\"name\": \"a\", \"cost_us\": @+1}]}", "expected a value"},
        {G "{\"name\": \"a\", \"output_bytes\": @9007199254740993}]}",
         "JSON number 9007199254740993 too large: integers are exact only up to 2^53 = 9007199254740992"},
        {G "{\"name\": \"a\", \"output_bytes\": @-12345678901234567890123456789}]}", "too large"},
        {G "{\"name\": \"a@\\u0000b\"}]}", "\\u0000 in a string: NUL characters are not allowed"},
        {G "{\"name\": \"a\", \"op\": \"x@\\u0000\"}]}", "\\u0000 in a string"},
        {"{\"format\": \"placeto-graph\", \"version\": 1, \"na@\\u0000me\": \"x\", \"nodes\": [{\"name\": \"a\"}]}",
         "\\u0000 in a string"},
        {G "{\"name\": \"a@\\udc00\"}]}", "unpaired surrogate \\udc00"},
        {G "{\"name\": \"a@\\ud800x\"}]}", "unpaired surrogate in a string: expected \\uDC00-\\uDFFF"},
        {G "{\"name\": \"a@\\u12g4\"}]}", "bad \\u escape"},
        {G "{\"name\": \"a@\\q\"}]}", "invalid escape '\\q'"},
        {G "{\"name\": \"a\",@}]}", "near '}': expected a string (an object key)"},
        {G "{\"name\" @\"a\"}]}", "near '\"': expected ':' after an object key"},
        {G "{\"name\": \"a\"} @{\"name\": \"b\"}]}", "expected ',' or ']' after an array element"},
        {G "{\"name\": \"a\"@]}", "expected ',' or '}' after an object member"},
        {G "{\"name\": @tru}]}", "expected a value"},
        {G "{\"name\": \"a\"}]}@,", "unexpected data after the JSON value"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char *text = xstrdup(cases[k].text);
        size_t at = 0;
        REQUIRE(take_marker(text, &at));
        Err e = {{0}};
        Graph *g = graph_load_json_text("s.json", text, strlen(text), &e);
        CHECK_MSG(!g, "case %zu: loaded", k);
        graph_free(g);
        char want[256];
        error_at(want, sizeof want, "s.json", text, at, "");
        CHECK_MSG(strncmp(e.msg, want, strlen(want)) == 0, "case %zu: '%s', expected it to start with '%s'", k, e.msg,
                  want);
        CHECK_MSG(strstr(e.msg, cases[k].msg) != NULL, "case %zu: '%s' lacks '%s'", k, e.msg, cases[k].msg);
        free(text);
    }
}

TEST(jdoc_strict_accepts_rfc8259_json)
{
    static const char *ok[] = {
        G "{\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\", \"cost_us\": 0}]}",
        G "{\"name\": \"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"cost_us\": 0.5}]}",
        G "{\"name\": \"a\", \"cost_us\": 1e3, \"output_bytes\": 9007199254740992}]}",
        G "{\"name\": \"a\", \"cost_us\": 1.5E+2, \"output_bytes\": [0, 1, 2]}]}",
        " \t\r\n" G "{\"name\": \"a\", \"cost_us\": 0.0e-0}]} \n\r\t",
    };
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
        Err e = {{0}};
        Graph *g = graph_load_json_text("ok.json", ok[k], strlen(ok[k]), &e);
        CHECK_MSG(g != NULL, "case %zu: %s", k, e.msg);
        graph_free(g);
    }
    /* the whole grammar on its own, without a schema */
    static const char *values[] = {"0", "-0", "-0.0", "[]", "{}", "[[[]]]", "\"\"", "true", "false", "null",
                                   "-9007199254740992", "1E400", "[1,2 ,3]", "{\"a\":{\"b\":[null]}}"};
    for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
        Err e = {{0}};
        CHECK_MSG(jdoc_check_text("v.json", values[k], strlen(values[k]), &e) == 0, "%s: %s", values[k], e.msg);
    }
    static const char *bad[] = {"-", "01", "1.", "1.e3", "[1,]", "{\"a\":1,}", "[", "\"abc", "tru", "nul", "[1 2]",
                                "{1:2}", "'a'", "[1]x", "\"\\u12\"", "NaN", "Infinity", "-Infinity"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        Err e = {{0}};
        CHECK_MSG(jdoc_check_text("v.json", bad[k], strlen(bad[k]), &e) != 0, "%s: accepted", bad[k]);
        CHECK_MSG(strncmp(e.msg, "v.json:1:", 9) == 0, "%s: %s", bad[k], e.msg);
    }
}

/* Every reader goes through the same grammar: a \u0000 that would cut a name
 * short is refused in placements and clusters too. */
TEST(jdoc_strict_every_format_refuses_nul_in_strings)
{
    const char *gtext = G "{\"name\": \"a\"}, {\"name\": \"b\"}]}";
    Err e = {{0}};
    Graph *g = graph_load_json_text("g.json", gtext, strlen(gtext), &e);
    REQUIRE_MSG(g, "%s", e.msg);
    const char *ptext = "{\"format\": \"placeto-placement\", \"version\": 1, \"devices\": 2,\n"
                        " \"ops\": {\"a\": 0, \"b\\u0000junk\": 1}}";
    Placement *p = placement_load_text("p.json", ptext, strlen(ptext), g, &e);
    CHECK(!p);
    placement_free(p);
    CHECK_STR_CONTAINS(e.msg, "p.json:2:20: JSON syntax error: \\u0000 in a string");
    const char *ctext = "{\"format\": \"placeto-cluster\", \"version\": 1, \"devices\": [{\"name\": \"g\\u00000\"}]}";
    e.msg[0] = '\0';
    Cluster *c = cluster_load_text("c.json", ctext, strlen(ctext), &e);
    CHECK(!c);
    cluster_free(c);
    CHECK_STR_CONTAINS(e.msg, "c.json:1:68: JSON syntax error: \\u0000 in a string");
    graph_free(g);
}

/* Integers past 2^53 written with an exponent are refused by the typed
 * getters too. */
TEST(jdoc_strict_integers_past_2_53_refused_in_any_form)
{
    const char *text = G "{\"name\": \"a\", \"output_bytes\": 1e17}]}";
    Err e = {{0}};
    Graph *g = graph_load_json_text("i.json", text, strlen(text), &e);
    CHECK(!g);
    graph_free(g);
    CHECK_STR_CONTAINS(e.msg, "i.json:1:83: nodes[0].output_bytes: expected an integer");
}

static jmp_buf oom_jmp;
static void oom_jump(void) { longjmp(oom_jmp, 1); }

/* Allocation failing at every point of reading and parsing a valid file:
 * the error is "FILE: out of memory", never a syntax error. */
TEST(jdoc_out_of_memory_while_reading_is_reported_as_such)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "oom"));
    char path[256];
    tmp_file(path, sizeof path, &t, "valid.json");
    /* a text larger than the reader's first buffer, so that it grows */
    StrBuf b = {0};
    sb_puts(&b, G);
    for (int k = 0; k < 3000; k++)
        sb_printf(&b, "%s{\"name\": \"node_%d\", \"cost_us\": %d, \"output_bytes\": [1, 2]}", k ? ",\n" : "", k, k);
    sb_puts(&b, "]}");
    Err e = {{0}};
    REQUIRE(util_write_atomic(path, b.s, b.len, &e) == 0);
    /* how many allocations reading the text and building cJSON's tree take
     * (the first parse installs jdoc's allocation hooks in cJSON) */
    size_t len;
    char *text = util_read_file(path, &len, &e);
    JDoc d;
    REQUIRE(text && jdoc_parse(&d, path, text, len, &e) == 0);
    jdoc_done(&d);
    free(text);
    util_alloc_fail_after(-1);
    text = util_read_file(path, &len, &e);
    cJSON *tree = cJSON_ParseWithLength(text, len);
    unsigned long needed = util_alloc_count();
    cJSON_Delete(tree);
    free(text);
    REQUIRE(needed > 3);
    char want[300];
    snprintf(want, sizeof want, "%s: out of memory", path);
    int reported = 0;
    /* (the tree reader: graph_load's one-pass reader builds the graph as it
     * reads, so that running out of memory there takes the fatal path below) */
    for (unsigned long n = 0; n < needed; n += 1 + n / 7) {
        util_alloc_fail_after((long)n);
        e.msg[0] = '\0';
        size_t tl = 0;
        char *tx = util_read_file(path, &tl, &e);
        Graph *g = tx ? graph_load_json_tree_text(path, tx, tl, &e) : NULL;
        util_alloc_fail_after(-1);
        free(tx);
        CHECK_MSG(!g, "after %lu allocations: loaded", n);
        graph_free(g);
        CHECK_MSG(strcmp(e.msg, want) == 0, "after %lu allocations: '%s'", n, e.msg);
        reported += strcmp(e.msg, want) == 0;
    }
    CHECK(reported > 2);
    CHECK(util_reading_path() == NULL);
    /* past the parse, while the graph is built from the tree: the fatal path
     * names the file too */
    text = util_read_file(path, &len, &e);
    REQUIRE(text && jdoc_parse(&d, path, text, len, &e) == 0);
    util_set_fail_hook(oom_jump);
    void *volatile got = NULL;
    if (setjmp(oom_jmp) == 0) {
        util_alloc_fail_after(0);
        got = xmalloc(64);
    }
    util_alloc_fail_after(-1);
    util_set_fail_hook(NULL);
    CHECK(got == NULL);
    snprintf(want, sizeof want, "%s: out of memory (allocating 64 bytes)", path);
    CHECK_MSG(strcmp(util_fail_message(), want) == 0, "'%s'", util_fail_message());
    jdoc_done(&d);
    free(text);
    /* outside any file the message names none */
    util_set_fail_hook(oom_jump);
    if (setjmp(oom_jmp) == 0) {
        util_alloc_fail_after(0);
        got = xmalloc(32);
    }
    util_alloc_fail_after(-1);
    util_set_fail_hook(NULL);
    CHECK_MSG(strcmp(util_fail_message(), "out of memory (allocating 32 bytes)") == 0, "'%s'", util_fail_message());
    /* files read while reading another (an episode's graph) nest */
    util_reading("outer.json");
    util_reading("inner.json");
    CHECK(util_reading_path() && strcmp(util_reading_path(), "inner.json") == 0);
    util_reading(NULL);
    CHECK(util_reading_path() && strcmp(util_reading_path(), "outer.json") == 0);
    util_reading(NULL);
    CHECK(util_reading_path() == NULL);
    sb_free(&b);
    tmp_close(&t);
}

/* What the strict grammar accepts cJSON parses (so that a cJSON failure
 * after it can only be running out of memory), on random short texts from
 * JSON's alphabet; and a text is read only up to its length. */
TEST(jdoc_strict_accepted_texts_parse_with_cjson)
{
    static const char alphabet[] = "{}[]\",:0123456789.-+eEtrufalsn \\u\n\t\x01\xc3\xa9\xff";
    Rng r;
    rng_seed(&r, 99);
    char buf[16];
    int accepted = 0;
    for (int it = 0; it < 100000; it++) {
        size_t len = 1 + (size_t)rng_below(&r, 10);
        for (size_t i = 0; i < len; i++)
            buf[i] = alphabet[rng_below(&r, sizeof alphabet - 1)];
        buf[len] = '\0';
        Err e = {{0}};
        if (memchr(buf, '\0', len) || jdoc_check_text("r.json", buf, len, &e) != 0)
            continue;
        accepted++;
        cJSON *v = cJSON_ParseWithLength(buf, len);
        CHECK_MSG(v != NULL, "accepted but cJSON refuses: '%s'", buf);
        cJSON_Delete(v);
    }
    CHECK(accepted > 100);
    Err e = {{0}};
    CHECK(jdoc_check_text("v.json", "\"\\u12ab\"", 5, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "unexpected end of file");
    CHECK(jdoc_check_text("v.json", "[10]", 3, &e) != 0);
    CHECK(jdoc_check_text("v.json", "123456", 2, &e) == 0);
}
