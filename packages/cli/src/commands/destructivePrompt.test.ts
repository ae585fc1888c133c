import { PassThrough } from "node:stream";
import type { DestructiveCall } from "@meshflow/runtime/host";
import { describe, expect, it } from "vitest";
import { destructivePrompt } from "./destructivePrompt.js";

const call = (n: number): DestructiveCall => ({
  runId: "r",
  storyId: "US-001",
  step: 2,
  specialist: "development-agent",
  tool: "filesystem__write_file",
  args: { path: `src/f${n}.js`, content: "x".repeat(400) },
  key: `r/US-001/step2/${n}`,
});

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (d: Buffer) => {
    written += d.toString("utf8");
  });
  /** Resolves once the question number `n` (1-based) is on the terminal. */
  const asked = async (n: number) => {
    while (written.split("run it? [y/N]").length - 1 < n) await new Promise((r) => setTimeout(r, 5));
  };
  return { input, output, asked, written: () => written };
}

describe("destructivePrompt", () => {
  it("refuses every destructive call off a terminal, without asking", async () => {
    const t = terminal();
    const confirm = destructivePrompt({ input: t.input, output: t.output, isTTY: false });
    await expect(confirm(call(1))).resolves.toEqual({
      allow: false,
      code: "confirmation_required",
      reason: "--confirm-destructive asks on a terminal, and this run has none to ask on (stdin is not a TTY)",
    });
    expect(t.written()).toBe("");
  });

  it("asks on a terminal: y runs the call, anything else declines it; the view pauses around the question", async () => {
    const t = terminal();
    const seen: string[] = [];
    const confirm = destructivePrompt(
      { input: t.input, output: t.output, isTTY: true },
      { before: () => seen.push("pause"), after: () => seen.push("resume") },
    );
    const first = confirm(call(1));
    await t.asked(1);
    expect(t.written()).toContain("US-001 step 2: development-agent calls filesystem__write_file (destructive)");
    expect(t.written()).toContain('arguments: {"path":"src/f1.js","content":"xxx');
    expect(t.written()).toContain("x…\n  run it? [y/N] ");
    t.input.write("y\n");
    await expect(first).resolves.toEqual({ allow: true });
    const second = confirm(call(2));
    await t.asked(2);
    t.input.write("no thanks\n");
    await expect(second).resolves.toEqual({
      allow: false,
      code: "confirmation_declined",
      reason: 'declined at the prompt (answer "no thanks")',
    });
    expect(seen).toEqual(["pause", "resume", "pause", "resume"]);
  });

  it("asks one question at a time when calls arrive together, and declines when the input closes", async () => {
    const t = terminal();
    const confirm = destructivePrompt({ input: t.input, output: t.output, isTTY: true });
    const a = confirm(call(1));
    const b = confirm(call(2));
    await t.asked(1);
    expect(t.written()).not.toContain("src/f2.js");
    t.input.write("y\n");
    await expect(a).resolves.toEqual({ allow: true });
    await t.asked(2);
    t.input.end();
    await expect(b).resolves.toMatchObject({
      allow: false,
      code: "confirmation_declined",
      reason: "no answer (input closed)",
    });
  });
});
