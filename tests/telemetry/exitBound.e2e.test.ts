import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

// `flow run` with its OTLP endpoint down. The exporter retries a refused or silent endpoint for up to
// its own timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default) on timers that kept the process alive:
// the process exited about 9 s after its run ended. The flush at exit is now bounded (1 s,
// FLOW_TRACES_FLUSH_TIMEOUT_MS), and then flow ends the process itself. No timing is asserted: the
// exporter's own timeout is set to 10 minutes, so only the bound can end these runs within the test's
// time, and the warning says which bound it was.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback port nothing listens on any more (connections are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A loopback endpoint that accepts connections and never answers. */
async function silentEndpoint(): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as { port: number }).port;
}

function tracedRun(port: number, env: Record<string, string> = {}) {
  const ws = flowWorkspace();
  ws.writePrd([
    {
      mcpTools: { step1: ["everything"] },
      calls: { step1: [{ tool: "everything__echo", args: { message: "traced" } }] },
    },
  ]);
  return ws.flow(["run", "prd.json", "--json"], {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_TIMEOUT: "600000",
    ...env,
  });
}

describe("flow run with its OTLP endpoint down", () => {
  it("gives the spans up at the 1 s flush bound when the endpoint refuses connections, its output whole", async () => {
    const run = await tracedRun(await closedPort());
    expect(run.stderr).toContain("flow: warning: traces were not exported within 1000 ms (http://127.0.0.1:");
    expect(run.code).toBe(0);
    // The process ended itself only after what it printed was written: the last event is there.
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.at(-1)?.type).toBe("run.finished");
  }, 120_000);

  it("ends at the FLOW_TRACES_FLUSH_TIMEOUT_MS bound when the endpoint never answers", async () => {
    const run = await tracedRun(await silentEndpoint(), { FLOW_TRACES_FLUSH_TIMEOUT_MS: "300" });
    expect(run.stderr).toContain("flow: warning: traces were not exported within 300 ms");
    expect(run.code).toBe(0);
  }, 120_000);
});
