import { Option } from "@commander-js/extra-typings";
import type { QueuedStatusOptions } from "../commands/queuedStatus.js";
import type { StatusOptions } from "../commands/status.js";
import { EXIT_CODES_HELP, flags, type Registrar, redisClusterOption, redisPrefixOption, storeOption } from "./shared.js";

/** `flow status [runId]`. */
export const registerStatus: Registrar = (program, { output, setExit }) => {
  program
    .command("status")
    .description("show a run: stories, steps, tool calls and refusals (default: the latest run)")
    .argument("[runId]", "the run (see flow runs); with --redis, a queued run (default: every recent one)")
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
      'print {"run", "stories": [{"id", "status", "steps"}]}; with --redis and no runId {"queues", "runs"}',
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (runId: string | undefined, options) => {
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
