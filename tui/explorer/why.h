/* why: the "why this device" panel (the dialog DLG_WHY, key w) for the
 * step at the cursor, in a live episode, after an undo or in a replay: the
 * features of the current group and of the groups around it as the policy
 * sees them, each named by its relation to the current group (parent,
 * child, ancestor, descendant, parallel); every device with the policy's
 * probability and the runtime the placement would have with the group
 * there (one incremental simulation each), the chosen and the best device
 * marked; Placeto's pooling sets with their legend and counts; and message
 * passing round by round (space), the groups reached after k rounds lit in
 * the graph. Uniform probabilities or attention (every weight within 5 %
 * of the mean), or attention nearly so (WHY_NEAR_ENTROPY), are called
 * uniform instead of being shown as reasons. */
#ifndef PLACETO_WHY_H
#define PLACETO_WHY_H

#include <stdint.h>

#include "app.h"
#include "grid.h"

/* Every weight within this share of their mean: "uniform". */
#define WHY_UNIFORM_TOL 0.05
/* Attention over at least WHY_NEAR_MIN_GROUPS groups whose entropy is at
 * least this share of the uniform's: "nearly uniform" (the RNN placer's,
 * 0.99 to 1.6 times 1/N on ResNet-18); its largest weights are not shown as
 * reasons. */
#define WHY_NEAR_ENTROPY 0.98
#define WHY_NEAR_MIN_GROUPS 10

/* Opens the panel on the current step (round 0: the pooling sets). */
void app_why_open(App *a);
/* While the panel is open: the runtimes per device of the current step in
 * the cache (AppCache.why_rt), simulated when the step (the group or the
 * placement) differs from the one they are of; nothing otherwise. The
 * model calls it on opening the panel and on every change of the episode
 * (app_cache_update), so that a frame, a repaint or a resize simulates
 * nothing. */
void app_why_update(App *a);
/* The dialog's halves (dialogs.c's table). */
int why_key(App *a, int key);
int why_draw(const App *a, Grid *g);
/* An actor's attention at the current step: 1 uniform (every weight
 * within WHY_UNIFORM_TOL of the mean), 2 nearly uniform (WHY_NEAR_ENTROPY),
 * 0 otherwise or without attention weights (Placeto, a set_why kind). The
 * Policy pane then says so and dims the list instead of showing it as the
 * why. */
int why_attention_flat(const App *a);
/* While the panel is open: the graph's style of every group (n_groups
 * entries) for the round shown (the sets at round 0, the groups reached
 * after k rounds else). 1 when it set them, 0 when the panel is closed. */
int why_graph_style(const App *a, uint8_t *style);

#endif
