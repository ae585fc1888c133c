import path from "node:path";
import type { ToolDescriptor } from "./ToolDescriptor.js";

/**
 * The `_meta` key under which a tool that starts programs states the executables it allows, as an array
 * of strings (meshflow's workspace server does so on `run_command`). An entry is a bare name (matches
 * exactly that command) or a path with a `/` (relative to the server's root, or absolute).
 */
export const ALLOW_META_KEY = "meshflow/allow";

/**
 * The executables `tool` states it allows (its `_meta["meshflow/allow"]`), or undefined when it states
 * none or states something that is not an array of strings: such a tool is not judged.
 */
export function statedAllowlist(tool: Pick<ToolDescriptor, "meta">): readonly string[] | undefined {
  const stated = tool.meta?.[ALLOW_META_KEY];
  if (!Array.isArray(stated) || !stated.every((entry): entry is string => typeof entry === "string")) return undefined;
  return stated;
}

const hasSeparator = (name: string) => name.includes("/") || name.includes(path.sep);

/** A relative path that leads above the folder it is relative to. */
const climbs = (name: string) => {
  const normal = path.normalize(name);
  return !path.isAbsolute(name) && (normal === ".." || normal.startsWith(`..${path.sep}`));
};

/**
 * Whether a stated allowlist lets `executable` run, as the workspace server decides it: a bare name
 * matches an entry of exactly that name; a path matches an entry naming the same file. Undefined when
 * that cannot be told without the server's root (a relative path against an absolute entry, or a path
 * leading above the root).
 */
export function allowlistAllows(allow: readonly string[], executable: string): boolean | undefined {
  if (!hasSeparator(executable)) return allow.includes(executable);
  const paths = allow.filter(hasSeparator);
  const alike = (entry: string) => path.isAbsolute(entry) === path.isAbsolute(executable);
  if (paths.some((entry) => alike(entry) && path.normalize(entry) === path.normalize(executable))) return true;
  if (climbs(executable) || paths.some((entry) => climbs(entry) || !alike(entry))) return undefined;
  return false;
}
