import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

describe("flow resume of a run on the built-in specialists", () => {
  // Regression: a run started without --agents recorded only ./agents, so its resume looked for the
  // specialists there alone — the built-in ones it had run with were gone.
  it("resumes with the specialists and skills the run started with", async () => {
    const ws = flowWorkspace({ env: { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined } });
    ws.writePrd([
      {
        mavenSteps: [7],
        mcpTools: { step7: ["slow"] },
        calls: {
          step7: [
            { tool: "slow__wait_for", args: { file: "release" } },
            { tool: "slow__append_line", args: { file: "log.txt", line: "once" } },
          ],
        },
      },
    ]);
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--run-id", "builtin"]);
    const started = await run.next((e) => e.type === "step.started");
    expect(started).toMatchObject({ specialist: "development-agent" });
    await run.next((e) => e.type === "tool.called");
    run.child.kill("SIGKILL");
    await run.exit;
    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "builtin", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(ws.read("log.txt")).toBe("once\n");
    expect(parseEvents(resumed.stdout).find((e) => e.type === "step.finished")).toMatchObject({ status: "passed" });
  });
});
