import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** `from './x.js'`, `import './x.js'` and `import('./x.js')` with a relative specifier, in compiled ES modules. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/**
 * The compiled modules `entries` need, themselves included: every file reached by following
 * relative imports from them, as paths relative to `root`. An image that runs part of the project
 * (the browser env server) copies exactly these, so a module it imports from elsewhere in the
 * project (a shared util) comes along instead of failing at start inside the container.
 */
export function moduleClosure(root: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = entries.map((entry) => path.resolve(root, entry));
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    if (!existsSync(file)) throw new Error(`${path.relative(root, file)} is imported but missing from ${root}: run \`npm run build\``);
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const target = path.resolve(path.dirname(file), match[2] as string);
      if (!target.startsWith(root + path.sep)) throw new Error(`${path.relative(root, file)} imports ${match[2]}, outside ${root}`);
      pending.push(target);
    }
  }
  return [...seen].map((file) => path.relative(root, file)).sort();
}
