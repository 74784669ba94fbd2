import { sweepLanceTemp } from './lancedb-temp';

// Imported before @lancedb/lancedb: its Rust logger reads LANCEDB_LOG once. Keep its internal
// warnings off the CLI's stderr unless the user asks for them (LANCEDB_LOG=warn|info|debug).
process.env.LANCEDB_LOG ??= 'error';

/**
 * Once per process, when LanceDB is first loaded: the index-build folders an earlier process left
 * in the system temp folder (killed or timed out mid-build) go, in the background.
 */
void sweepLanceTemp().catch(() => []);
