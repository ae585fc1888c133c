import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolResult } from "@meshflow/core";
import { ClientPool, createToolChain, Guard, type MiddlewareEvent } from "@meshflow/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stdioServer } from "../helpers/mcpServers.js";

const text = (result: ToolResult) => result.content.map((b) => (typeof b.text === "string" ? b.text : "")).join("");
const tokenOf = (result: ToolResult) =>
  (result.structuredContent?.error as { confirmationToken?: string } | undefined)?.confirmationToken;

let dir: string;
let pool: ClientPool;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "meshflow-mcp-e2e-")));
  const configs = [
    stdioServer("filesystem", "server-filesystem", [dir]),
    stdioServer("memory", "server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
  ];
  pool = new ClientPool(new Map(configs.map((c) => [c.name, c])));
});
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the chain against server-filesystem on a temp directory", () => {
  it("requires a confirmation token for write_file (destructiveHint), then writes with it", async () => {
    const events: MiddlewareEvent[] = [];
    const call = createToolChain({ pool, onEvent: (e) => events.push(e) });
    const target = join(dir, "notes.txt");
    const args = { path: target, content: "status: done\n" };
    const first = await call("filesystem__write_file", args, {});
    expect(first).toMatchObject({ isError: true, code: "confirmation_required" });
    expect(existsSync(target)).toBe(false);

    const confirmationToken = tokenOf(first);
    const changed = await call("filesystem__write_file", { ...args, content: "other" }, { confirmationToken });
    expect(changed).toMatchObject({ code: "confirmation_invalid" });
    expect(existsSync(target)).toBe(false);

    const retry = await call("filesystem__write_file", args, {});
    const written = await call("filesystem__write_file", args, { confirmationToken: tokenOf(retry) });
    expect(written.isError).toBeUndefined();
    expect(readFileSync(target, "utf8")).toBe("status: done\n");
    expect(text(await call("filesystem__read_text_file", { path: target }, {}))).toBe("status: done\n");
    expect(events.filter((e) => e.type === "tool.refused").map((e) => e.type === "tool.refused" && e.code)).toEqual([
      "confirmation_required",
      "confirmation_invalid",
      "confirmation_required",
    ]);
  });

  it("refuses arguments that break write_file's schema before the server sees them", async () => {
    const call = createToolChain({ pool });
    const target = join(dir, "never.txt");
    const result = await call("filesystem__write_file", { path: target, content: 42 }, { annotationAware: true });
    expect(result).toMatchObject({ isError: true, code: "invalid_arguments" });
    expect(text(result)).toContain("$.content: must be string");
    expect(existsSync(target)).toBe(false);
  });

  it("keeps a step to its repertoire and a locked guard shut", async () => {
    const guard = new Guard();
    const call = createToolChain({ pool, guard });
    const repertoire = new Set(["filesystem__read_text_file", "filesystem__list_directory"]);
    const ctx = { repertoire, storyId: "US-001", step: 1, annotationAware: true };
    const outside = await call("filesystem__write_file", { path: join(dir, "x.txt"), content: "x" }, ctx);
    expect(outside).toMatchObject({ code: "not_in_repertoire" });
    expect(text(outside)).toContain("story US-001 step 1");
    expect(existsSync(join(dir, "x.txt"))).toBe(false);
    expect((await call("filesystem__list_directory", { path: dir }, ctx)).isError).toBeUndefined();
    guard.emergencyStop("operator stop");
    expect(text(await call("filesystem__list_directory", { path: dir }, ctx))).toBe("guard_locked: operator stop");
  });
});

describe("the chain against server-memory", () => {
  it("creates and reads entities, and guards delete_entities with a token", async () => {
    const call = createToolChain({ pool });
    const created = await call(
      "memory__create_entities",
      { entities: [{ name: "US-001", entityType: "story", observations: ["status field added"] }] },
      {},
    );
    expect(created.isError).toBeUndefined();
    expect(text(await call("memory__read_graph", {}, {}))).toContain("status field added");

    const first = await call("memory__delete_entities", { entityNames: ["US-001"] }, {});
    expect(first).toMatchObject({ code: "confirmation_required" });
    expect(text(await call("memory__read_graph", {}, {}))).toContain("US-001");
    const deleted = await call(
      "memory__delete_entities",
      { entityNames: ["US-001"] },
      { confirmationToken: tokenOf(first) },
    );
    expect(deleted.isError).toBeUndefined();
    expect(text(await call("memory__read_graph", {}, {}))).not.toContain("US-001");
  });
});
