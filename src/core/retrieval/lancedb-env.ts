// Imported before @lancedb/lancedb: its Rust logger reads LANCEDB_LOG once. Keep its internal
// warnings off the CLI's stderr unless the user asks for them (LANCEDB_LOG=warn|info|debug).
process.env.LANCEDB_LOG ??= 'error';
export {};
