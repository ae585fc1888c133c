// Public API of @meshflow/mcp: filled in by its issue.
export {};
