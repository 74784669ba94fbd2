#!/usr/bin/env node
// The `casefile` command. Runs the TypeScript CLI through tsx's loader, so the same source
// serves development, tests and the installed package without a separate build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
