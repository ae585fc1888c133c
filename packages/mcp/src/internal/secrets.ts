import { type McpServerConfig, redactServerConfig } from "@meshflow/core";

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

/** Replaces every occurrence of a secret value in `text` by `***`. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("***");
  return out;
}

/** Deep copy of a JSON-like value with every secret value scrubbed from its strings. */
export function scrubValue<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrubText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** How a server is started or reached, as the config file writes it (no expanded secrets). */
export function describeEndpoint(config: McpServerConfig): string {
  const safe = redactServerConfig(config);
  if (safe.transport === "http") return safe.url;
  return [safe.command, ...safe.args].join(" ");
}
