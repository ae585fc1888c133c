// Child process: the raw MCP SDK client — one Client over stdio to server-everything making a PRD's
// scripted calls in a loop, nothing else: the limit a whole `flow run` over the same calls aims at.
// Prints {calls, ms, maxRssKb} as JSON.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface Story {
  mavenSteps: number[];
  calls: Record<string, Array<{ tool: string; args: Record<string, unknown> }>>;
}

const [prdFile, serverEntry] = process.argv.slice(2);
if (!prdFile || !serverEntry) throw new Error("usage: rawLoop <prd.json> <server-everything entry>");
const start = performance.now();
const stories = (JSON.parse(readFileSync(prdFile, "utf8")) as { userStories: Story[] }).userStories;
const client = new Client({ name: "bench-raw-loop", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverEntry], stderr: "ignore" }));
let calls = 0;
for (const story of stories)
  for (const step of story.mavenSteps)
    for (const call of story.calls[`step${step}`] ?? []) {
      const result = await client.callTool({ name: call.tool.replace(/^everything__/, ""), arguments: call.args });
      if (result.isError) throw new Error(`${call.tool} failed`);
      calls++;
    }
await client.close();
const ms = performance.now() - start;
process.stdout.write(`${JSON.stringify({ calls, ms, maxRssKb: process.resourceUsage().maxRSS })}\n`);
