import type { ModelStepIO, ModelTask, RecordedTurn, ToolDescriptor, ToolResult } from "@meshflow/core";
import { parseModelName } from "@meshflow/core";
import { AiSdkChatModel, ModelLoop } from "@meshflow/model";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateText, jsonSchema, stepCountIs, type ToolSet, tool } from "ai";
import { FILESYSTEM, MODEL, STORY, TURNS } from "./economyScript.js";

/** The filesystem server over stdio, with its tools as meshflow describes them. */
export interface FilesystemTools {
  client: Client;
  tools: ToolDescriptor[];
  close(): Promise<void>;
}

/** Starts the filesystem server on `dir` and lists its tools (14). */
export async function filesystemTools(dir: string): Promise<FilesystemTools> {
  const client = new Client({ name: "bench-model-economy", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM, dir], stderr: "ignore" }),
  );
  const { tools } = await client.listTools();
  return {
    client,
    tools: tools.map((t) => ({
      server: "filesystem",
      name: t.name,
      qualifiedName: `filesystem__${t.name}`,
      description: t.description ?? "",
      inputSchema: t.inputSchema as Record<string, unknown>,
      annotations: (t.annotations ?? {}) as ToolDescriptor["annotations"],
    })),
    close: () => client.close(),
  };
}

function task(tools: ToolDescriptor[]): ModelTask {
  return {
    runId: "bench",
    storyId: "US-001",
    step: 7,
    specialist: "development-agent",
    instructions: "You implement user stories with the tools you are given.",
    stepPurpose: "Data layer: implement the story's data, storage and backend logic.",
    story: { id: "US-001", title: "Status field", description: STORY, acceptanceCriteria: [], notes: "" },
    earlier: [],
    tools,
  };
}

/** A step of meshflow's model loop through @ai-sdk/anthropic, its calls going to the filesystem server. */
export function meshflowStep(baseUrl: string, fs: FilesystemTools): () => Promise<void> {
  const loop = new ModelLoop(
    new AiSdkChatModel(parseModelName(`anthropic:${MODEL}`), { baseUrl, apiKey: "k", maxRetries: 0 }),
  );
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    (await fs.client.callTool({ name: name.replace(/^filesystem__/, ""), arguments: args })) as ToolResult;
  return async () => {
    const journal = new Map<number, RecordedTurn>();
    const io: ModelStepIO = {
      call,
      turns: {
        get: async (turn) => journal.get(turn),
        record: async (turn, recorded) => {
          journal.set(turn, recorded);
        },
      },
      onTurn: () => {},
      signal: new AbortController().signal,
    };
    const claim = await loop.run(task(fs.tools), io);
    if (claim.status !== "passed" || claim.usage.turns !== TURNS)
      throw new Error(`meshflow step: ${claim.summary} (${claim.usage.turns} turns)`);
  };
}

/** The same step as a raw AI SDK `generateText` loop: the tools' `execute` call the filesystem server. */
export async function rawStep(baseUrl: string, fs: FilesystemTools): Promise<() => Promise<void>> {
  const { createAnthropic } = await import("@ai-sdk/anthropic");
  const model = createAnthropic({ baseURL: baseUrl, apiKey: "k" })(MODEL);
  const tools: ToolSet = {};
  for (const t of fs.tools)
    tools[t.qualifiedName] = tool({
      description: t.description ?? "",
      inputSchema: jsonSchema(t.inputSchema as never),
      execute: async (args: Record<string, unknown>) =>
        JSON.stringify((await fs.client.callTool({ name: t.name, arguments: args })).content),
    });
  return async () => {
    const result = await generateText({
      model,
      system: "You implement user stories with the tools you are given.",
      prompt: STORY,
      tools,
      stopWhen: stepCountIs(TURNS),
      maxRetries: 0,
    });
    if (result.steps.length !== TURNS) throw new Error(`raw step: ${result.steps.length} turns`);
  };
}
