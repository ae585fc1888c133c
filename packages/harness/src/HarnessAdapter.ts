import type { ModelRef } from "@meshflow/core";

/** Where the step's MCP server listens and the token it takes, for the harness's MCP configuration. */
export interface StepServerAddress {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The bearer token of this step only. */
  token: string;
}

/** Everything an adapter needs to start its program for one step. */
export interface HarnessLaunch {
  /** The program's absolute path (see `findProgram`). */
  program: string;
  /** The step's MCP server: the harness's only tools. */
  server: StepServerAddress;
  /** The model `--model` (or the story's, the PRD's) names; absent: the harness's own default. */
  model?: ModelRef;
  /** `--model-base-url`: the model endpoint. */
  baseUrl?: string;
  /** The key meshflow read for the model's provider (`FLOW_MODEL_API_KEY`, `ANTHROPIC_API_KEY`, …). */
  apiKey?: string;
  /** The harness's session to continue (a resumed step), when the journal holds one. */
  session?: string;
  /** A folder of meshflow's for this step's harness configuration (owner-only, removed after the step). */
  configDir: string;
  /** `--harness-builtin-tools`: the program's own tools stay on. */
  builtinTools: boolean;
  /**
   * With its own tools on and the run asking for approvals: the step server's tool that answers the
   * program's permission prompts (Claude Code's `--permission-prompt-tool`) through the run's approvals.
   */
  permissionPromptTool?: string;
}

/** How to start the program: argv (no shell), extra environment, files to write into `configDir`. */
export interface HarnessCommand {
  argv: string[];
  env: Record<string, string>;
  /** Variables of the parent environment the program must not see (e.g. a project's own settings). */
  unset?: readonly string[];
  files?: Record<string, string>;
}

/** What one line of the program's event stream said, as meshflow reads it. */
export type HarnessEvent =
  | { type: "session"; id: string }
  | {
      type: "turn";
      /** The turn's id in the program's stream (turns are gathered by it). */
      id: string;
      text: string;
      toolCalls: string[];
      inputTokens: number;
      outputTokens: number;
      costUsd?: number;
      finished?: boolean;
    }
  /** The turn being gathered is over (its tool calls were answered): it is journaled now. */
  | { type: "turn_end" }
  /** The run of the program ended (its final message; cost and error when it says). */
  | { type: "result"; text: string; isError: boolean; costUsd?: number }
  /** The model endpoint refused the key: the program is stopped at once. */
  | { type: "auth_error"; status: number; message: string };

/**
 * A coding-agent program meshflow can hand a step to: how to find it, start it with its own tools
 * off and meshflow's step server as its only MCP server, and read its event stream. One file per
 * adapter and one entry in `HARNESSES`.
 */
export interface HarnessAdapter {
  /** The name `--harness` and the PRD's `harness` use. */
  readonly name: string;
  /** The npm package that installs the program (named when it is missing). */
  readonly packageName: string;
  /** The program's name in `node_modules/.bin` and on `PATH`. */
  readonly program: string;
  /** The model providers it can think with (`--model <provider>:…`). */
  readonly providers: readonly string[];
  /** The variables it reads for a key when meshflow passes none, for docs and messages. */
  readonly keyVariables: readonly string[];
  /** The argv, environment and files that start it for one step. */
  command(launch: HarnessLaunch): HarnessCommand;
  /** Reads one line of its stdout; lines it does not know are ignored. */
  parse(line: string): HarnessEvent[];
}
