import { aliasTier } from "./aliasTier.js";
import { capabilityTier } from "./capabilityTier.js";
import { exactTier } from "./exactTier.js";
import { prefixTier } from "./prefixTier.js";
import type { Tier } from "./Tier.js";

/** The resolution tiers, in the order they are tried: adding one is a file plus an entry here. */
export const TIERS: readonly Tier[] = [exactTier, aliasTier, prefixTier, capabilityTier];
