/** Attribute values meshflow puts on spans. */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;
