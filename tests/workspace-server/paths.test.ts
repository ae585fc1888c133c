import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  type FixtureWorkspace,
  makeWorkspace,
  type ToolName,
  type WorkspaceClient,
} from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
let c: WorkspaceClient;

beforeAll(async () => {
  ws = makeWorkspace();
  c = await connectWorkspace({ root: ws.root, allow: ["node"] });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

// Every tool that takes a path, with the argument that carries it.
const PATH_TOOLS: [ToolName, (p: string) => Record<string, unknown>][] = [
  ["read_file", (p) => ({ path: p })],
  ["list_files", (p) => ({ path: p })],
  ["file_stats", (p) => ({ path: p })],
  ["search_text", (p) => ({ regex: "SECRET", path: p })],
  ["git_diff", (p) => ({ paths: [p] })],
  ["run_command", (p) => ({ command: "node", args: ["-e", "1"], cwd: p })],
];

describe("createWorkspaceServer path confinement", () => {
  it.each(PATH_TOOLS)(
    "%s refuses '../' traversal with path_traversal, naming the path and the root",
    async (tool, args) => {
      const r = await c.call(tool, args("../outside/secret.txt"));
      expect(r.isError).toBe(true);
      expect(r.data.code).toBe("path_traversal");
      expect(r.data.path).toBe("../outside/secret.txt");
      expect(r.data.root).toBe(ws.root);
      expect(r.text).toContain('"../outside/secret.txt"');
      expect(r.text).toContain(ws.root);
      expect(r.text).not.toContain("TOP SECRET");
    },
  );

  it.each(PATH_TOOLS)("%s refuses traversal hidden inside a path (src/../../x)", async (tool, args) => {
    const r = await c.call(tool, args("src/../../outside"));
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe("path_traversal");
  });

  it.each(PATH_TOOLS)("%s refuses an absolute path outside the root with path_outside_root", async (tool, args) => {
    const target = join(ws.outside, "secret.txt");
    const r = await c.call(tool, args(target));
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe("path_outside_root");
    expect(r.text).toContain(target);
    expect(r.text).toContain(ws.root);
    expect(r.text).not.toContain("TOP SECRET");
  });

  it.each(PATH_TOOLS)(
    "%s refuses a symlink whose target is outside the root with symlink_escape",
    async (tool, args) => {
      // run_command's cwd must be a folder, so it gets the folder link; the others the file link.
      const link = tool === "run_command" || tool === "list_files" ? "escape-dir" : "escape-file";
      const r = await c.call(tool, args(link));
      expect(r.isError).toBe(true);
      expect(r.data.code).toBe("symlink_escape");
      expect(r.data.target).toBe(
        tool === "run_command" || tool === "list_files" ? ws.outside : join(ws.outside, "secret.txt"),
      );
      expect(r.text).toContain("outside the workspace root");
      expect(r.text).not.toContain("TOP SECRET");
    },
  );

  it("refuses a path below an escaping folder link, even when that file does not exist", async () => {
    const r = await c.call("read_file", { path: "escape-dir/missing.txt" });
    expect(r.data.code).toBe("symlink_escape");
  });

  it("refuses an empty path and a NUL byte with path_invalid", async () => {
    expect((await c.call("read_file", { path: "" })).data.code).toBe("path_invalid");
    expect((await c.call("read_file", { path: "README.md\0.txt" })).data.code).toBe("path_invalid");
  });

  it("accepts an absolute path inside the root and a symlink that stays inside", async () => {
    const abs = await c.call("read_file", { path: join(ws.root, "README.md") });
    expect(abs.isError).toBe(false);
    expect(abs.data.path).toBe("README.md");
    const link = await c.call("read_file", { path: "link-to-readme" });
    expect(link.isError).toBe(false);
    expect(link.data.content).toContain("# Fixture");
  });

  it("walks never follow a symlink out of the root and count what they skipped", async () => {
    const listed = await c.call("list_files", {});
    const paths = listed.data.files.map((f) => f.path);
    expect(paths).not.toContain("escape-file");
    expect(paths.some((p: string) => p.startsWith("escape-dir"))).toBe(false);
    expect(paths).toContain("link-to-readme");
    expect(listed.data.skipped.symlinksOutsideRoot).toBe(2);

    const found = await c.call("search_text", { regex: "TOP SECRET" });
    expect(found.isError).toBe(false);
    expect(found.data.matches).toEqual([]);
  });

  it("confines to the real root when the root itself is given through a symlink", async () => {
    const alias = `${ws.root}-alias`;
    symlinkSync(ws.root, alias);
    const viaAlias = await connectWorkspace({ root: alias });
    try {
      const inside = await viaAlias.call("read_file", { path: join(alias, "README.md") });
      expect(inside.isError).toBe(false);
      const outside = await viaAlias.call("read_file", { path: join(alias, "..", "outside", "secret.txt") });
      expect(outside.data.code).toBe("path_outside_root");
    } finally {
      await viaAlias.close();
    }
  });

  // Regression: a 20 KB path of 10,000 parts spent 31 s in realpath recursion and held up every other
  // call; a 5,000-character name came back as "internal: unexpected failure: ENAMETOOLONG".
  it.each(PATH_TOOLS)("%s refuses a path over 4,096 bytes or 256 parts with path_invalid", async (tool, args) => {
    const long = await c.call(tool, args("a/".repeat(10_000)));
    expect(long.data.code).toBe("path_invalid");
    expect(long.data.maxBytes).toBe(4096);
    const deep = await c.call(tool, args("a/".repeat(300)));
    expect(deep.data.code).toBe("path_invalid");
    expect(deep.data.maxParts).toBe(256);
  });

  it("maps a name over the system's limit to path_invalid and a symlink loop to symlink_loop", async () => {
    const name = await c.call("read_file", { path: `src/${"n".repeat(300)}.ts` });
    expect(name.data.code).toBe("path_invalid");
    expect(name.data.errno).toBe("ENAMETOOLONG");
    expect(name.text).not.toContain("internal");
    symlinkSync("loop-b", join(ws.root, "loop-a"));
    symlinkSync("loop-a", join(ws.root, "loop-b"));
    const loop = await c.call("read_file", { path: "loop-a" });
    expect(loop.data.code).toBe("symlink_loop");
    expect(loop.data.errno).toBe("ELOOP");
  });

  it("answers other calls while deep and refused paths are being handled", async () => {
    const deepButAllowed = `${"d/".repeat(250)}missing.txt`;
    const calls = [
      ...Array.from({ length: 20 }, () => c.call("read_file", { path: "a/".repeat(10_000) })),
      ...Array.from({ length: 20 }, () => c.call("file_stats", { path: deepButAllowed })),
      c.call("read_file", { path: "README.md" }),
    ];
    const results = await Promise.all(calls);
    expect(results.at(-1)?.data.content).toContain("# Fixture");
    expect(new Set(results.slice(0, 40).map((r) => r.data.code))).toEqual(new Set(["path_invalid", "not_found"]));
  });
});
