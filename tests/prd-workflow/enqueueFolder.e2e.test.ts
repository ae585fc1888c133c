import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace, testStories } from "../helpers/flowWorkspace.js";

let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGTERM")));
  workers = [];
});

const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });

describe("flow enqueue <folder>", () => {
  it("queues a PRD only once the PRDs it depends on passed: without --wait it says so, with --wait in waves", async () => {
    const prefix = `enqf-${process.pid}-${Date.now()}:`;
    const url = inject("redisUrl");
    const ws = flowWorkspace();
    const redisArgs = ["--redis", url, "--redis-prefix", prefix];
    mkdirSync(join(ws.dir, "prds"));
    const prd = (name: string, line: string, extra: Record<string, unknown> = {}) =>
      writeFileSync(
        join(ws.dir, "prds", name),
        `${JSON.stringify(
          {
            project: name,
            ...extra,
            userStories: testStories([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append(line)] } }]),
          },
          null,
          2,
        )}\n`,
      );
    // By name prd-a.json comes first, but it depends on prd-b.json.
    prd("prd-a.json", "a", { dependsOn: ["prd-b.json"] });
    prd("prd-b.json", "b");

    const early = await ws.flow(["enqueue", "prds", ...redisArgs, "--json"]);
    expect(early.code, early.stderr).toBe(0);
    expect((JSON.parse(early.stdout) as { runs: Array<{ file: string }> }).runs.map((r) => r.file)).toEqual([
      expect.stringMatching(/prd-b\.json$/),
    ]);
    expect(early.stderr).toContain("prd-a.json not queued: it depends on prd-b.json");

    workers.push(await startFlowWorker(ws, url, ["--redis-prefix", prefix]));
    const waited = await ws.flow(["enqueue", "prds", ...redisArgs, "--wait"]);
    expect(waited.code, waited.stderr + waited.stdout).toBe(0);
    // prd-b's first run (queued above) and the --wait run of the same content are one run; prd-a ran after it.
    const log = existsSync(join(ws.files, "log.txt")) ? readFileSync(join(ws.files, "log.txt"), "utf8") : "";
    expect(log.trim().split("\n").at(-1)).toBe("a");
    for (const name of ["prd-a.json", "prd-b.json"])
      expect(JSON.parse(readFileSync(join(ws.dir, "prds", name), "utf8")).userStories[0].passes).toBe(true);
  }, 90_000);
});
