// Public API of @meshflow/workspace-server: filled in by its issue.
export {};
