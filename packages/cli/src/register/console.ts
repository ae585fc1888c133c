import { Option } from "commander";
import {
  agentsOption,
  classificationOptions,
  EXIT_CODES_HELP,
  mcpConfigOption,
  nonNegativeInt,
  type Registrar,
  routingOption,
  storeOption,
} from "./shared.js";

/** `flow console`: the web console of runs, queue, tools, coverage and health. */
export const registerConsole: Registrar = (program, { output, setExit }) => {
  const command = program
    .command("console")
    .description("serve the web console (runs, queue, tools, coverage, health) until Ctrl-C")
    .addOption(
      new Option("--port <port>", "TCP port (0 picks a free one)").argParser(nonNegativeInt("--port")).default(4100),
    )
    .addOption(
      new Option("--host <host>", "address to bind; beyond loopback FLOW_SERVE_TOKEN is required").default("127.0.0.1"),
    )
    .addOption(storeOption())
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(
      new Option("--bull-board <url>", "Bull Board's address (flow dashboard), linked from the Queue page").default(
        "http://127.0.0.1:3000/",
      ),
    )
    .option("--json", "print {url} as JSON on stdout once listening");
  classificationOptions(command)
    .addHelpText(
      "after",
      `
--redis (or FLOW_REDIS_URL) adds the Queue page; without it the page says how to enable it.
--skills decides where tool capability overrides are written: <skills>/capability-overrides.yaml
(default ./skills/capability-overrides.yaml).

Environment:
  FLOW_SERVE_TOKEN   bearer token every request must carry (Authorization: Bearer <token>, or open
                     /?token=<token> once in the browser); without it only a loopback --host is
                     allowed; beyond loopback it needs at least 16 non-space characters

JSON API: GET /api/runs, /api/runs/<id>, /api/stream (server-sent events), /api/queue, /api/tools,
/api/coverage, /api/health; PUT /api/tools/<tool>/capabilities; POST /api/runs/<id>/resume,
/api/guard/stop, /api/guard/unlock (docs/console-api.md).
${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { consoleCommand } = await import("../commands/console.js");
      setExit(await consoleCommand(options, output));
    });
};
