import { linkSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

describe("the PRD lock is the file's, whatever its name", () => {
  // Regression: the lock was named after the PRD's path, so `flow run` of a hard link to a PRD that a
  // run held took a lock of its own and ran every story's non-idempotent call a second time. Root cause:
  // two names of one file are one PRD; the lock is now also keyed by the file's device and inode.
  it("flow run of a hard link to a PRD being run exits 1 with prd_busy; the call runs once", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [{ tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "once", waitFor: "release" } }],
        },
      },
    ]);
    linkSync(ws.prd, join(ws.dir, "same.json"));
    const first = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "first"]);
    await first.next((e) => e.type === "run.started");
    // The first run is in its step (it waits for the release file): the lock is held.
    const second = await ws.flow(["run", "same.json", "--json", "--run-id", "second"]);
    expect(second.code, second.stderr).toBe(1);
    const error = second.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { error?: { code: string; message: string } })
      .find((e) => e.error)?.error;
    expect(error?.code).toBe("prd_busy");
    expect(error?.message).toContain(`run first (process ${first.child.pid})`);
    expect(error?.message).toContain("same.json");
    writeFileSync(join(ws.files, "release"), "");
    expect(await first.exit).toBe(0);
    expect(ws.read("log.txt")).toBe("once\n");
    expect(readFileSync(ws.prd, "utf8")).toContain('"passes": true');
  });
});
