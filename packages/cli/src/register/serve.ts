import { Option } from "@commander-js/extra-typings";
import type { ServeCommandOptions } from "../commands/serve.js";
import { modelOptions } from "./modelOptions.js";
import {
  agentsOption,
  callsPerMinuteOption,
  EXIT_CODES_HELP,
  flags,
  maxMessageBytesOption,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  positiveInt,
  type Registrar,
  routingOption,
  skillsOption,
  storeOption,
} from "./shared.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `flow serve --stdio | --http <host:port>`. */
export const registerServe: Registrar = (program, { output, setExit }) => {
  const serve = program
    .command("serve")
    .description("serve meshflow and the MCP config's servers to MCP clients (IDEs, agents) over stdio or HTTP")
    .option("--stdio", "serve one client on stdin/stdout (the default)")
    .option("--http <host:port>", "serve Streamable HTTP at http://<host:port>/mcp (port alone: 127.0.0.1)")
    .option("--toolsets <names>", "toolsets to load, comma-separated, or all (core and discovery always load)")
    .addOption(
      new Option("--toolset-config <file>", "toolset-config.json: defaultToolsets, clientOverrides, clients").env(
        "FLOW_TOOLSET_CONFIG",
      ),
    )
    .addOption(callsPerMinuteOption("the gateway's guard (its clients' calls and its runs' calls)"))
    .option("--allowed-host <name>", "another hostname clients may use in Host/Origin (repeatable)", collect)
    .addOption(
      new Option(
        "--max-sessions <n>",
        "HTTP sessions open at once; a new client past it closes the one idle the longest",
      )
        .argParser(positiveInt("--max-sessions"))
        .default(100),
    )
    .addOption(
      new Option("--session-idle <minutes>", "an HTTP session without requests for this long is closed")
        .argParser(positiveInt("--session-idle"))
        .default(30),
    )
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(storeOption())
    .addOption(maxMessageBytesOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addOption(skillsOption());
  modelOptions(serve)
    .addHelpText(
      "after",
      `
Environment:
  FLOW_SERVE_TOKEN   bearer token every HTTP request must send (Authorization: Bearer <token>);
                     without it --http only binds a loopback address; a non-loopback address
                     needs one of at least 16 non-space characters (exit 2 otherwise; on
                     loopback a shorter one gets a warning), e.g. openssl rand -hex 24
  FLOW_CLIENT_MODE   dynamic | static | anthropic: overrides the mode detected from the client
  FLOW_TOOLSET_CONFIG  default for --toolset-config (else ./toolset-config.json when present)

flow_run_prd and flow_plan take PRD files inside the working folder; runs land in --store like flow run's.
stdout carries MCP messages only (stdio); status lines go to stderr.
Example .mcp.json entry of a client:
  "meshflow": { "command": "npx", "args": ["flow", "serve", "--stdio", "--toolsets", "filesystem"] }
${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { serveCommand } = await import("../commands/serve.js");
      setExit(await serveCommand(flags<ServeCommandOptions>()(options), output));
    });
};
