// Public API of @meshflow/gateway: filled in by its issue.
export {};
