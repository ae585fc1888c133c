import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { ScriptedModelServer, type ScriptedReply } from "@meshflow/model/testing";
import { type Row, stats } from "../measure.js";
import { type Billed, billed, economyScript, project, serverTime, TURNS } from "./modelEconomy/economyScript.js";
import { filesystemTools, meshflowStep, rawStep } from "./modelEconomy/meshflowSide.js";
import { langgraphStep, mastraStep, type PeerStep } from "./modelEconomy/peerSteps.js";

/** Timed steps per side per round, and paired rounds (alternating which side goes first). */
const STEPS = 3;
const ROUNDS = 5;

const STEP_PASS: ScriptedReply = { toolCalls: [{ name: "step_pass", input: { summary: "read the code" } }] };
const TEXT_DONE: ScriptedReply = { text: "Done: the code is read." };

/** Billed input as input-token equivalents: fresh tokens, cache reads at a tenth, cache writes at 1.25. */
const equivalent = (b: Billed) => b.usd * (1_000_000 / 3);

const tokensRow = (side: string, b: Billed, extra: Partial<Row> = {}): Row => ({
  suite: "model-economy",
  case: `${side}: billed input of a ${TURNS}-turn step (${b.input.toLocaleString("en-US")} in, ${b.cacheRead.toLocaleString("en-US")} cache read, ${b.cacheWrite.toLocaleString("en-US")} cache write)`,
  value: equivalent(b),
  unit: "tok-eq",
  ...extra,
});

/** Own time per turn of `step` on `server`: the step's wall time less the server's, per turn, over STEPS steps. */
async function ownMsPerTurn(server: ScriptedModelServer, step: () => Promise<void>): Promise<number> {
  const before = server.requests.length;
  const start = performance.now();
  for (let i = 0; i < STEPS; i++) await step();
  const wall = performance.now() - start;
  return (wall - serverTime(server.requests.slice(before))) / (STEPS * TURNS);
}

/**
 * `npm run bench -- model-economy`: one 20-turn step reading a project through the filesystem MCP
 * server's 14 tools, on the Anthropic wire of the scripted model server (which models Anthropic's prompt
 * cache), by meshflow's model loop, a LangGraph.js `createReactAgent` and a Mastra `Agent`. What each
 * is billed for its input, priced with the cache, and meshflow's own time per turn against a raw AI SDK
 * `generateText` loop on the same tools (the server's time taken out of both).
 */
export async function modelEconomySuite(): Promise<Row[]> {
  const dir = project();
  const fs = await filesystemTools(dir);
  const servers: ScriptedModelServer[] = [];
  const peers: PeerStep[] = [];
  const serve = async (finish: ScriptedReply) => {
    const server = await ScriptedModelServer.start({ handler: economyScript(dir, finish) });
    servers.push(server);
    return server;
  };
  try {
    const rows: Row[] = [];
    // Tokens: one step per side, each on a server of its own (a cache of its own).
    const meshServer = await serve(STEP_PASS);
    await meshflowStep(meshServer.baseUrl, fs)();
    const mesh = billed(meshServer.requests);
    const peerBills: Array<{ name: string; bill: Billed }> = [];
    for (const [name, make] of [
      ["LangGraph.js createReactAgent", (s: ScriptedModelServer) => langgraphStep(s.url, dir)],
      ["Mastra Agent", (s: ScriptedModelServer) => mastraStep(s.baseUrl, dir)],
    ] as const) {
      const server = await serve(TEXT_DONE);
      try {
        const peer = await make(server);
        peers.push(peer);
        await peer.run();
        peerBills.push({ name, bill: billed(server.requests) });
      } catch (error) {
        rows.push({
          suite: "model-economy",
          case: `${name}: could not run (${(error as Error).message})`,
          value: 0,
          unit: "-",
        });
      }
    }
    const cheaper = peerBills.reduce<(typeof peerBills)[number] | undefined>(
      (best, p) => (!best || p.bill.usd < best.bill.usd ? p : best),
      undefined,
    );
    const ratio = cheaper ? mesh.usd / cheaper.bill.usd : Number.NaN;
    rows.unshift(
      tokensRow("meshflow", mesh, {
        ...(cheaper ? { baseline: { label: cheaper.name, value: equivalent(cheaper.bill) } } : {}),
        goal: `≤ 0.35× the cheaper peer (${ratio.toFixed(2)}×)`,
        pass: ratio <= 0.35,
      }),
      ...peerBills.map((p) => tokensRow(p.name, p.bill)),
    );

    // Time: meshflow's loop against raw generateText, paired rounds, the server's time taken out.
    const loopServer = await serve(STEP_PASS);
    const rawServer = await serve(TEXT_DONE);
    const meshflow = meshflowStep(loopServer.baseUrl, fs);
    const raw = await rawStep(rawServer.baseUrl, fs);
    await meshflow();
    await raw();
    const mine: number[] = [];
    const theirs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const first = r % 2 === 0;
      const a = first ? await ownMsPerTurn(loopServer, meshflow) : 0;
      const b = await ownMsPerTurn(rawServer, raw);
      const m = first ? a : await ownMsPerTurn(loopServer, meshflow);
      mine.push(m);
      theirs.push(b);
      ratios.push(m / b);
    }
    const paired = stats(ratios).p50;
    rows.push(
      {
        suite: "model-economy",
        case: `meshflow own time per turn (${TURNS}-turn step, 14 filesystem tools)`,
        value: stats(mine).p50,
        unit: "ms/turn",
        baseline: { label: "raw AI SDK generateText", value: stats(theirs).p50 },
        goal: `≤ 1.15× (median of ${ROUNDS} paired rounds: ${paired.toFixed(2)}×)`,
        pass: paired <= 1.15,
      },
      {
        suite: "model-economy",
        case: "raw AI SDK generateText own time per turn",
        value: stats(theirs).p50,
        unit: "ms/turn",
      },
    );
    return rows;
  } finally {
    for (const peer of peers) await peer.close().catch(() => undefined);
    for (const server of servers) await server.close();
    await fs.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
