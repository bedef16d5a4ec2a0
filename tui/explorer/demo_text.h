/* demo_text: the tour's captions (demo.c's stage table names them), each
 * built from what its stage shows: counts, moves, the baselines' rows, the
 * race's lanes, so that a caption never claims what the screen does not
 * show. */
#ifndef PLACETO_DEMO_TEXT_H
#define PLACETO_DEMO_TEXT_H

#include <stddef.h>

#include "app.h"

/* The rows of the baselines table tour_best_row chooses among. */
enum { TOUR_ROWS_HEURISTIC = 1, TOUR_ROWS_SEARCH = 2, TOUR_ROWS_LEARNED = 4, TOUR_ROWS_ALL = 7 };
/* The fastest row of those kinds that fits in memory, or NULL. */
const PlaceRun *tour_best_row(const App *a, unsigned kinds);

void tour_text_baselines(const App *a, char *buf, size_t n);
void tour_text_end(const App *a, char *buf, size_t n);
void tour_text_gdp(const App *a, char *buf, size_t n);
void tour_text_groups(const App *a, char *buf, size_t n);
void tour_text_hsdag(const App *a, char *buf, size_t n);
void tour_text_learned(const App *a, char *buf, size_t n);
void tour_text_message_passing(const App *a, char *buf, size_t n);
void tour_text_override(const App *a, char *buf, size_t n);
void tour_text_paper(const App *a, char *buf, size_t n);
void tour_text_problem(const App *a, char *buf, size_t n);
void tour_text_probs(const App *a, char *buf, size_t n);
void tour_text_race(const App *a, char *buf, size_t n);
void tour_text_reward(const App *a, char *buf, size_t n);
void tour_text_rnn(const App *a, char *buf, size_t n);
void tour_text_sets(const App *a, char *buf, size_t n);
void tour_text_simulator(const App *a, char *buf, size_t n);
void tour_text_state(const App *a, char *buf, size_t n);
void tour_text_zero_shot(const App *a, char *buf, size_t n);

#endif
