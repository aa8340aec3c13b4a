import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatIssues } from '../../config/zod-errors.js';
import { UserError } from '../../util/errors.js';

/** The parts of a Claw-Eval `task.yaml` (their pydantic `TaskDefinition`) the importer reads; the rest is left to their grader. */
const ServiceSchema = z.looseObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/i, 'a service name must be a host name'),
  command: z.string().min(1),
  port: z.number().int().positive(),
  reset_endpoint: z.string().optional(),
  env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});

const TaskSchema = z.looseObject({
  task_id: z.string().min(1),
  task_name: z.string().default(''),
  category: z.string().default(''),
  prompt: z.looseObject({ text: z.string(), language: z.string().default('zh'), attachments: z.array(z.string()).default([]) }),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().default(''), input_schema: z.unknown().optional() })).default([]),
  tool_endpoints: z.array(z.looseObject({ tool_name: z.string(), url: z.string(), method: z.string().default('POST') })).default([]),
  services: z.array(ServiceSchema).nullable().default([]),
  environment: z.looseObject({ timeout_seconds: z.number().positive().default(300) }).default({ timeout_seconds: 300 }),
  user_agent: z.looseObject({ enabled: z.boolean().default(false) }).default({ enabled: false }),
  sandbox_files: z.array(z.string()).nullable().default([]),
  sandbox_grader_files: z.array(z.string()).nullable().default([]),
  env_snapshot_files: z.array(z.string()).nullable().default([]),
  env_snapshot_commands: z.array(z.string()).nullable().default([]),
});

export type ClawEvalTask = z.infer<typeof TaskSchema>;
export type ClawEvalService = z.infer<typeof ServiceSchema>;

export function parseClawEvalTask(text: string, file: string): ClawEvalTask {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new UserError(`${file}: invalid YAML: ${(err as Error).message}`);
  }
  const parsed = TaskSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new UserError(formatIssues(file, parsed.error));
  return parsed.data;
}
