import { MeshflowError } from "@meshflow/core";

/** How a client is served: see {@link detectClient}. */
export type ClientMode = "dynamic" | "static" | "anthropic";

/** Every client mode, for validation and help texts. */
export const CLIENT_MODES: readonly ClientMode[] = ["dynamic", "static", "anthropic"];

/** What is known about a kind of client, by the name it sends in `clientInfo.name`. */
export interface ClientProfile {
  mode: ClientMode;
  /** The client shows `destructiveHint` tools to its user for approval: no confirmation token needed. */
  annotationAware: boolean;
}

/**
 * Known clients by `clientInfo.name`. A name matches an entry when it equals it or starts with it
 * followed by `-`, `_`, `.` or a space (`cursor-vscode` is `cursor`). Search-based Anthropic
 * clients get rich descriptions; clients that follow `tools/list_changed` get the meta-tools; the
 * rest keep the tools they started with. Only clients that ask their user before a destructive tool
 * are annotation-aware.
 */
const KNOWN_CLIENTS: Readonly<Record<string, ClientProfile>> = {
  "claude-code": { mode: "anthropic", annotationAware: true },
  "claude-desktop": { mode: "anthropic", annotationAware: true },
  "claude-ai": { mode: "anthropic", annotationAware: true },
  "roo-code": { mode: "dynamic", annotationAware: true },
  cline: { mode: "dynamic", annotationAware: false },
  antigravity: { mode: "dynamic", annotationAware: false },
  "gemini-cli": { mode: "dynamic", annotationAware: false },
  cursor: { mode: "static", annotationAware: false },
  windsurf: { mode: "static", annotationAware: false },
};

/** The parts of an `initialize` request that detection reads (as received, before any schema strips fields). */
export interface ClientHello {
  clientInfo?: { name?: unknown; version?: unknown };
  capabilities?: unknown;
}

/** Where a detected mode came from. */
export type ModeSource = "env" | "client-name" | "capability" | "default";

/** The outcome of {@link detectClient}. */
export interface DetectedClient {
  /** `clientInfo.name` lowercased, or `"unknown"`. */
  name: string;
  version: string;
  mode: ClientMode;
  annotationAware: boolean;
  source: ModeSource;
  /** The key of {@link KNOWN_CLIENTS} (or of the overrides) that matched, if any. */
  profile?: string;
}

/** Options of {@link detectClient}. */
export interface DetectOptions {
  /** `FLOW_CLIENT_MODE`: forces the mode (annotation awareness still comes from the client's name). */
  modeOverride?: ClientMode;
  /** Extra or replaced profiles (from toolset-config.json `clients`), consulted before {@link KNOWN_CLIENTS}. */
  profiles?: Readonly<Record<string, Partial<ClientProfile>>>;
}

/** Parses `FLOW_CLIENT_MODE`; an unknown value is a usage error naming the allowed ones. */
export function parseClientMode(value: string | undefined, source = "FLOW_CLIENT_MODE"): ClientMode | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const mode = value.trim().toLowerCase();
  if ((CLIENT_MODES as readonly string[]).includes(mode)) return mode as ClientMode;
  throw new MeshflowError("usage", `${source}: unknown client mode "${value}"; expected ${CLIENT_MODES.join(", ")}`);
}

/** True when a (lowercased) client name is `key` or starts with `key` and a separator (`cursor-vscode` is `cursor`). */
export function clientNameMatches(name: string, key: string): boolean {
  if (name === key) return true;
  return name.startsWith(key) && /[-_. ]/.test(name.charAt(key.length));
}

/** The longest key of `table` that `name` matches (so `claude-code` beats `claude`). */
function findProfile<T>(table: Readonly<Record<string, T>>, name: string): [string, T] | undefined {
  let best: [string, T] | undefined;
  for (const [key, profile] of Object.entries(table)) {
    const k = key.toLowerCase();
    if (clientNameMatches(name, k) && (!best || k.length > best[0].length)) best = [k, profile];
  }
  return best;
}

/** True when the client declared `capabilities.tools.listChanged: true` (a non-standard but used signal). */
function declaresListChanged(capabilities: unknown): boolean {
  if (typeof capabilities !== "object" || capabilities === null) return false;
  const tools = (capabilities as { tools?: unknown }).tools;
  return typeof tools === "object" && tools !== null && (tools as { listChanged?: unknown }).listChanged === true;
}

/**
 * Picks how to serve a client from its `initialize` request: `FLOW_CLIENT_MODE` if set; else the
 * profile of its `clientInfo.name`; else `dynamic` when it declares `tools.listChanged`; else
 * `static`, the safe default that respects tool limits. Unknown clients are not annotation-aware,
 * so destructive tools ask them for a confirmation token.
 */
export function detectClient(hello: ClientHello, options: DetectOptions = {}): DetectedClient {
  const rawName = hello.clientInfo?.name;
  const name = typeof rawName === "string" && rawName.trim() ? rawName.trim().toLowerCase() : "unknown";
  const rawVersion = hello.clientInfo?.version;
  const version = typeof rawVersion === "string" ? rawVersion : "";
  const override = options.profiles ? findProfile(options.profiles, name) : undefined;
  const known = findProfile(KNOWN_CLIENTS, name);
  const profileMode = override?.[1].mode ?? known?.[1].mode;
  const annotationAware = override?.[1].annotationAware ?? known?.[1].annotationAware ?? false;
  const profile = override?.[0] ?? known?.[0];
  const base = { name, version, annotationAware, ...(profile !== undefined ? { profile } : {}) };
  if (options.modeOverride) return { ...base, mode: options.modeOverride, source: "env" };
  if (profileMode) return { ...base, mode: profileMode, source: "client-name" };
  if (declaresListChanged(hello.capabilities)) return { ...base, mode: "dynamic", source: "capability" };
  return { ...base, mode: "static", source: "default" };
}
