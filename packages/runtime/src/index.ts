// Public API of @meshflow/runtime: filled in by its issue.
export {};
