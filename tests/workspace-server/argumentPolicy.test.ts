import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ARGUMENT_POLICIES } from "@meshflow/workspace-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  type FixtureWorkspace,
  makeWorkspace,
  type WorkspaceClient,
} from "../helpers/workspaceFixture.js";

// Regression: with git, find or npm allowed, `git -c alias.x=!…`, `--upload-pack`, `find -exec` and
// `npm exec -c` ran any command, and `git diff --no-index /dev/null <outside file>` printed a file outside
// the root. Root cause: the allowlist named executables only; now each has an argument policy.

let ws: FixtureWorkspace;
let c: WorkspaceClient;
let marker: string;

beforeAll(async () => {
  ws = makeWorkspace();
  marker = join(ws.outside, "ran");
  ws.write(
    "package.json",
    JSON.stringify({ name: "fixture", scripts: { test: "node -e \"console.log('tests ran')\"" } }),
  );
  c = await connectWorkspace({ root: ws.root, allow: ["git", "find", "npm"] });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

const touch = (): string => `touch ${marker}`;

describe("run_command argument policy", () => {
  const attacks: [string, string[]][] = [
    ["git", ["-c", `alias.x=!${touch()}`, "x"]],
    ["git", ["status", "-c", `alias.x=!${touch()}`]],
    ["git", ["x"]],
    ["git", ["fetch", `--upload-pack=${touch()}`, "."]],
    ["git", ["log", `--upload-pa=${touch()}`]],
    ["git", ["log", "--output=/tmp/meshflow-policy-out"]],
    ["git", ["show", "--ext-diff"]],
    ["find", [".", "-exec", "sh", "-c", touch(), ";"]],
    ["find", [".", "-delete"]],
    ["find", [".", "-fprintf", "/tmp/x", "%p"]],
    ["npm", ["exec", "-c", touch()]],
    ["npm", ["x", "--", "sh", "-c", touch()]],
    ["npm", ["run", "test", `--script-shell=${touch()}`]],
  ];
  it.each(attacks)("%s %j is refused with argument_not_allowed and nothing runs", async (command, args) => {
    const r = await c.call("run_command", { command, args });
    expect(r.data.code).toBe("argument_not_allowed");
    expect(r.data.command).toBe(command);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses git diff --no-index with a path outside the root, allows it inside", async () => {
    const outside = await c.call("run_command", {
      command: "git",
      args: ["diff", "--no-index", "/dev/null", join(ws.outside, "secret.txt")],
    });
    expect(outside.data.code).toBe("path_outside_root");
    expect(outside.text).not.toContain("TOP SECRET");
    const inside = await c.call("run_command", {
      command: "git",
      args: ["diff", "--no-index", "README.md", "notes.txt"],
    });
    expect(inside.data.code).toBe("command_failed"); // exit 1: the files differ
    expect(inside.data.stdout?.text).toContain("untracked notes");
  });

  it("runs what the defaults allow: git status/log, find without actions, npm test", async () => {
    expect((await c.call("run_command", { command: "git", args: ["log", "--oneline"] })).data.stdout.text).toContain(
      "initial",
    );
    expect((await c.call("run_command", { command: "find", args: ["src", "-name", "*.ts"] })).isError).toBe(false);
    const npm = await c.call("run_command", { command: "npm", args: ["test"] });
    expect(npm.isError, npm.text).toBe(false);
    expect(npm.data.stdout.text).toContain("tests ran");
  });

  it("takes a policy from the config over the default, {} lifting it", async () => {
    expect(DEFAULT_ARGUMENT_POLICIES.git?.subcommands).toEqual(["status", "diff", "log", "show"]);
    mkdirSync(join(ws.root, "cfg"), { recursive: true });
    writeFileSync(join(ws.root, "cfg", "x.txt"), "x\n");
    const custom = await connectWorkspace({
      root: ws.root,
      allow: ["git", "find"],
      argumentPolicy: { git: { subcommands: ["rev-parse"] }, find: {} },
    });
    try {
      expect((await custom.call("run_command", { command: "git", args: ["rev-parse", "HEAD"] })).isError).toBe(false);
      expect((await custom.call("run_command", { command: "git", args: ["status"] })).data.code).toBe(
        "argument_not_allowed",
      );
      const find = await custom.call("run_command", { command: "find", args: ["cfg", "-name", "x.txt", "-delete"] });
      expect(find.isError).toBe(false);
      expect(existsSync(join(ws.root, "cfg", "x.txt"))).toBe(false);
    } finally {
      await custom.close();
    }
  });
});
