import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURE_AGENTS, flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { FLOW_BIN, flowEnv } from "../helpers/runFlow.js";

function writes(dir: string, ...names: string[]) {
  return names.map((name) => ({
    tool: "filesystem__write_file",
    args: { path: join(dir, name), content: `${name}\n` },
  }));
}

/** Runs `flow <args>` on a pseudo-terminal (util-linux `script`), answering each question in turn. */
function flowOnTerminal(cwd: string, args: string[], answers: string[]) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const command = [process.execPath, FLOW_BIN, ...args].map((a) => `'${a}'`).join(" ");
    const child = spawn("script", ["-qefc", command, "/dev/null"], {
      cwd,
      env: flowEnv({ FLOW_AGENTS: FIXTURE_AGENTS, CI: undefined }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let asked = 0;
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString("utf8");
      const questions = output.split("run it? [y/N]").length - 1;
      while (asked < questions) child.stdin.write(`${answers[asked++] ?? "n"}\r`);
    });
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => {
      child.stdin.destroy();
      resolve({ code, output });
    });
  });
}

describe("flow run --confirm-destructive", () => {
  it("off a terminal refuses every destructive call (confirmation_required), marked destructive; without the flag they run, marked", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: writes(ws.files, "a.txt") } }]);
    const refused = await ws.flow(["run", "prd.json", "--json", "--confirm-destructive"]);
    expect(refused.code).toBe(1);
    const events = parseEvents(refused.stdout);
    expect(events.filter((e) => e.type === "tool.called")).toEqual([]);
    expect(events.find((e) => e.type === "tool.refused")).toMatchObject({
      tool: "filesystem__write_file",
      code: "confirmation_required",
      destructive: true,
    });
    expect(events.find((e) => e.type === "step.finished")).toMatchObject({ status: "blocked" });
    expect(existsSync(join(ws.files, "a.txt"))).toBe(false);
    const runId = events[0]?.runId ?? "";
    const evidence = JSON.parse(readFileSync(join(ws.dir, ".flow/runs", runId, "evidence.ndjson"), "utf8").trim());
    expect(evidence.steps[0].calls[0]).toMatchObject({ code: "confirmation_required", destructive: true });

    const ran = await ws.flow(["run", "prd.json", "--json"]);
    expect(ran.code).toBe(0);
    expect(parseEvents(ran.stdout).find((e) => e.type === "tool.called")).toMatchObject({ destructive: true });
    expect(ws.read("a.txt")).toBe("a.txt\n");
  });

  it("on a terminal asks before each destructive call: y runs it, n declines it and blocks the step", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["filesystem"] }, calls: { step1: writes(ws.files, "yes.txt", "no.txt") } }]);
    const { code, output } = await flowOnTerminal(ws.dir, ["run", "prd.json", "--confirm-destructive"], ["y", "n"]);
    expect(output).toContain("US-001 step 1: development-agent calls filesystem__write_file (destructive)");
    expect(output.split("run it? [y/N]")).toHaveLength(3);
    expect(code).toBe(1);
    expect(ws.read("yes.txt")).toBe("yes.txt\n");
    expect(existsSync(join(ws.files, "no.txt"))).toBe(false);
    expect(output).toContain('declined at the prompt (answer "n")');
  });
});
