import type { ToolResult } from "@meshflow/core";
import { afterEach, describe, expect, it } from "vitest";
import { ClientPool } from "./ClientPool.js";
import { ConfirmationGate } from "./ConfirmationGate.js";
import { createToolChain } from "./createToolChain.js";
import { Guard } from "./Guard.js";
import type { MiddlewareEvent, ToolChainOptions } from "./index.js";
import { inMemoryServers } from "./inMemoryServers.js";
import { MetricsCollector } from "./MetricsCollector.js";
import { fixtureServer } from "./test-support/fixtureServer.js";

let pool: ClientPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** A chain over a real SDK server (in memory) whose log shows which calls reached it. */
function setup(options: Omit<ToolChainOptions, "pool"> = {}) {
  const fixture = fixtureServer();
  const { servers, transportFactory } = inMemoryServers({ fx: fixture.create });
  pool = new ClientPool(servers, { transportFactory });
  const events: MiddlewareEvent[] = [];
  const call = createToolChain({ pool, onEvent: (e) => events.push(e), ...options });
  return { call, log: fixture.log, events };
}

const text = (result: ToolResult) => result.content[0]?.text;
/** The token a `confirmation_required` refusal hands out. */
const tokenOf = (result: ToolResult) => {
  const error = result.structuredContent?.error as { confirmationToken?: string } | undefined;
  return error?.confirmationToken;
};

describe("createToolChain", () => {
  it("calls the tool when every middleware admits it", async () => {
    const { call, log, events } = setup();
    const result = await call("fx__echo", { message: "hi" }, {});
    expect(result).toEqual({ content: [{ type: "text", text: "Echo: hi" }] });
    expect(log.calls).toEqual(["echo"]);
    expect(events).toEqual([]);
  });

  describe("metrics", () => {
    it("records calls, errors and payload per tool, refusals included", async () => {
      const metrics = new MetricsCollector();
      const { call } = setup({ metrics });
      await call("fx__echo", { message: "hi" }, {});
      await call("fx__echo", { message: 1 }, {});
      const echo = metrics.summary(true).perTool?.fx__echo;
      expect(echo).toMatchObject({ callCount: 2, errorCount: 1, errorRate: 0.5 });
      expect(echo?.avgPayloadBytes).toBeGreaterThan(0);
    });
  });

  describe("guard", () => {
    it("refuses every call while locked, without reaching the server", async () => {
      const guard = new Guard();
      const { call, log, events } = setup({ guard });
      guard.emergencyStop("incident 42");
      const result = await call("fx__echo", { message: "hi" }, { storyId: "US-1", step: 7 });
      expect(result).toMatchObject({ isError: true, code: "guard_locked" });
      expect(text(result)).toBe("guard_locked: incident 42");
      expect(log.calls).toEqual([]);
      expect(events).toEqual([
        expect.objectContaining({
          type: "tool.refused",
          stage: "guard",
          code: "guard_locked",
          storyId: "US-1",
          step: 7,
        }),
      ]);
      guard.unlock();
      expect((await call("fx__echo", { message: "hi" }, {})).isError).toBeUndefined();
    });

    it("locks when the rate threshold is crossed", async () => {
      const guard = new Guard({ callsPerMinute: 2, clock: () => 0 });
      const { call, log } = setup({ guard });
      await call("fx__echo", { message: "1" }, {});
      await call("fx__echo", { message: "2" }, {});
      expect(await call("fx__echo", { message: "3" }, {})).toMatchObject({ code: "rate_limit_exceeded" });
      expect(await call("fx__echo", { message: "4" }, {})).toMatchObject({ code: "guard_locked" });
      expect(log.calls).toEqual(["echo", "echo"]);
      expect(guard.state().locked).toBe(true);
    });

    it("refuses a call admitted before an emergency stop but not yet sent (guard_locked at send time)", async () => {
      // The guard used to decide only when a call was admitted: a call still waiting for its server's
      // connection when the stop came was sent afterwards. The lock is now asked again right before sending.
      const guard = new Guard();
      const fixture = fixtureServer();
      const inner = inMemoryServers({ fx: fixture.create });
      let connecting!: () => void;
      const connectStarted = new Promise<void>((resolve) => {
        connecting = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      pool = new ClientPool(inner.servers, {
        transportFactory: async (config) => {
          connecting();
          await released;
          return inner.transportFactory(config);
        },
      });
      const events: MiddlewareEvent[] = [];
      const call = createToolChain({ pool, guard, onEvent: (e) => events.push(e) });
      const pending = call("fx__echo", { message: "hi" }, { storyId: "US-3", step: 2 });
      await connectStarted;
      guard.emergencyStop("incident 43");
      release();
      const result = await pending;
      expect(result).toMatchObject({ isError: true, code: "guard_locked" });
      expect(text(result)).toBe("guard_locked: incident 43");
      expect(fixture.log.servers).toHaveLength(1);
      expect(fixture.log.calls).toEqual([]);
      expect(events).toEqual([
        expect.objectContaining({ type: "tool.refused", stage: "guard", code: "guard_locked", storyId: "US-3" }),
      ]);
      guard.unlock();
      expect(text(await call("fx__echo", { message: "hi" }, {}))).toBe("Echo: hi");
      expect(fixture.log.calls).toEqual(["echo"]);
    });

    it("lets configured unguarded tools through while locked", async () => {
      const guard = new Guard({ unguardedTools: ["fx__echo"] });
      const { call } = setup({ guard });
      guard.emergencyStop("stop");
      expect((await call("fx__echo", { message: "hi" }, {})).isError).toBeUndefined();
      expect(await call("fx__add", { a: 1, b: 2 }, {})).toMatchObject({ code: "guard_locked" });
    });
  });

  describe("policy", () => {
    it("refuses a tool outside the repertoire, naming the tool and the step", async () => {
      const { call, log, events } = setup();
      const ctx = { repertoire: new Set(["fx__add"]), storyId: "US-2", step: 5 };
      const result = await call("fx__echo", { message: "hi" }, ctx);
      expect(result).toMatchObject({ isError: true, code: "not_in_repertoire" });
      expect(text(result)).toBe(
        'not_in_repertoire: tool "fx__echo" is not in the repertoire of story US-2 step 5 (1 tool allowed)',
      );
      expect(log.calls).toEqual([]);
      expect(events[0]).toMatchObject({ stage: "policy", tool: "fx__echo" });
      expect(text(await call("fx__add", { a: 1, b: 2 }, ctx))).toBe("3");
    });
  });

  describe("confirmation", () => {
    it("hands out a token on the first call of a destructive tool, and runs the call with it", async () => {
      const { call, log, events } = setup();
      const first = await call("fx__delete_item", { id: "7" }, {});
      expect(first).toMatchObject({ isError: true, code: "confirmation_required" });
      const confirmationToken = tokenOf(first);
      expect(confirmationToken).toEqual(expect.any(String));
      expect(text(first)).toContain(String(confirmationToken));
      expect(log.calls).toEqual([]);
      expect(events.map((e) => e.type)).toEqual(["confirmation.issued", "tool.refused"]);
      const second = await call("fx__delete_item", { id: "7" }, { confirmationToken });
      expect(text(second)).toBe("deleted 7");
      expect(log.calls).toEqual(["delete_item"]);
    });

    it("refuses a replayed token", async () => {
      const { call, log } = setup();
      const first = await call("fx__delete_item", { id: "7" }, {});
      const confirmationToken = tokenOf(first);
      await call("fx__delete_item", { id: "7" }, { confirmationToken });
      const replay = await call("fx__delete_item", { id: "7" }, { confirmationToken });
      expect(replay).toMatchObject({ code: "confirmation_invalid" });
      expect(text(replay)).toContain("already used");
      expect(log.calls).toEqual(["delete_item"]);
    });

    it("refuses a token presented with changed arguments", async () => {
      const { call, log } = setup();
      const first = await call("fx__delete_item", { id: "7" }, {});
      const confirmationToken = tokenOf(first);
      const changed = await call("fx__delete_item", { id: "8" }, { confirmationToken });
      expect(changed).toMatchObject({ code: "confirmation_invalid" });
      expect(text(changed)).toContain("arguments differ");
      expect(log.calls).toEqual([]);
    });

    it("refuses an expired token", async () => {
      let now = 0;
      const { call, log } = setup({ confirmation: new ConfirmationGate({ clock: () => now }) });
      const first = await call("fx__delete_item", { id: "7" }, {});
      const confirmationToken = tokenOf(first);
      now = 60_001;
      const late = await call("fx__delete_item", { id: "7" }, { confirmationToken });
      expect(late).toMatchObject({ code: "confirmation_invalid" });
      expect(text(late)).toContain("expired");
      expect(log.calls).toEqual([]);
    });

    it("asks annotation-aware callers for no token", async () => {
      const { call, log } = setup();
      expect(text(await call("fx__delete_item", { id: "7" }, { annotationAware: true }))).toBe("deleted 7");
      expect(log.calls).toEqual(["delete_item"]);
    });

    it("asks for tokens for tools listed in the gate's config too", async () => {
      const { call } = setup({ confirmation: new ConfirmationGate({ alwaysConfirm: ["fx__add"] }) });
      expect(await call("fx__add", { a: 1, b: 2 }, {})).toMatchObject({ code: "confirmation_required" });
    });
  });

  describe("validation", () => {
    it("refuses invalid arguments before they reach the server, naming each path", async () => {
      const { call, log, events } = setup();
      const result = await call("fx__add", { a: "1" }, {});
      expect(result).toMatchObject({ isError: true, code: "invalid_arguments" });
      expect(text(result)).toBe(
        'invalid_arguments: invalid arguments for "fx__add": $.b: is required; $.a: must be number',
      );
      expect(result.structuredContent?.error).toMatchObject({ problems: ["$.b: is required", "$.a: must be number"] });
      expect(log.calls).toEqual([]);
      expect(events[0]).toMatchObject({ stage: "validation", code: "invalid_arguments" });
    });
  });

  describe("order", () => {
    it("runs guard before policy, policy before confirmation, confirmation before validation", async () => {
      const guard = new Guard();
      const { call } = setup({ guard });
      const outside = { repertoire: new Set<string>() };
      guard.emergencyStop("stop");
      expect(await call("fx__delete_item", { id: 1 }, outside)).toMatchObject({ code: "guard_locked" });
      guard.unlock();
      expect(await call("fx__delete_item", { id: 1 }, outside)).toMatchObject({ code: "not_in_repertoire" });
      const first = await call("fx__delete_item", { id: 1 }, {});
      expect(first).toMatchObject({ code: "confirmation_required" });
      const confirmationToken = tokenOf(first);
      expect(await call("fx__delete_item", { id: 1 }, { confirmationToken })).toMatchObject({
        code: "invalid_arguments",
      });
    });
  });

  describe("lookup", () => {
    it("refuses an unknown tool with tool_not_found and suggestions", async () => {
      const { call, events } = setup();
      const result = await call("fx__ecko", { message: "hi" }, {});
      expect(result).toMatchObject({ isError: true, code: "tool_not_found" });
      expect(text(result)).toBe('tool_not_found: server "fx" has no tool "ecko" (did you mean "fx__echo"?)');
      expect(events[0]).toMatchObject({ stage: "lookup", code: "tool_not_found" });
      expect(await call("nowhere__echo", {}, {})).toMatchObject({ code: "tool_not_found" });
      expect(await call("echo", {}, {})).toMatchObject({ code: "tool_not_found" });
    });
  });
});
