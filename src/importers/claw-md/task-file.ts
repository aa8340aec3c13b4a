import { parse as parseYaml } from 'yaml';
import { UserError } from '../../util/errors.js';

/** One task of PinchBench or QwenClawBench: a markdown file with YAML front matter and `## ` sections. */
export interface ClawMdTask {
  id: string;
  name: string;
  gradingType: 'automated' | 'llm_judge' | 'hybrid';
  timeoutSeconds?: number;
  /** Files the workspace starts with: inline content, or an asset of the checkout. */
  workspaceFiles: ({ path: string; content: string } | { source: string; dest: string })[];
  /** As the task writes them; keys the runner does not know are kept, and it ignores them. */
  gradingWeights?: Record<string, unknown>;
  multiSession: boolean;
  externalDependency?: string;
  inputModality?: string;
  sections: Record<string, string>;
}

/** Reads a task file the way the benchmarks' runner does (`lib_tasks.py`): front matter, then sections split on `## `. */
export function parseClawMdTask(text: string, file: string): ClawMdTask {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!m) throw new UserError(`${file}: no YAML front matter (--- … ---)`, 'a PinchBench/QwenClawBench task file starts with its front matter');
  const meta = (parseYaml(m[1]!) ?? {}) as Record<string, unknown>;
  const id = typeof meta.id === 'string' ? meta.id : undefined;
  const gradingType = meta.grading_type;
  if (!id) throw new UserError(`${file}: the front matter has no id`);
  if (gradingType !== 'automated' && gradingType !== 'llm_judge' && gradingType !== 'hybrid') {
    throw new UserError(`${file}: grading_type ${JSON.stringify(gradingType)} is none of automated, llm_judge, hybrid`);
  }
  const sections: Record<string, string> = {};
  for (const part of m[2]!.split(/^## /m).slice(1)) {
    const nl = part.indexOf('\n');
    sections[part.slice(0, nl).trim()] = part.slice(nl + 1).trim();
  }
  const files = Array.isArray(meta.workspace_files) ? (meta.workspace_files as Record<string, unknown>[]) : [];
  return {
    id,
    name: typeof meta.name === 'string' ? meta.name : id,
    gradingType,
    timeoutSeconds: typeof meta.timeout_seconds === 'number' ? meta.timeout_seconds : undefined,
    workspaceFiles: files.map((f) =>
      typeof f.content === 'string' && typeof f.path === 'string'
        ? { path: f.path, content: f.content }
        : { source: String(f.source), dest: String(f.dest ?? f.source) },
    ),
    gradingWeights: typeof meta.grading_weights === 'object' && meta.grading_weights !== null ? (meta.grading_weights as Record<string, unknown>) : undefined,
    multiSession: meta.multi_session === true,
    externalDependency: typeof meta.external_dependency === 'string' ? meta.external_dependency : undefined,
    inputModality: typeof meta.input_modality === 'string' ? meta.input_modality : undefined,
    sections,
  };
}

/** The `## Automated Checks` code as the runner extracts it: the first ```python block. */
export function automatedChecks(task: ClawMdTask): string | undefined {
  const block = /```python\s*\n([\s\S]*?)\n\s*```/.exec(task.sections['Automated Checks'] ?? '');
  return block?.[1];
}
