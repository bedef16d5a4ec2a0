/* agents: the registry, the one list of the learned placers (agent.h).
 * Adding a placer is its folder core/agents/NAME/ (one file defining its
 * AgentKind) and one line here; the commands, `train --help` and the
 * explorer find it through agent_find and agent_at. */
#include "agent.h"

extern const AgentKind agent_placeto, agent_rnn, agent_gdp, agent_hsdag, agent_lsearch, agent_lsched;

const AgentKind *const agent_list[] = {&agent_placeto, &agent_rnn, &agent_gdp, &agent_hsdag, &agent_lsearch, &agent_lsched};
const int agent_list_count = (int)(sizeof agent_list / sizeof agent_list[0]);
