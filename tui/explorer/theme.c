/* theme: the explorer's colours (theme.h). */
#include "theme.h"

enum { D = THEME_D, PAL = THEME_PAL };

/* Every style in three modes. Text colours are chosen to read on dark and on
 * light backgrounds; filled styles (a background colour or reverse video)
 * carry dark text. GS_DEVICE and GS_GROUP take their background from the
 * palettes below; in monochrome they are plain (the layouts print the device
 * tag, and the timeline's blocks are block glyphs). */
const ThemeRow theme_rows[GS_COUNT] = {
    [GS_NONE] = {{D, D, 0}, {D, D, 0}, 0},
    [GS_DIM] = {{245, D, 0}, {D, D, TA_DIM}, TA_DIM},
    [GS_BORDER] = {{240, D, 0}, {D, D, TA_DIM}, 0},
    [GS_TITLE] = {{D, D, TA_BOLD}, {D, D, TA_BOLD}, TA_BOLD},
    [GS_LABEL] = {{D, D, 0}, {D, D, 0}, 0},
    [GS_AXIS] = {{246, D, 0}, {D, D, 0}, 0},
    [GS_NODE] = {{D, D, 0}, {D, D, 0}, 0},
    [GS_DEVICE] = {{16, PAL, 0}, {D, PAL, 0}, 0},
    [GS_GROUP] = {{16, PAL, 0}, {D, PAL, 0}, 0},
    [GS_CURRENT] = {{D, D, TA_REVERSE | TA_BOLD}, {D, D, TA_REVERSE | TA_BOLD}, TA_REVERSE | TA_BOLD},
    [GS_SELECTED] = {{231, 127, TA_BOLD}, {D, D, TA_REVERSE | TA_UNDERLINE}, TA_REVERSE | TA_UNDERLINE},
    [GS_ANCESTOR] = {{33, D, TA_BOLD}, {TC_CYAN, D, TA_BOLD}, TA_BOLD},
    [GS_DESCENDANT] = {{208, D, TA_BOLD}, {TC_MAGENTA, D, TA_BOLD}, TA_BOLD | TA_UNDERLINE},
    [GS_PARALLEL] = {{35, D, TA_BOLD}, {TC_GREEN, D, TA_BOLD}, TA_UNDERLINE},
    [GS_EDGE] = {{244, D, 0}, {D, D, 0}, 0},
    [GS_EDGE_HI] = {{178, D, TA_BOLD}, {TC_YELLOW, D, TA_BOLD}, TA_BOLD},
    [GS_CRITICAL] = {{196, D, TA_BOLD}, {TC_RED, D, TA_BOLD}, TA_BOLD},
    [GS_IDLE] = {{240, D, 0}, {D, D, TA_DIM}, TA_DIM},
    [GS_TRANSFER] = {{109, D, 0}, {TC_CYAN, D, 0}, 0},
    [GS_BAR] = {{71, D, 0}, {TC_GREEN, D, 0}, 0},
    [GS_BAR_EMPTY] = {{238, D, 0}, {D, D, TA_DIM}, TA_DIM},
    [GS_BAR_OVER] = {{196, D, TA_BOLD}, {TC_RED, D, TA_BOLD}, TA_BOLD},
    [GS_SPARK] = {{38, D, 0}, {TC_CYAN, D, 0}, 0},
    [GS_STATUS] = {{231, 238, 0}, {D, D, TA_REVERSE}, TA_REVERSE},
    [GS_KEY] = {{172, D, TA_BOLD}, {TC_YELLOW, D, TA_BOLD}, TA_BOLD},
    [GS_CURSOR] = {{D, D, TA_REVERSE}, {D, D, TA_REVERSE}, TA_REVERSE},
    [GS_GOOD] = {{34, D, 0}, {TC_GREEN, D, 0}, TA_BOLD},
    [GS_WARN] = {{172, D, 0}, {TC_YELLOW, D, 0}, TA_BOLD},
    [GS_ERROR] = {{196, D, TA_BOLD}, {TC_RED, D, TA_BOLD}, TA_BOLD | TA_UNDERLINE},
    [GS_SERIES] = {{D, D, 0}, {D, D, 0}, 0}, /* the series palettes below */
};

/* Devices: the DOT export's palette (core/export_dot.c: ColorBrewer Paired
 * and Set3 pastels #a6cee3 #b2df8a #fb9a99 #fdbf6f #cab2d6 #ffff99 #8dd3c7
 * #d9d9d9) at the nearest xterm-256 colours, under black text. */
const short theme_dev256[THEME_N_DEV] = {152, 150, 210, 215, 182, 228, 116, 253};
/* Groups: Set3 (#8dd3c7 #ffffb3 #bebada #fb8072 #80b1d3 #fdb462 #b3de69
 * #fccde5 #d9d9d9 #bc80bd #ccebc5 #ffed6f). */
const short theme_grp256[THEME_N_GRP] = {116, 229, 146, 209, 110, 215, 149, 224, 253, 139, 194, 227};
/* 8 colours: {background, text}; black has no distinct fill on most
 * terminals, so the eighth device is bright black where 16 colours exist and
 * underlined white otherwise. Groups cycle six fills, underlined the second
 * time round. */
const short theme_dev8[THEME_N_DEV][2] = {
    {TC_BLUE, TC_WHITE},  {TC_GREEN, TC_BLACK}, {TC_RED, TC_WHITE},
    {TC_YELLOW, TC_BLACK}, {TC_MAGENTA, TC_WHITE}, {TC_CYAN, TC_BLACK},
    {TC_WHITE, TC_BLACK}, {TC_WHITE, TC_BLACK},
};

/* Series: text colours that read on dark and light backgrounds, neighbours
 * far apart in hue (blue, orange, green, red, purple, teal, gold, pink,
 * brown, cornflower, olive, salmon, lavender, dark cyan, dark gold, grey). */
const short theme_series256[THEME_N_SERIES] = {33, 208, 34, 160, 129, 37, 178, 199,
                                               94, 69, 64, 167, 97, 30, 136, 245};
const short theme_series8[THEME_N_SERIES8] = {TC_BLUE, TC_YELLOW, TC_GREEN, TC_RED, TC_MAGENTA, TC_CYAN};

unsigned theme_series8_attr(int k)
{
    k %= THEME_N_SERIES8 * 3;
    return k < THEME_N_SERIES8 ? 0 : k < 2 * THEME_N_SERIES8 ? TA_BOLD : TA_UNDERLINE;
}
