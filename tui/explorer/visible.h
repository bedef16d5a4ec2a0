/* visible: standard output and error with control characters made visible.
 * Names in graph, placement and policy files may hold any character, and a
 * name printed as it is could send escape sequences to the user's terminal
 * (`info` on a name with ESC ]...BEL retitled it). Every byte the program
 * writes to stdout and stderr passes through a filter that shows a C0
 * control as ^X (^[ for ESC), DEL as ^?, a C1 control (U+0080-U+009F)
 * as <U+009B>, and a bidirectional control (U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069, U+061C), which would reorder what the terminal shows
 * around it, as <U+202E>; newline, tab and carriage return pass. JSON output
 * escapes the controls itself and is unchanged (its bidirectional controls
 * show as <U+...> too); files written to "-" do not pass the filter. The explorer draws through the
 * original stream (visible_raw_stdout), as curses shows controls as ^X. */
#ifndef PLACETO_VISIBLE_H
#define PLACETO_VISIBLE_H

#include <stdio.h>

/* Puts the filter on stdout and stderr (once; later calls do nothing). */
void visible_streams(void);
/* The stream stdout was before visible_streams (stdout itself before it). */
FILE *visible_raw_stdout(void);

#endif
