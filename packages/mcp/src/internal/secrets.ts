// The masking of the MCP config's secret values lives in core, where outside text enters meshflow.
export { describeEndpoint, scrubText, scrubValue, secretValues } from "@meshflow/core";
