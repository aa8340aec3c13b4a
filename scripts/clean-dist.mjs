#!/usr/bin/env node
// Empties dist/ before tsc writes it, so a module that was moved or removed in src/ leaves no stale copy behind.
import { rmSync } from 'node:fs';
import path from 'node:path';

rmSync(path.resolve(import.meta.dirname, '../dist'), { recursive: true, force: true });
