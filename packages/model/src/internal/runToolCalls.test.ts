import type { ModelToolCall, ToolResult } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { type CallRunner, runToolCalls } from "./runToolCalls.js";

/** A runtime whose calls say when they start and end; read calls wait until `meet` of them started. */
function runtime(meet = 0) {
  const log: string[] = [];
  let started = 0;
  const waiting: Array<() => void> = [];
  const runner: CallRunner = {
    async call(name, input): Promise<ToolResult> {
      const id = String(input.id);
      log.push(`start ${id}`);
      started += 1;
      if (name.startsWith("r__") && meet > 0) {
        if (started >= meet) for (const wake of waiting.splice(0)) wake();
        else await new Promise<void>((resolve) => waiting.push(resolve));
      }
      // Later calls end first: the results still come back in the model's order.
      await new Promise((resolve) => setTimeout(resolve, 30 - Number(id.slice(1)) * 5));
      log.push(`end ${id}`);
      return { content: [{ type: "text", text: `${name} ${id}` }] };
    },
    qualified: new Map(),
    concurrent: new Set(["r__read"]),
    parallel: 8,
    maxResultChars: 1_000,
  };
  return { runner, log };
}

const call = (name: string, id: string): ModelToolCall => ({ id, name, input: { id } });

describe("runToolCalls", () => {
  it("runs a turn's read calls at once and hands their results back in the model's order", async () => {
    const { runner, log } = runtime(3);
    const turn = await runToolCalls([call("r__read", "r1"), call("r__read", "r2"), call("r__read", "r3")], runner);
    expect(log.slice(0, 3)).toEqual(["start r1", "start r2", "start r3"]);
    expect(turn.results.map((r) => r.text)).toEqual(["r__read r1", "r__read r2", "r__read r3"]);
    expect(turn.records.map((r) => r.isError)).toEqual([false, false, false]);
  });

  it("runs a write alone: the reads before it end first, the reads after it start after it ended", async () => {
    const { runner, log } = runtime();
    const turn = await runToolCalls(
      [call("r__read", "r1"), call("r__read", "r2"), call("w__write", "w3"), call("r__read", "r4")],
      runner,
    );
    const at = (entry: string) => log.indexOf(entry);
    expect(at("start w3")).toBeGreaterThan(Math.max(at("end r1"), at("end r2")));
    expect(at("start r4")).toBeGreaterThan(at("end w3"));
    expect(turn.results.map((r) => r.id)).toEqual(["r1", "r2", "w3", "r4"]);
  });

  it("runs every call one at a time when parallel reads are off", async () => {
    const { runner, log } = runtime();
    await runToolCalls([call("r__read", "r1"), call("r__read", "r2")], { ...runner, parallel: 1 });
    expect(log).toEqual(["start r1", "end r1", "start r2", "end r2"]);
  });

  it("answers a call with invalid arguments without the runtime, in its place", async () => {
    const { runner, log } = runtime();
    const turn = await runToolCalls(
      [call("r__read", "r1"), { id: "x", name: "r__read", input: {}, invalid: "not JSON" }, call("r__read", "r2")],
      runner,
    );
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start r1", "start r2"]);
    expect(turn.results.map((r) => r.text)).toEqual([
      "r__read r1",
      "error (invalid_arguments): not JSON",
      "r__read r2",
    ]);
    expect(turn.failed).toBe(1);
  });
});
