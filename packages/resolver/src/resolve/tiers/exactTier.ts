import type { Tier } from "./Tier.js";

/** Tier 1: the qualified name, or a bare name on exactly one server. */
export const exactTier: Tier = {
  name: "exact",
  resolve(q) {
    const tool = q.single(q.index.lookup(q.name), "exact", "the bare name is on several servers");
    return tool && { tool };
  },
};
