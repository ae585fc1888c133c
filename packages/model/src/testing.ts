/** Test support of @meshflow/model: a scripted model server speaking real provider wire formats. */
export {};
