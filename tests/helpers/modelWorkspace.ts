import { join } from "node:path";
import type { ScriptedModelServer } from "@meshflow/model/testing";
import { type FlowWorkspace, flowWorkspace } from "./flowWorkspace.js";
import { ROOT } from "./runFlow.js";

/**
 * A workspace with the shipped specialists and skills whose `flow` thinks through `server` with an
 * OpenAI key (`OPENAI_API_KEY=key`), every other model variable of the environment cleared.
 */
export function modelWorkspace(server: ScriptedModelServer, key: string): FlowWorkspace {
  return flowWorkspace({
    agents: join(ROOT, "agents"),
    env: {
      FLOW_SKILLS: join(ROOT, "skills"),
      FLOW_MODEL_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: key,
      FLOW_MODEL_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      FLOW_MODEL: undefined,
    },
  });
}
