/* grid: a width x height array of character cells, the only thing layouts/
 * hands to the explorer: layouts compute what to show, the explorer only
 * paints cells (README, "Architecture").
 *
 * A cell holds a code point and a *semantic* style (GS_*, never a colour) plus
 * a palette index used by the device and group styles. Code points are either
 * plain text (one cell per code point: double-width characters are not
 * supported) or abstract symbols in Unicode plane 15 (GRID_SYM_BASE and up):
 * line pieces stored as a mask of the four directions they connect, arrows,
 * blocks, shades, sparkline levels. Symbols become real glyphs only when the
 * grid is shown: grid_glyph() maps them to Unicode box drawing and blocks or to
 * plain ASCII, so one layout serves a UTF-8 terminal, an ASCII terminal and
 * ASCII golden files. Lines drawn across each other merge their masks
 * (a horizontal meeting a vertical becomes a junction or a crossing).
 *
 * Every drawing function clips to the grid and to its clip rectangle, so
 * callers may draw at any coordinates, including negative ones. The grid owns
 * its cell array; grid_free() releases it. Nothing here allocates except
 * grid_new(), grid_resize() and grid_to_text(). */
#ifndef PLACETO_GRID_H
#define PLACETO_GRID_H

#include <stddef.h>
#include <stdint.h>

/* Semantic styles. The explorer maps each to colours/attributes in one theme
 * table; layouts only say what a cell *is*. */
typedef enum GridStyle {
    GS_NONE = 0,   /* plain text on the default background */
    GS_DIM,        /* secondary text: hints, units, inactive items */
    GS_BORDER,     /* pane borders and separators */
    GS_TITLE,      /* pane titles, headings */
    GS_LABEL,      /* names next to things: lane names, bar labels */
    GS_AXIS,       /* time axis line, ticks and tick labels */
    GS_NODE,       /* a graph node with no device */
    GS_DEVICE,     /* a node/op on device `device` (the cell's palette index) */
    GS_GROUP,      /* an op coloured by its group (`device` = group mod 256) */
    GS_CURRENT,    /* the node the agent is deciding on */
    GS_SELECTED,   /* the node/group the user selected */
    GS_ANCESTOR,   /* ancestors of the current node */
    GS_DESCENDANT, /* descendants of the current node */
    GS_PARALLEL,   /* nodes parallel to the current node */
    GS_EDGE,       /* graph edges and arrow heads */
    GS_EDGE_HI,    /* edges into or out of the current node */
    GS_CRITICAL,   /* the critical path: edges, ops, transfers, marks */
    GS_IDLE,       /* idle time of a device */
    GS_TRANSFER,   /* transfers on a device's outgoing bus */
    GS_BAR,        /* the filled part of a bar */
    GS_BAR_EMPTY,  /* the empty part of a bar */
    GS_BAR_OVER,   /* a bar over its capacity (out of memory) */
    GS_SPARK,      /* sparkline glyphs */
    GS_STATUS,     /* the status line */
    GS_KEY,        /* key names in help and hints */
    GS_CURSOR,     /* a cursor or the highlighted row of a list */
    GS_GOOD,       /* an improvement */
    GS_WARN,       /* a warning */
    GS_ERROR,      /* an error */
    GS_SERIES,     /* a chart's series, in a colour of its own (`device` = the series) */
    GS_COUNT
} GridStyle;

/* A pen packs a style and a palette index: GRID_PEN(GS_DEVICE, 3). Plain
 * styles can be passed as pens directly (their palette index is 0). */
#define GRID_PEN(style, index) ((int)(style) | (((int)(index) & 0xFF) << 8))
#define GRID_PEN_STYLE(pen) ((pen) & 0xFF)
#define GRID_PEN_INDEX(pen) (((pen) >> 8) & 0xFF)

typedef struct GridCell {
    uint32_t ch;    /* a code point or a GRID_* symbol */
    uint8_t style;  /* GridStyle */
    uint8_t device; /* palette index for GS_DEVICE / GS_GROUP, else 0 */
} GridCell;

typedef struct GridRect {
    int x, y, w, h;
} GridRect;

typedef struct Grid {
    int w, h;
    GridCell *cells; /* row-major, w * h */
    GridRect clip;   /* drawing is limited to this rectangle (always inside the grid) */
    size_t cap;      /* allocated cells */
} Grid;

/* Line directions; a line symbol is GRID_LINE(mask). */
enum { GRID_N = 1, GRID_E = 2, GRID_S = 4, GRID_W = 8 };

#define GRID_SYM_BASE 0xF0000u
#define GRID_LINE(mask) (GRID_SYM_BASE + (uint32_t)(mask))
#define GRID_IS_LINE(ch) ((ch) > GRID_SYM_BASE && (ch) < GRID_SYM_BASE + 16u)

/* Other symbols. Levels run 1..8 (eighths). */
enum {
    GRID_ARROW_UP = GRID_SYM_BASE + 16,
    GRID_ARROW_DOWN,
    GRID_ARROW_LEFT,
    GRID_ARROW_RIGHT,
    GRID_DOT,        /* a node in the compact graph view */
    GRID_DOT_MARKED, /* the current/selected node in the compact view */
    GRID_FULL,       /* a full block */
    GRID_SHADE,      /* light shade: idle time, the empty part of a bar */
    GRID_ELLIPSIS,   /* marks truncated text */
    GRID_BLOCK_L,    /* left end of an op block in a timeline */
    GRID_BLOCK_R,    /* right end of an op block */
    GRID_MARK,       /* critical-path mark under a timeline op */
    GRID_DOUBLE,     /* double horizontal line: a critical transfer */
    GRID_SPARK_0,    /* GRID_SPARK_0 + k, k = 1..8: sparkline level k */
    GRID_BAR_0 = GRID_SPARK_0 + 9 /* GRID_BAR_0 + k, k = 1..8: k eighths of a cell */
};
#define GRID_SPARK(level) ((uint32_t)GRID_SPARK_0 + (uint32_t)(level))
#define GRID_BAR(eighths) ((uint32_t)GRID_BAR_0 + (uint32_t)(eighths))

typedef enum GridGlyphs {
    GRID_UNICODE = 0, /* box drawing, blocks, arrows, µ */
    GRID_ASCII = 1    /* printable ASCII only: - | + v # . and friends */
} GridGlyphs;

/* A cleared w x h grid (w, h >= 0). */
Grid *grid_new(int w, int h);
void grid_free(Grid *g);
/* Blank cells (space, GS_NONE) everywhere; the clip becomes the whole grid. */
void grid_clear(Grid *g);
/* New size, cleared. */
void grid_resize(Grid *g, int w, int h);
/* Limits drawing to r intersected with the grid; grid_unclip() lifts it. */
void grid_clip(Grid *g, GridRect r);
void grid_unclip(Grid *g);

/* The cell at (x, y), or NULL outside the grid (the clip does not matter). */
const GridCell *grid_at(const Grid *g, int x, int y);
/* Sets one cell (clipped). */
void grid_put(Grid *g, int x, int y, uint32_t ch, int pen);
/* ORs a line mask into a cell: a line cell keeps its other directions, any
 * other cell is replaced. The pen's style wins. */
void grid_line(Grid *g, int x, int y, int mask, int pen);
/* Lines of len cells; their ends connect only inwards, so a line drawn up
 * to another one makes a T junction there rather than a crossing. */
void grid_hline(Grid *g, int x, int y, int len, int pen);
void grid_vline(Grid *g, int x, int y, int len, int pen);
/* A rectangle outline with merged corners (w, h >= 2 for a proper box). */
void grid_box(Grid *g, GridRect r, int pen);
void grid_fill(Grid *g, GridRect r, uint32_t ch, int pen);

/* Writes UTF-8 text from (x, y) rightwards, one cell per code point, clipped;
 * invalid bytes become U+FFFD. Returns the number of code points consumed. */
int grid_text(Grid *g, int x, int y, const char *utf8, int pen);
/* The same within max cells: longer text is cut and ends with
 * GRID_ELLIPSIS. Returns the cells used (<= max). */
int grid_text_fit(Grid *g, int x, int y, const char *utf8, int max, int pen);
/* The same, but a long text keeps its start and its end around the
 * ellipsis ("layer~conv1"): better for hierarchical names. */
int grid_text_fit_mid(Grid *g, int x, int y, const char *utf8, int max, int pen);
/* Code points in UTF-8 text (the cells grid_text would use). */
int grid_text_width(const char *utf8);

/* Decodes one code point and advances *s; U+FFFD on invalid input. */
uint32_t grid_utf8_next(const char **s);
/* Encodes cp into out (4 bytes); returns the byte count. */
int grid_utf8_put(char out[4], uint32_t cp);

/* The code point shown for ch in a glyph set: symbols become box drawing or
 * ASCII; in ASCII any other non-ASCII code point becomes '?' (µ becomes u). */
uint32_t grid_glyph(uint32_t ch, GridGlyphs glyphs);

/* The grid as text: one line per row, each ending in '\n', trailing spaces
 * trimmed, UTF-8 (GRID_UNICODE) or ASCII. The caller frees the string. */
char *grid_to_text(const Grid *g, GridGlyphs glyphs);

#endif
