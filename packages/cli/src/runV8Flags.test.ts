import { describe, expect, it } from "vitest";
import { RUN_INTERRUPT_BUDGET, runV8Flags } from "./runV8Flags.js";

describe("runV8Flags", () => {
  it("keeps the heap small and optimizes sooner by default", () => {
    expect(runV8Flags({}, [])).toEqual(["--optimize-for-size", `--interrupt-budget=${RUN_INTERRUPT_BUDGET}`]);
  });

  it("leaves V8's heap growth alone with FLOW_MEMORY=fast", () => {
    expect(runV8Flags({ FLOW_MEMORY: "fast" }, [])).toEqual([`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`]);
  });

  it("keeps an interrupt budget given to node, in NODE_OPTIONS or on its command line", () => {
    expect(runV8Flags({ NODE_OPTIONS: "--max-old-space-size=512 --interrupt-budget=90000" }, [])).toEqual([
      "--optimize-for-size",
    ]);
    expect(runV8Flags({}, ["--interrupt_budget=1000"])).toEqual(["--optimize-for-size"]);
    expect(runV8Flags({ NODE_OPTIONS: "--interrupt-budget-factor-for-feedback-allocation=8" }, [])).toContain(
      `--interrupt-budget=${RUN_INTERRUPT_BUDGET}`,
    );
  });
});
