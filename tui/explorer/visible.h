/* visible: standard output and error with control characters made visible.
 * Names in graph, placement and policy files may hold any character, and a
 * name printed as it is could send escape sequences to the user's terminal
 * (`info` on a name with ESC ]...BEL retitled it). Every byte the program
 * writes to stdout and stderr passes through a filter that shows a C0
 * control as ^X (^[ for ESC), DEL as ^?, and a C1 control (U+0080-U+009F)
 * as <U+009B>; newline, tab and carriage return pass. JSON output escapes
 * these characters itself and is unchanged. The explorer draws through the
 * original stream (visible_raw_stdout), as curses shows controls as ^X. */
#ifndef PLACETO_VISIBLE_H
#define PLACETO_VISIBLE_H

#include <stdio.h>

/* Puts the filter on stdout and stderr (once; later calls do nothing). */
void visible_streams(void);
/* The stream stdout was before visible_streams (stdout itself before it). */
FILE *visible_raw_stdout(void);

#endif
