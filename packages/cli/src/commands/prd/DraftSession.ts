import { formatJsonPath, type Prd, type Problem, type ToolDescriptor, type ToolResult } from "@meshflow/core";
import type { PrdCheck } from "./checkPrd.js";

/** The qualified name of the tool a model submits its draft with. */
const SUBMIT_TOOL = "prd__submit_draft";

/** The tool a drafting model is offered beside the finishing tools. */
export const SUBMIT_DESCRIPTOR: ToolDescriptor = {
  qualifiedName: SUBMIT_TOOL,
  server: "prd",
  name: "submit_draft",
  description:
    "Submit the whole PRD draft. It is checked (schema, steps and their specialists, MCP server names); the answer is either accepted or the list of problems to fix.",
  inputSchema: {
    type: "object",
    properties: {
      prd: {
        type: "object",
        description: 'The PRD: {"project", "branchName", "description", "userStories": [...]}.',
      },
    },
    required: ["prd"],
  },
  annotations: { readOnlyHint: true },
};

const text = (value: string, isError = false): ToolResult => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError: true } : {}),
});

/**
 * One drafting conversation: checks each draft the model submits. The first invalid draft is answered
 * with its problems (the model repairs it once); a second invalid one refuses the drafting, aborting
 * `abort` so the model gets no further turn. A valid draft is kept as {@link accepted}.
 */
export class DraftSession {
  accepted: Prd | undefined;
  /** The problems of the last invalid draft (a refusal lists them). */
  problems: Problem[] = [];
  /** The warnings of the accepted draft. */
  warnings: Problem[] = [];
  refused = false;
  #invalid = 0;

  constructor(
    readonly check: (value: unknown) => PrdCheck,
    /** Server names `mcpTools` may use (configured ones). */
    readonly knownServers: ReadonlySet<string>,
    readonly abort: AbortController,
    readonly file: string,
  ) {}

  /** `io.call` of the drafting model: only {@link SUBMIT_TOOL} exists. */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (name !== SUBMIT_TOOL)
      return { ...text(`unknown tool "${name}": submit the PRD with ${SUBMIT_TOOL}`, true), code: "tool_not_found" };
    if (this.accepted) return text("a draft was accepted already: finish with step_pass");
    const value = typeof args.prd === "object" && args.prd !== null ? args.prd : args;
    const checked = this.check(value);
    const problems = [...checked.problems, ...this.#unknownServers(value)];
    if (checked.prd && !problems.some((p) => p.severity === "error")) {
      this.accepted = checked.prd;
      this.warnings = problems;
      return text(`accepted: ${checked.prd.userStories.length} stories. Finish now with step_pass.`);
    }
    this.problems = problems.filter((p) => p.severity === "error");
    this.#invalid += 1;
    const list = this.problems.map((p) => `- ${p.path}: ${p.message}`).join("\n");
    if (this.#invalid >= 2) {
      this.refused = true;
      this.abort.abort();
      return text(`refused: the repaired draft still has ${this.problems.length} problem(s):\n${list}`, true);
    }
    return text(
      `not accepted: ${this.problems.length} problem(s). Fix every one and submit the whole PRD again (one more try):\n${list}`,
      true,
    );
  }

  /** Without an MCP config no server name is known: each one named is an error. */
  #unknownServers(value: unknown): Problem[] {
    if (this.knownServers.size) return [];
    const stories = (value as { userStories?: unknown }).userStories;
    if (!Array.isArray(stories)) return [];
    const problems: Problem[] = [];
    stories.forEach((story: { mcpTools?: unknown; mavenSteps?: unknown }, index) => {
      const tools = story?.mcpTools;
      if (typeof tools !== "object" || tools === null) return;
      for (const [key, servers] of Object.entries(tools))
        if (Array.isArray(servers) && servers.length)
          problems.push({
            file: this.file,
            path: formatJsonPath(["userStories", index, "mcpTools", key]),
            message: `no MCP config was found, so no server can be named (found ${JSON.stringify(servers)}): leave mcpTools empty`,
            severity: "error",
          });
    });
    return problems;
  }
}
