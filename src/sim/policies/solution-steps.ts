import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Task } from '../../config/task.js';

/** One tool call's worth of the reference solution. */
export interface SolutionStep {
  /** Text after `# step:` (empty when the marker has none, or the script has no markers). */
  label: string;
  /** The preamble (shebang, `set -euo pipefail`, …) followed by the step's lines. */
  command: string;
}

/** `# step`, `# step: fix the parser`, `# Step 2: build`; not `# steps` or `# stepping`. */
const STEP_MARKER = /^#\s*step(?=$|[\s:\d])(.*)$/i;

/**
 * Splits solve.sh at its `# step` lines. Each step runs in a fresh shell, so whatever comes
 * before the first marker is prepended to every step. A script without markers is one step.
 */
export function splitSolutionSteps(script: string): SolutionStep[] {
  const lines = script.split('\n');
  const markers = lines.flatMap((line, index) => (STEP_MARKER.test(line.replace(/\r$/, '')) ? [index] : []));
  if (markers.length === 0) {
    const whole = script.trimEnd();
    return whole.trim() ? [{ label: '', command: whole }] : [];
  }
  const preamble = lines.slice(0, markers[0]).join('\n').trimEnd();
  return markers.map((start, i) => {
    const body = lines
      .slice(start, markers[i + 1] ?? lines.length)
      .join('\n')
      .trimEnd();
    return { label: stepLabel(lines[start] as string), command: preamble ? `${preamble}\n${body}` : body };
  });
}

function stepLabel(markerLine: string): string {
  const rest = (STEP_MARKER.exec(markerLine.replace(/\r$/, ''))?.[1] ?? '').trim();
  const colon = rest.indexOf(':');
  return (colon >= 0 ? rest.slice(colon + 1) : rest).trim();
}

/** The task's reference solution as steps; undefined when the task has no solution/solve.sh. */
export function readSolutionSteps(task: Task): SolutionStep[] | undefined {
  if (!task.solutionDir) return undefined;
  return splitSolutionSteps(readFileSync(path.join(task.solutionDir, 'solve.sh'), 'utf8'));
}
