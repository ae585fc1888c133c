import { Option } from "@commander-js/extra-typings";
import type { DashboardCommandOptions } from "../commands/dashboard.js";
import {
  EXIT_CODES_HELP,
  flags,
  positiveInt,
  type Registrar,
  redisClusterOption,
  redisOption,
  redisPrefixOption,
} from "./shared.js";

/** `flow dashboard`. */
export const registerDashboard: Registrar = (program, { output, setExit }) => {
  program
    .command("dashboard")
    .description("serve Bull Board for meshflow's queues on 127.0.0.1 until Ctrl-C")
    .addOption(redisOption())
    .addOption(redisClusterOption())
    .addOption(redisPrefixOption())
    .addOption(new Option("--port <port>", "TCP port on 127.0.0.1").argParser(positiveInt("--port")).default(3000))
    .option("--read-only", "no retry, remove or promote buttons")
    .addHelpText("after", `\nLoopback only: reach it from elsewhere through an SSH tunnel.\n${EXIT_CODES_HELP}`)
    .action(async (options) => {
      const { dashboardCommand } = await import("../commands/dashboard.js");
      setExit(await dashboardCommand(flags<DashboardCommandOptions>()(options), output));
    });
};
