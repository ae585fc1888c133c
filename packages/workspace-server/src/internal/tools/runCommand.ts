import { ALLOW_META_KEY, type ProcessOutcome, runProcess, type StreamTail } from "@meshflow/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { RunCommandResult } from "../../WorkspaceResults.js";
import { WorkspaceToolError } from "../../WorkspaceToolError.js";
import { checkArguments } from "../checkArguments.js";
import type { ToolContext } from "../ToolContext.js";
import { guarded, okResult } from "../toolResult.js";

function marked(stream: StreamTail): StreamTail {
  if (!stream.truncated) return stream;
  const dropped = stream.bytes - Buffer.byteLength(stream.text);
  return {
    ...stream,
    text: `[… ${dropped} earlier bytes truncated; last ${Buffer.byteLength(stream.text)} of ${stream.bytes} kept …]\n${stream.text}`,
  };
}

function describe(ctx: ToolContext): string {
  const allowed = ctx.allow.entries.length ? ctx.allow.entries.join(", ") : "none (every command is refused)";
  return [
    "Run one allowlisted executable in the workspace and return its exit code and output.",
    `Allowed executables: ${allowed}.`,
    ...ctx.allow.entries.flatMap((entry) => {
      const policy = ctx.allow.policyFor(entry);
      if (!policy) return [];
      const subs = policy.subcommands ? `subcommands ${policy.subcommands.join("/")} (first argument)` : "";
      const denied = policy.deniedFlags?.length ? `never ${policy.deniedFlags.join(" ")}` : "";
      return [`${entry}: ${[subs, denied].filter(Boolean).join("; ")}.`];
    }),
    "The command is started directly, never through a shell: pass the program in `command` and every argument",
    "separately in `args` (no pipes, globs, redirections, `&&` or environment assignments).",
    "`cwd` is a folder relative to the workspace root (default: the root).",
    `It is killed with everything it started after ${ctx.timeoutMs} ms (or the lower \`timeoutMs\` you pass).`,
    `Only the last ${ctx.maxOutputBytes} bytes of stdout and of stderr are kept; a marker says how much was dropped.`,
    "A non-zero exit, a signal or a timeout is an error result (code command_failed or command_timeout) that",
    "still carries exitCode, signal, durationMs and the stdout/stderr tails. The command may change files.",
  ].join(" ");
}

function summary(command: string, args: readonly string[], cwd: string, run: ProcessOutcome): string {
  const how = run.timedOut
    ? `timed out, killed (${run.signal ?? "exited"})`
    : run.signal
      ? `killed by ${run.signal}`
      : `exit ${run.exitCode}`;
  const lines = [`$ ${[command, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(" ")}`];
  lines.push(`(cwd ${cwd}; ${how}; ${run.durationMs} ms)`);
  for (const [name, stream] of [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
  ] as const) {
    if (stream.bytes === 0) continue;
    lines.push(`--- ${name} ---`, stream.text.replace(/\n$/, ""));
  }
  return lines.join("\n");
}

/** `run_command`: an allowlisted executable, no shell, cwd inside the root, timeout, capped output. */
export function registerRunCommand(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "run_command",
    {
      title: "Run an allowlisted command",
      description: describe(ctx),
      inputSchema: {
        command: z.string().min(1).describe('The executable, exactly as on the allowlist, e.g. "npm"'),
        args: z.array(z.string()).max(1000).default([]).describe("Arguments, one per item, passed as they are"),
        cwd: z.string().default(".").describe("Working folder relative to the workspace root"),
        timeoutMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Kill the command after this many ms (at most ${ctx.timeoutMs})`),
      },
      annotations: {
        title: "Run an allowlisted command",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
      // The allowlist for clients to read before they call (`flow prd lint`, a run's start): the
      // description says it to a model, this says it to a program.
      _meta: { [ALLOW_META_KEY]: [...ctx.allow.entries] },
    },
    ({ command, args, cwd, timeoutMs }, extra) =>
      guarded(async () => {
        const file = ctx.allow.resolve(command);
        await checkArguments(command, args, ctx.allow.policyFor(command), ctx.root);
        const dir = await ctx.root.resolveExisting(cwd, "directory");
        const limit = Math.min(timeoutMs ?? ctx.timeoutMs, ctx.timeoutMs);
        const run = await runProcess(file, args, {
          cwd: dir.abs,
          timeoutMs: limit,
          maxOutputBytes: ctx.maxOutputBytes,
          killGraceMs: ctx.killGraceMs,
          env: ctx.env,
          signal: extra.signal,
        });
        if (run.spawnError) {
          const code = run.spawnError.code === "ENOENT" ? "command_not_found" : "command_failed";
          const why =
            run.spawnError.code === "ENOENT" ? "was not found" : `could not be started (${run.spawnError.code})`;
          throw new WorkspaceToolError(code, `command ${JSON.stringify(command)} is allowed but ${why}`, {
            command,
            errno: run.spawnError.code,
          });
        }
        const facts: RunCommandResult = {
          command,
          args,
          cwd: dir.rel,
          exitCode: run.exitCode,
          signal: run.signal,
          timedOut: run.timedOut,
          timeoutMs: limit,
          durationMs: run.durationMs,
          stdout: marked(run.stdout),
          stderr: marked(run.stderr),
        };
        const text = summary(command, args, dir.rel, { ...run, stdout: facts.stdout, stderr: facts.stderr });
        if (run.timedOut)
          throw new WorkspaceToolError(
            "command_timeout",
            `command ${JSON.stringify(command)} did not finish within ${limit} ms and was killed with its process tree`,
            facts,
            text,
          );
        if (run.aborted)
          throw new WorkspaceToolError(
            "command_failed",
            `command ${JSON.stringify(command)} was cancelled`,
            facts,
            text,
          );
        if (run.exitCode !== 0)
          throw new WorkspaceToolError(
            "command_failed",
            `command ${JSON.stringify(command)} ${run.signal ? `was killed by ${run.signal}` : `exited with ${run.exitCode}`}`,
            facts,
            text,
          );
        return okResult(text, facts);
      }),
  );
}
