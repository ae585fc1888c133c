import { redactServerConfig } from "./loadMcpConfig.js";
import type { McpServerConfig } from "./McpConfigSchema.js";

/** Shorter values are not scrubbed from free text: they would mangle it and are not credentials. */
const MIN_SECRET_LENGTH = 4;

/**
 * The values of a server config that may be secret: env and header values, args or a URL whose
 * `${VAR}` expansion differs from what the file says, and every value a `${VAR}` reference took (so
 * `--key=${KEY}` masks the key alone too, wherever a server or an error repeats it).
 */
export function secretValues(config: McpServerConfig): string[] {
  const values: string[] = [...(config.expandedValues ?? [])];
  if (config.transport === "stdio") {
    values.push(...Object.values(config.env));
    config.args.forEach((arg, i) => {
      if (arg !== config.argsAsWritten[i]) values.push(arg);
    });
  } else {
    values.push(...Object.values(config.headers));
    for (const header of Object.values(config.headers)) {
      // "Bearer <token>": the token alone may also appear in text.
      const space = header.indexOf(" ");
      if (space > 0) values.push(header.slice(space + 1));
    }
    if (config.url !== config.urlAsWritten) values.push(config.url);
  }
  return [...new Set(values.filter((v) => v.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/**
 * The secret values of every server of a config, longest first (so a value that contains another is
 * masked whole): what meshflow masks wherever outside text enters it.
 */
export function configSecrets(configs: Iterable<McpServerConfig>): string[] {
  const all = new Set<string>();
  for (const config of configs) for (const value of secretValues(config)) all.add(value);
  return [...all].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a secret value in `text` by `***`. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("***");
  return out;
}

/**
 * A JSON-like value with every secret value scrubbed from its strings (keys too). The value itself
 * is returned when no string holds a secret (the common case costs one serialisation, no copy).
 */
export function scrubValue<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length || value === undefined) return value;
  const text = JSON.stringify(value);
  if (!secrets.some((secret) => text.includes(secret))) return value;
  // A secret's JSON form can differ from its text (quotes, backslashes): mask that form in the text.
  let out = text;
  for (const secret of secrets) {
    const encoded = JSON.stringify(secret).slice(1, -1);
    if (out.includes(encoded)) out = out.split(encoded).join("***");
  }
  return JSON.parse(out) as T;
}

/** How a server is started or reached, as the config file writes it (no expanded secrets). */
export function describeEndpoint(config: McpServerConfig): string {
  const safe = redactServerConfig(config);
  if (safe.transport === "http") return safe.url;
  return [safe.command, ...safe.args].join(" ");
}
