/**
 * The base images a task's Dockerfile names that are neither the project's (`openforge/...`, resolved to
 * their current tags elsewhere) nor an earlier stage of the same file, nor `scratch`: e.g. Terminal-Bench's
 * `python:3.13-slim-bookworm` or `ubuntu:24.04`. A reference built from an ARG (`FROM ${BASE}`) is left alone.
 */
const FROM_LINE = /^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(\s+AS\s+(\S+))?(\s*)$/gim;

export function externalBases(dockerfile: string): string[] {
  const stages = new Set<string>();
  const found: string[] = [];
  for (const m of dockerfile.matchAll(FROM_LINE)) {
    const ref = m[3]!;
    if (isExternal(ref, stages) && !found.includes(ref)) found.push(ref);
    if (m[5]) stages.add(m[5].toLowerCase());
  }
  return found;
}

/** The Dockerfile with each external base in `replace` swapped for its replacement (stage names kept). */
export function replaceBases(dockerfile: string, replace: ReadonlyMap<string, string>): string {
  const stages = new Set<string>();
  return dockerfile.replace(
    FROM_LINE,
    (line: string, from: string, flags: string, ref: string, as: string | undefined, stage: string | undefined, end: string) => {
      const swapped = isExternal(ref, stages) ? replace.get(ref) : undefined;
      if (stage) stages.add(stage.toLowerCase());
      return swapped ? `${from}${flags}${swapped}${as ?? ''}${end}` : line;
    },
  );
}

function isExternal(ref: string, stages: ReadonlySet<string>): boolean {
  return !ref.includes('$') && ref.toLowerCase() !== 'scratch' && !stages.has(ref.toLowerCase()) && !/^openforge\//.test(ref);
}
