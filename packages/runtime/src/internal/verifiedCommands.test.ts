import { describe, expect, it } from "vitest";
import { reusableVerifies, type VerifiedCommand } from "./verifiedCommands.js";

const v = (index: number, seq: number): VerifiedCommand => ({
  index,
  name: `v${index}`,
  seq,
  key: `r/US-1/step5/${seq}`,
  tool: "workspace__run_command",
});

describe("reusableVerifies", () => {
  it("reuses commands verified with nothing written after them", () => {
    const steps = [
      { step: 1, status: "passed", writes: [{ seq: 1, endedAt: 1 }] },
      {
        step: 5,
        status: "passed",
        verified: [v(0, 2), v(1, 3)],
        writes: [
          { seq: 2, endedAt: 2 },
          { seq: 3, endedAt: 3 },
        ],
      },
    ];
    expect([...reusableVerifies(steps).keys()]).toEqual([0, 1]);
  });

  it("counts a consultation that wrote (seq 0, ended when the step had started endedAt calls) like a write of the step", () => {
    // The step verified v0 with call 2, then a consultation wrote and returned after call 2: v0 is stale.
    // v1 was verified by call 3, after the consultation returned: it stands.
    const steps = [{ step: 5, status: "passed", verified: [v(0, 2), v(1, 3)], writes: [{ seq: 0, endedAt: 2 }] }];
    expect([...reusableVerifies(steps).keys()]).toEqual([1]);
  });

  it("does not reuse a command after which the step wrote, or any later step did", () => {
    // seq 3 is a write that ended after the verify call (seq 2) started.
    expect(
      reusableVerifies([{ step: 5, status: "passed", verified: [v(0, 2)], writes: [{ seq: 1, endedAt: 3 }] }]).size,
    ).toBe(0);
    expect(
      reusableVerifies([{ step: 5, status: "passed", verified: [v(0, 2)], writes: [{ seq: 3, endedAt: 3 }] }]).size,
    ).toBe(0);
    expect(
      reusableVerifies([
        { step: 5, status: "passed", verified: [v(0, 1)] },
        { step: 7, status: "passed", writes: [{ seq: 1, endedAt: 1 }] },
      ]).size,
    ).toBe(0);
    // A write that ended before the verify call started does not matter; a read-only later step neither.
    expect(
      reusableVerifies([
        { step: 5, status: "passed", verified: [v(0, 2)], writes: [{ seq: 1, endedAt: 1 }] },
        { step: 8, status: "passed" },
      ]).get(0),
    ).toMatchObject({ step: 5, tool: "workspace__run_command" });
  });
});
