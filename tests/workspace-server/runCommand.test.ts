import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWorkspace,
  eventually,
  type FixtureWorkspace,
  isAlive,
  makeWorkspace,
  type WorkspaceClient,
  writeScript,
} from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
let c: WorkspaceClient;
const node = process.execPath;

beforeAll(async () => {
  ws = makeWorkspace({ git: false });
  writeScript(ws, "tools/hello.js", "console.log('hello from', process.argv.slice(2).join(','));");
  c = await connectWorkspace({
    root: ws.root,
    allow: [node, "tools/hello.js", "definitely-not-installed-xyz"],
    killGraceMs: 500,
  });
});
afterAll(async () => {
  await c?.close();
  ws?.cleanup();
});

describe("run_command", () => {
  it("runs an allowlisted executable in a folder of the root and returns exit code, tails and duration", async () => {
    const r = await c.call("run_command", {
      command: node,
      args: ["-e", "console.log(process.cwd()); console.error('to stderr')"],
      cwd: "src",
    });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      cwd: "src",
      stdout: { text: `${join(ws.root, "src")}\n`, truncated: false },
      stderr: { text: "to stderr\n", truncated: false },
    });
    expect(typeof r.data.durationMs).toBe("number");
    expect(r.text).toContain("exit 0");
    expect(r.text).toContain("--- stderr ---\nto stderr");
  });

  it("passes arguments as they are: no shell expands, chains or redirects them", async () => {
    const tricky = ["$(touch pwned)", "; touch pwned2", "`id`", "*", "a > b", "$HOME"];
    const r = await c.call("run_command", {
      command: node,
      args: ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", ...tricky],
    });
    expect(r.isError).toBe(false);
    expect(JSON.parse(r.data.stdout.text)).toEqual(tricky);
    expect(existsSync(join(ws.root, "pwned"))).toBe(false);
    expect(existsSync(join(ws.root, "pwned2"))).toBe(false);
  });

  it("refuses a command off the allowlist with command_not_allowed, naming the command and the list", async () => {
    const r = await c.call("run_command", { command: "rm", args: ["-rf", "."] });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe("command_not_allowed");
    expect(r.data.command).toBe("rm");
    expect(r.data.allow).toContain(node);
    expect(r.text).toContain('command "rm" is not on the allowlist');
    expect(existsSync(join(ws.root, "README.md"))).toBe(true);
  });

  it("does not let a shell, or a path to an allowed name elsewhere, stand in for an allowed executable", async () => {
    for (const command of ["sh", "bash", "/bin/sh", "node", "./tools/../tools/other.js", "tools/hello.js --evil"]) {
      const r = await c.call("run_command", { command, args: ["-c", "echo hi"] });
      expect([command, r.data.code]).toEqual([command, "command_not_allowed"]);
    }
  });

  it("refuses every command when the server has no allowlist, and says how to allow one", async () => {
    const bare = await connectWorkspace({ root: ws.root });
    try {
      const r = await bare.call("run_command", { command: node, args: ["-e", "1"] });
      expect(r.data.code).toBe("command_not_allowed");
      expect(r.text).toContain("allowed: none");
      expect(r.text).toContain(`add "--allow", ${JSON.stringify(node)} to the server's args in the MCP config`);
      const tools = await bare.client.listTools();
      const run = tools.tools.find((t) => t.name === "run_command");
      expect(run?.description).toContain("Allowed executables: none");
    } finally {
      await bare.close();
    }
  });

  it("runs an allowlisted script given as a path relative to the root, from any cwd", async () => {
    const r = await c.call("run_command", { command: "tools/hello.js", args: ["x", "y"], cwd: "src" });
    expect(r.isError).toBe(false);
    expect(r.data.stdout.text).toBe("hello from x,y\n");
  });

  it("reports a non-zero exit as command_failed with the exit code and output tails", async () => {
    const r = await c.call("run_command", {
      command: node,
      args: ["-e", "console.log('partial'); console.error('boom: assertion failed'); process.exit(3)"],
    });
    expect(r.isError).toBe(true);
    expect(r.data).toMatchObject({ code: "command_failed", exitCode: 3, signal: null, timedOut: false });
    expect(r.data.stderr.text).toContain("boom: assertion failed");
    expect(r.data.stdout.text).toBe("partial\n");
    expect(r.text).toContain("exited with 3");
    expect(r.text).toContain("boom: assertion failed");
  });

  it("reports an allowed executable that does not exist as command_not_found", async () => {
    const r = await c.call("run_command", { command: "definitely-not-installed-xyz" });
    expect(r.isError).toBe(true);
    expect(r.data.code).toBe("command_not_found");
  });

  it("refuses a cwd that is a file or missing", async () => {
    expect((await c.call("run_command", { command: node, cwd: "README.md" })).data.code).toBe("not_a_directory");
    expect((await c.call("run_command", { command: node, cwd: "nope" })).data.code).toBe("not_found");
  });

  it("kills a command and everything it started when it times out (command_timeout)", async () => {
    const pidFile = join(ws.root, "grandchild.pid");
    const script = [
      "const { spawn } = require('node:child_process');",
      "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      "console.log('started', child.pid);",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const r = await c.call("run_command", { command: node, args: ["-e", script], timeoutMs: 3000 });
    expect(r.isError).toBe(true);
    expect(r.data).toMatchObject({ code: "command_timeout", timedOut: true, timeoutMs: 3000, exitCode: null });
    expect(r.data.signal).toMatch(/^SIG(TERM|KILL)$/);
    expect(r.data.stdout.text).toContain("started");
    expect(r.text).toContain("did not finish within 3000 ms");
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(await eventually(() => !isAlive(grandchild))).toBe(true);
  });

  it("kills a command that ignores SIGTERM with SIGKILL after the grace period", async () => {
    const r = await c.call("run_command", {
      command: node,
      // Generous: node must have installed its handler before the timeout fires.
      args: ["-e", "process.on('SIGTERM', () => console.log('ignoring TERM')); setInterval(() => {}, 1000)"],
      timeoutMs: 3000,
    });
    expect(r.data.code).toBe("command_timeout");
    expect(r.data.signal).toBe("SIGKILL");
    expect(r.data.stdout.text).toContain("ignoring TERM");
  });

  it("never waits longer than the server's timeout, whatever timeoutMs asks", async () => {
    const strict = await connectWorkspace({ root: ws.root, allow: [node], timeoutMs: 800, killGraceMs: 200 });
    try {
      const r = await strict.call("run_command", {
        command: node,
        args: ["-e", "setInterval(() => {}, 1000)"],
        timeoutMs: 600_000,
      });
      expect(r.data).toMatchObject({ code: "command_timeout", timeoutMs: 800 });
    } finally {
      await strict.close();
    }
  });

  it("caps stdout and stderr at maxOutputBytes, keeping the tail behind a truncation marker", async () => {
    const capped = await connectWorkspace({ root: ws.root, allow: [node], maxOutputBytes: 1000 });
    try {
      const r = await capped.call("run_command", {
        command: node,
        args: [
          "-e",
          "process.stdout.write('x'.repeat(100000) + 'END-OF-OUTPUT'); process.stderr.write('e'.repeat(5000) + 'LAST')",
        ],
      });
      expect(r.isError).toBe(false);
      expect(r.data.stdout.bytes).toBe(100_013);
      expect(r.data.stdout.truncated).toBe(true);
      expect(r.data.stdout.text).toMatch(/^\[… 99013 earlier bytes truncated; last 1000 of 100013 kept …\]\n/);
      expect(r.data.stdout.text.endsWith("END-OF-OUTPUT")).toBe(true);
      expect(r.data.stdout.text.length).toBeLessThan(1100);
      expect(r.data.stderr).toMatchObject({ bytes: 5004, truncated: true });
      expect(r.data.stderr.text.endsWith("LAST")).toBe(true);
      expect(r.text).toContain("earlier bytes truncated");
    } finally {
      await capped.close();
    }
  });

  it("kills the running command when the client cancels the call", async () => {
    const pidFile = join(ws.root, "cancelled.pid");
    const controller = new AbortController();
    const call = c.call(
      "run_command",
      {
        command: node,
        args: [
          "-e",
          `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
        ],
      },
      { signal: controller.signal },
    );
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0)).toBe(true);
    controller.abort("test cancels");
    await expect(call).rejects.toThrow();
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await eventually(() => !isAlive(pid))).toBe(true);
  });
});
