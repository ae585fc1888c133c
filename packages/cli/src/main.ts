import { Command, CommanderError, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { EXIT, type ExitCode, exitCodeFor } from "./exitCodes.js";
import { type Output, processOutput } from "./output.js";
import { registerApprove } from "./register/approve.js";
import { registerConsole } from "./register/console.js";
import { registerDashboard } from "./register/dashboard.js";
import { registerDiagnose } from "./register/diagnose.js";
import { registerDocs } from "./register/docs.js";
import { registerEnqueue } from "./register/enqueue.js";
import { registerExport } from "./register/export.js";
import { registerInit } from "./register/init.js";
import { registerMark } from "./register/mark.js";
import { registerNew } from "./register/new.js";
import { registerPlan } from "./register/plan.js";
import { registerPrd } from "./register/prd.js";
import { registerReset } from "./register/reset.js";
import { registerResume } from "./register/resume.js";
import { registerRun } from "./register/run.js";
import { registerRuns } from "./register/runs.js";
import { registerServe } from "./register/serve.js";
import {
  applyMaxMessageBytes,
  applyPrdLimits,
  applyRedisCluster,
  EXIT_CODES_HELP,
  type Registrar,
} from "./register/shared.js";
import { registerStatus } from "./register/status.js";
import { registerTools } from "./register/tools.js";
import { registerValidate } from "./register/validate.js";
import { registerWorker } from "./register/worker.js";
import { registerWorkspaceServer } from "./register/workspaceServer.js";
import { flushTracing } from "./tracing.js";
import { cliVersion } from "./version.js";

/** Every command, in the order `flow --help` lists them. */
const REGISTRARS: readonly Registrar[] = [
  registerInit,
  registerValidate,
  registerPlan,
  registerPrd,
  registerRun,
  registerResume,
  registerApprove,
  registerReset,
  registerMark,
  registerStatus,
  registerRuns,
  registerEnqueue,
  registerWorker,
  registerDashboard,
  registerConsole,
  registerTools,
  registerDiagnose,
  registerExport,
  registerDocs,
  registerServe,
  registerWorkspaceServer,
  registerNew,
];

/** Builds the `flow` program. Command implementations are imported lazily so `flow --help` stays fast. */
export function buildProgram(output: Output, setExit: (code: ExitCode) => void): Command {
  const program = new Command("flow")
    .description("meshflow: route PRD story steps to specialist agents over MCP tools")
    .version(cliVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", EXIT_CODES_HELP)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: (s) => output.out(s), writeErr: (s) => output.err(s) })
    .hook("preAction", (_program, action) => {
      applyRedisCluster(action);
      applyMaxMessageBytes(action);
      applyPrdLimits(action);
    });

  for (const register of REGISTRARS) register(program, { output, setExit });
  const inherit = (command: CommandUnknownOpts): void => {
    for (const sub of command.commands) {
      sub.exitOverride().configureOutput(program.configureOutput());
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** Runs `flow` with `argv` (as in `process.argv`) and resolves to its exit code. Never calls `process.exit`. */
export async function main(argv: readonly string[], output: Output = processOutput): Promise<ExitCode> {
  let code: ExitCode = EXIT.ok;
  const program = buildProgram(output, (c) => {
    code = c;
  });
  if (argv.length <= 2) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      const quiet = ["commander.helpDisplayed", "commander.help", "commander.version"];
      return quiet.includes(error.code) ? EXIT.ok : EXIT.usage;
    }
    // Not all of core: an early refusal is printed without loading zod and the rest.
    const { toMeshflowError } = await import("@meshflow/core/startup");
    const failure = toMeshflowError(error);
    if (argv.includes("--json"))
      output.out(JSON.stringify({ error: { code: failure.code, message: failure.message } }, null, 2));
    output.err(`flow: ${failure.message}`);
    if (failure.code === "internal" && error instanceof Error && error.stack && process.env.FLOW_DEBUG)
      output.err(error.stack);
    return exitCodeFor(failure.code);
  } finally {
    // Spans still buffered are exported before `flow` exits (nothing to do when traces are off).
    await flushTracing();
  }
}
