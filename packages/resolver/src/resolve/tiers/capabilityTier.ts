import type { Tier } from "./Tier.js";

/** Tier 4: the capability the name suggests (with or without a prefix), when one tool has it. */
export const capabilityTier: Tier = {
  name: "capability",
  resolve(q) {
    const { capabilities, name } = q;
    if (!capabilities) return undefined;
    let ids = capabilities.capabilitiesOfName(name);
    if (!ids.length)
      for (const prefix of q.pack.prefixes)
        if (name.startsWith(prefix) && name.length > prefix.length) {
          ids = capabilities.capabilitiesOfName(name.slice(prefix.length));
          if (ids.length) break;
        }
    if (!ids.length) return undefined;
    const sets = ids.map((id) => q.index.withCapability(capabilities, id));
    // Tools with every capability the name suggests; when none has all, any of them.
    const first = sets[0] ?? [];
    let tools = first.filter((tool) => sets.every((set) => set.includes(tool)));
    if (!tools.length) tools = [...new Set(sets.flat())];
    if (tools.length > 1)
      q.ambiguous("capability", tools, `${tools.length} tools have the capability ${ids.join(" + ")}`);
    const tool = tools[0];
    return tool && { tool, via: `capability ${ids.join(" + ")}` };
  },
};
