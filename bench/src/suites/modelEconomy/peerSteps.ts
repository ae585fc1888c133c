import { FILESYSTEM, MODEL, STORY, TURNS } from "./economyScript.js";

/** A peer's step, ready to run, and what it holds open. */
export interface PeerStep {
  run(): Promise<void>;
  close(): Promise<void>;
}

const INSTRUCTIONS = "You implement user stories with the tools you are given.";

/**
 * LangGraph.js's `createReactAgent` with `ChatAnthropic` at the scripted server, its tools the
 * filesystem server's through `@langchain/mcp-adapters` (as a LangGraph user would wire them).
 */
export async function langgraphStep(url: string, dir: string): Promise<PeerStep> {
  const [{ createReactAgent }, { ChatAnthropic }, { MultiServerMCPClient }] = await Promise.all([
    import("@langchain/langgraph/prebuilt"),
    import("@langchain/anthropic"),
    import("@langchain/mcp-adapters"),
  ]);
  const mcp = new MultiServerMCPClient({
    mcpServers: {
      filesystem: { transport: "stdio", command: process.execPath, args: [FILESYSTEM, dir], stderr: "ignore" },
    },
  });
  const tools = await mcp.getTools();
  const llm = new ChatAnthropic({ model: MODEL, apiKey: "k", anthropicApiUrl: url, maxRetries: 0 });
  const agent = createReactAgent({ llm, tools, prompt: INSTRUCTIONS });
  return {
    async run() {
      const out = await agent.invoke({ messages: [{ role: "user", content: STORY }] }, { recursionLimit: 4 * TURNS });
      const turns = out.messages.filter((m) => m.getType() === "ai").length;
      if (turns !== TURNS) throw new Error(`LangGraph step: ${turns} turns`);
    },
    close: () => mcp.close(),
  };
}

/** A Mastra `Agent` with `@ai-sdk/anthropic` at the scripted server, its tools the filesystem server's through `@mastra/mcp`. */
export async function mastraStep(baseUrl: string, dir: string): Promise<PeerStep> {
  const [{ Agent }, { MCPClient }, { createAnthropic }] = await Promise.all([
    import("@mastra/core/agent"),
    import("@mastra/mcp"),
    import("@ai-sdk/anthropic"),
  ]);
  const mcp = new MCPClient({
    servers: { filesystem: { command: process.execPath, args: [FILESYSTEM, dir], stderr: "ignore" } },
  });
  const tools = await mcp.listTools();
  const agent = new Agent({
    id: "development-agent",
    name: "development-agent",
    instructions: INSTRUCTIONS,
    model: createAnthropic({ baseURL: baseUrl, apiKey: "k" })(MODEL),
    tools,
  });
  return {
    async run() {
      const out = await agent.generate(STORY, { maxSteps: TURNS });
      if (out.steps.length !== TURNS) throw new Error(`Mastra step: ${out.steps.length} turns`);
    },
    close: () => mcp.disconnect(),
  };
}
