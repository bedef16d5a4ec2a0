/* theme: the explorer's colours, one table for every way a frame is shown:
 * the curses terminal (term.c) and the ANSI frames of recordings
 * (term_ansi.c). Each semantic style of the grid (grid.h) has a look in three
 * modes: 256 colours, 8 colours and monochrome. Colours are xterm colour
 * numbers (0-7 the standard eight, as curses' COLOR_* and ANSI SGR 30-37
 * number them); attributes are the TA_* bits. Implemented in theme.c. */
#ifndef PLACETO_THEME_H
#define PLACETO_THEME_H

#include "grid.h"

enum { THEME_D = -1, THEME_PAL = -2 }; /* the terminal's default colour; the cell's palette colour */
enum { TA_BOLD = 1, TA_DIM = 2, TA_UNDERLINE = 4, TA_REVERSE = 8 };
enum { TC_BLACK, TC_RED, TC_GREEN, TC_YELLOW, TC_BLUE, TC_MAGENTA, TC_CYAN, TC_WHITE };

typedef struct ThemeInk {
    short fg, bg;
    unsigned attr;
} ThemeInk;

typedef struct ThemeRow {
    ThemeInk c256, c8;
    unsigned mono;
} ThemeRow;

enum { THEME_N_DEV = 8, THEME_N_GRP = 12, THEME_N_GRP8 = 6, THEME_N_SERIES = 16, THEME_N_SERIES8 = 6 };

extern const ThemeRow theme_rows[GS_COUNT];
/* The devices' and the groups' fills in 256 colours; in 8 colours
 * {background, text} per device (groups cycle the first THEME_N_GRP8). */
extern const short theme_dev256[THEME_N_DEV];
extern const short theme_grp256[THEME_N_GRP];
extern const short theme_dev8[THEME_N_DEV][2];
/* A chart's series (GS_SERIES): text colours, 16 in 256 colours; in 8
 * colours THEME_N_SERIES8 of them plain, then bold, then underlined (18
 * looks); in monochrome plain (their glyphs tell them apart). */
extern const short theme_series256[THEME_N_SERIES];
extern const short theme_series8[THEME_N_SERIES8];
/* The 8-colour attribute of series k (TA_BOLD, TA_UNDERLINE or 0). */
unsigned theme_series8_attr(int k);

#endif
