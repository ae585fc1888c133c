import { describe, expect, it } from "vitest";
import { argsDigest, ConfirmationGate } from "./ConfirmationGate.js";

const tool = (destructiveHint?: boolean) => ({
  qualifiedName: "fs__delete",
  server: "fs",
  name: "delete",
  description: "",
  inputSchema: {},
  annotations: destructiveHint === undefined ? {} : { destructiveHint },
});

describe("ConfirmationGate", () => {
  it("requires confirmation for destructiveHint tools and configured ones only", () => {
    const gate = new ConfirmationGate({ alwaysConfirm: ["fs__delete"] });
    expect(new ConfirmationGate().requiresConfirmation(tool(true))).toBe(true);
    expect(new ConfirmationGate().requiresConfirmation(tool(false))).toBe(false);
    expect(new ConfirmationGate().requiresConfirmation(tool())).toBe(false);
    expect(gate.requiresConfirmation(tool(false))).toBe(true);
  });

  it("accepts a token once, for its tool and exactly its arguments", () => {
    const gate = new ConfirmationGate();
    const { token, argsSha256 } = gate.issue("fs__delete", { path: "a", recursive: true });
    expect(argsSha256).toBe(argsDigest({ recursive: true, path: "a" }));
    expect(gate.consume(token, "fs__delete", { recursive: true, path: "a" })).toEqual({ ok: true });
    expect(gate.consume(token, "fs__delete", { path: "a", recursive: true })).toMatchObject({
      ok: false,
      problem: "used",
    });
  });

  it("refuses a token for other arguments, another tool, or an unknown token — and spends it", () => {
    const gate = new ConfirmationGate();
    const first = gate.issue("fs__delete", { path: "a" });
    expect(gate.consume(first.token, "fs__delete", { path: "b" })).toMatchObject({ problem: "args_mismatch" });
    expect(gate.consume(first.token, "fs__delete", { path: "a" })).toMatchObject({ problem: "used" });
    const second = gate.issue("fs__delete", { path: "a" });
    expect(gate.consume(second.token, "fs__move", { path: "a" })).toMatchObject({ problem: "wrong_tool" });
    expect(gate.consume("made-up", "fs__delete", { path: "a" })).toMatchObject({ problem: "unknown" });
  });

  it("refuses a token after 60 s", () => {
    let now = 1_000;
    const gate = new ConfirmationGate({ clock: () => now });
    const early = gate.issue("fs__delete", {});
    const late = gate.issue("fs__delete", {});
    now += 60_000;
    expect(gate.consume(early.token, "fs__delete", {})).toEqual({ ok: true });
    now += 1;
    expect(gate.consume(late.token, "fs__delete", {})).toMatchObject({ ok: false, problem: "expired" });
  });

  it("says expired, not unknown, for a token pruned after expiry", () => {
    let now = 0;
    const gate = new ConfirmationGate({ clock: () => now });
    const { token } = gate.issue("t", {});
    now = 61_000;
    expect(gate.pending()).toBe(0);
    expect(gate.consume(token, "t", {})).toMatchObject({ problem: "expired" });
  });

  it("hashes nested arguments canonically", () => {
    expect(argsDigest({ a: { y: 1, x: [2, { q: 1, p: 2 }] } })).toBe(
      argsDigest({ a: { x: [2, { p: 2, q: 1 }], y: 1 } }),
    );
    expect(argsDigest({ a: [1, 2] })).not.toBe(argsDigest({ a: [2, 1] }));
  });
});
