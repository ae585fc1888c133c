import { Option } from "@commander-js/extra-typings";
import type { QueuedStatusOptions } from "../commands/queuedStatus.js";
import type { StatusOptions } from "../commands/status.js";
import {
  EXIT_CODES_HELP,
  flags,
  type Registrar,
  redisClusterOption,
  redisPrefixOption,
  storeOption,
} from "./shared.js";

/** `flow status [runId]`. */
export const registerStatus: Registrar = (program, { output, setExit }) => {
  program
    .command("status")
    .description("show a run: stories, steps, tool calls and refusals (default: the latest run)")
    .argument(
      "[runId]",
      "the run (see flow runs), or a folder of PRDs; with --redis, a queued run (default: every recent one)",
    )
    .addOption(storeOption())
    .addOption(
      new Option(
        "--redis <url>",
        "show queued runs from this Redis instead of the local run store (a cluster: redis+cluster://host:port,…)",
      ),
    )
    .addOption(redisClusterOption(false))
    .addOption(redisPrefixOption())
    .option(
      "--json",
      'print {"run", "stories": [{"id", "status", "steps"}]}; with --redis and no runId {"queues", "runs"}; for a folder {"folder", "prds": [{"prd", "passed", "pending", "failed", "blocked", "progress"}]}',
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .addHelpText(
      "after",
      "\nflow status <folder>: one line per PRD of the folder (✓ passed ○ pending ✗ failed ⊘ blocked) and its last three progress entries.",
    )
    .action(async (runId: string | undefined, options) => {
      const { isPrdFolder } = await import("@meshflow/core");
      if (runId && isPrdFolder(runId)) {
        const { prdStatusCommand } = await import("../commands/prdStatus.js");
        setExit(await prdStatusCommand(runId, options, output));
        return;
      }
      if (options.redis) {
        const { queuedStatusCommand } = await import("../commands/queuedStatus.js");
        setExit(
          await queuedStatusCommand(runId, flags<QueuedStatusOptions>()({ ...options, redis: options.redis }), output),
        );
        return;
      }
      const { statusCommand } = await import("../commands/status.js");
      setExit(await statusCommand(runId, flags<StatusOptions>()(options), output));
    });
};
