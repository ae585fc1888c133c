import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { ROOT } from "../helpers/runFlow.js";

/** `{a: {a: … {}}}`, `depth` levels. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 0; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at.a = next;
    at = next;
  }
  return root;
}

describe("tool arguments over the limits", () => {
  it("flow validate names the JSON path of scripted args nested 3,000 deep, and flow run runs nothing", async () => {
    // Regression: such args passed validation and crashed flow run with "Maximum call stack size exceeded".
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["everything"] },
        calls: { step1: [{ tool: "everything__echo", args: { message: "x", deep: nested(3000) } }] },
      },
    ]);
    const before = readFileSync(ws.prd, "utf8");
    const validated = await ws.flow(["validate", "prd.json"]);
    expect(validated.code).toBe(1);
    expect(validated.stdout + validated.stderr).toMatch(
      /\$\.userStories\[0\]\.calls\.step1\[0\]\.args\.deep(\.a)+: nested deeper than 100 levels \(the limit of a PRD\)/,
    );
    const run = await ws.flow(["run", "prd.json"]);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain("Maximum call stack");
    expect(run.stdout + run.stderr).toContain("nested deeper than 100 levels");
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });

  it("flow validate names the JSON path of scripted args nested past their own limit of 64", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["everything"] },
        calls: { step1: [{ tool: "everything__echo", args: { message: "x", deep: nested(80) } }] },
      },
    ]);
    const validated = await ws.flow(["validate", "prd.json"]);
    expect(validated.code).toBe(1);
    expect(validated.stdout + validated.stderr).toMatch(
      /\$\.userStories\[0\]\.calls\.step1\[0\]\.args\.deep(\.a)+: nested deeper than 64 levels/,
    );
  });

  it("flow validate refuses scripted args over the size limit, naming their path", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["everything"] },
        calls: { step1: [{ tool: "everything__echo", args: { message: "x".repeat(1_100_000) } }] },
      },
    ]);
    const validated = await ws.flow(["validate", "prd.json"]);
    expect(validated.code).toBe(1);
    expect(validated.stdout + validated.stderr).toMatch(
      /\$\.userStories\[0\]\.calls\.step1\[0\]\.args: \d+ bytes of JSON, more than 1048576/,
    );
  });

  it("a specialist passing args nested 3,000 deep to ctx.call is refused with invalid_arguments, not a crash", async () => {
    const ws = flowWorkspace();
    const before = ws.writePrd([{ mcpTools: { step1: ["everything"] } }]);
    const run = await ws.flow(["run", "prd.json", "--agents", join(ROOT, "tests/fixtures/agents-deep-args")]);
    expect(run.stdout + run.stderr).not.toContain("Maximum call stack");
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /refused everything__echo: invalid_arguments: .*arguments at \$(\.deep)?(\.a)+: nested deeper than 64 levels/,
    );
    expect(run.stdout).toContain("echo refused: invalid_arguments");
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  });
});
