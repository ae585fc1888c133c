// Child process: the raw MCP SDK client spawns server-everything over stdio and makes one `echo`
// call — the baseline of a 1-story `flow run`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [serverEntry] = process.argv.slice(2);
if (!serverEntry) throw new Error("usage: rawOneCall <server-everything entry>");
const client = new Client({ name: "bench-raw", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverEntry], stderr: "ignore" }));
await client.callTool({ name: "echo", arguments: { message: "one" } });
await client.close();
