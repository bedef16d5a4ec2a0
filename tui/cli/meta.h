/* meta: what the program says about itself, made from the same tables as
 * --help (cli.h's CliCmd/CliOpt tables, the placement methods, the
 * explorer's keys from ctl_keys) so that none of it can drift:
 *   placeto --version, -V     the version (the Makefile's VERSION, and
 *                             `git describe` when built from a checkout)
 *   placeto --man             the man page placeto.1 in roff (the Makefile
 *                             writes build/placeto.1 with it)
 *   placeto --complete ...    words for the bash completion
 *                             (completions/placeto.bash):
 *     --complete commands        the commands and the global options
 *     --complete options CMD     CMD's options, one "--NAME ARG" per line
 *                                (ARG "-" for a flag), then "-X ARG" lines
 *                                for the short names
 *     --complete values CMD OPT  the values of CMD's word option OPT (NAME,
 *                                --NAME or -X; its row's choices, one a
 *                                line; nothing for other options)
 *     --complete methods         the placement methods (--method, --methods)
 *     --complete table CMD [AGENT]  the rows of CMD's options (with train and
 *                                an agent: that agent's own), one a line:
 *                                --NAME, -X, ARG, docs/cli.md's value
 *                                column, tab-separated (tests/cli/cli_docs.sh
 *                                checks docs/cli.md against it)
 * Implemented in cmd_meta.c. */
#ifndef PLACETO_META_H
#define PLACETO_META_H

#include <stdio.h>

#include "cli.h"

/* The one-line description of the program (--help, the man page). */
#define PLACETO_TAGLINE "Placeto (Addanki et al., NeurIPS 2019) device placement, explorable in the terminal."

/* "0.4.0" or "0.4.0 (git 075a7c7-dirty)". */
const char *meta_version(void);
/* The man page for the commands cmds[0..n-1]. */
void meta_man(FILE *f, const CliCmd *const *cmds, int n);
/* Handles argv = {"--complete", WHAT, ...}: prints the words, returns the
 * exit status (EXIT_USAGE for an unknown WHAT or command). */
int meta_complete(FILE *f, const CliCmd *const *cmds, int n, int argc, char **argv);

#endif
