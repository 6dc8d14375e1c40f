#!/usr/bin/env node
// The `reseal` CLI. Registers tsx so the TypeScript sources run as they are, from a clone after
// `npm ci`, without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main();
