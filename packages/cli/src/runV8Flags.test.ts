import { describe, expect, it } from "vitest";
import { RUN_INTERRUPT_BUDGET, runV8Flags } from "./runV8Flags.js";

describe("runV8Flags", () => {
  it("keeps the heap small and optimizes sooner by default", () => {
    expect(runV8Flags({}, [])).toEqual(["--optimize-for-size", `--interrupt-budget=${RUN_INTERRUPT_BUDGET}`]);
  });

  it("leaves V8's heap growth alone with FLOW_MEMORY=fast", () => {
    expect(runV8Flags({ FLOW_MEMORY: "fast" }, [])).toEqual([`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`]);
  });

  it("keeps an interrupt budget given on node's command line", () => {
    expect(runV8Flags({}, ["--interrupt_budget=1000"])).toEqual(["--optimize-for-size"]);
    expect(runV8Flags({}, ["--interrupt-budget-factor-for-feedback-allocation=8"])).toContain(
      `--interrupt-budget=${RUN_INTERRUPT_BUDGET}`,
    );
  });

  it("sets FLOW_V8_FLAGS last, so they win", () => {
    expect(runV8Flags({ FLOW_V8_FLAGS: " --interrupt-budget=67584  --max-lazy " }, [])).toEqual([
      "--optimize-for-size",
      `--interrupt-budget=${RUN_INTERRUPT_BUDGET}`,
      "--interrupt-budget=67584",
      "--max-lazy",
    ]);
    expect(() => runV8Flags({ FLOW_V8_FLAGS: "--max-lazy interrupt-budget=1" }, [])).toThrow(
      'FLOW_V8_FLAGS: "interrupt-budget=1" is not a V8 flag (they start with --)',
    );
  });
});
