import type { Tier } from "./Tier.js";

/** Tier 2: the specialist's alias map (its own entries over the shared ones). */
export const aliasTier: Tier = {
  name: "alias",
  resolve(q) {
    const alias = q.pack.aliases.get(q.name);
    if (!alias) return undefined;
    const tool = q.single(q.index.lookup(alias.to), "alias", `alias target "${alias.to}" is on several servers`);
    if (tool) return { tool, via: `${alias.from} → ${alias.to} in ${alias.file}` };
    q.warnings.push(
      q.warn({
        kind: "alias_target_missing",
        message: `alias "${q.name}" → "${alias.to}" (${alias.file}) names a tool that is not in this repertoire`,
      }),
    );
    return undefined;
  },
};
