import type { ToolDescriptor } from "@meshflow/core";
import type { Tier } from "./Tier.js";

/** Tier 3: a configured domain prefix stripped, with a warning asking for an alias entry. */
export const prefixTier: Tier = {
  name: "prefix",
  resolve(q) {
    const { name } = q;
    let hit: { tool: ToolDescriptor; prefix: string } | undefined;
    const tied: ToolDescriptor[] = [];
    for (const prefix of q.pack.prefixes) {
      if (!name.startsWith(prefix) || name.length === prefix.length) continue;
      const stripped = name.slice(prefix.length);
      const tool = q.single(q.index.lookup(stripped), "prefix", `"${stripped}" after stripping "${prefix}"`);
      if (!tool) continue;
      if (!hit) hit = { tool, prefix };
      else if (hit.tool !== tool && !tied.includes(tool)) tied.push(tool);
    }
    if (!hit) return undefined;
    if (tied.length) q.ambiguous("prefix", [hit.tool, ...tied], "different prefixes strip to different tools");
    const bare = name.slice(hit.prefix.length);
    q.warnings.push(
      q.warn({
        kind: "prefix_strip",
        prefix: hit.prefix,
        qualifiedName: hit.tool.qualifiedName,
        message:
          `"${name}" resolved to ${hit.tool.qualifiedName} by stripping the prefix "${hit.prefix}"; ` +
          `add an alias entry "${name}: ${bare}"${q.specialist ? ` to the ${q.specialist} alias map` : ""}`,
      }),
    );
    return { tool: hit.tool, via: `prefix "${hit.prefix}"` };
  },
};
