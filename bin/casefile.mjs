#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node
// The `casefile` command. Runs the TypeScript CLI through tsx's loader, so the same source
// serves development, tests and the installed package without a separate build step.
//
// MALLOC_ARENA_MAX=2 (read by glibc once, when the process starts, so it is set in the line
// above): glibc otherwise gives each thread that contends for memory an arena of its own, up to
// eight per core, and gives little of it back: under LanceDB's writer threads the engine grew by
// half during an ingest's embedding stage (bench/RESULTS.md, "Figures behind choices in the
// code"). `env -S` runs node in place (same process); npm's Windows
// shims read the same line; other C libraries ignore the variable.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
