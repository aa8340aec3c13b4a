import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadRunConfig, resolveRunConfig } from '../../config/run.js';
import { toInt, toPort } from '../to-int.js';
import { DEFAULT_ALLOWED_UPSTREAMS, serviceToken, tasksRoots, type ServiceAccess } from '../../service/access.js';

interface ServeOptions {
  port: number;
  host: string;
  config?: string;
  output: string;
  concurrency?: number;
  extraCa?: string;
  tokenFile?: string;
  tasksRoot?: string[];
  allowUpstream?: string[];
  fresh?: boolean;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the rollout API for online RL (POST /v1/rollouts, GET /v1/rollouts/:id, POST /v1/proxy/pause|resume)')
    .option('-p, --port <n>', 'port (0: any free one, printed once listening)', toPort, 8700)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--config <run.yaml>', 'timeouts, resources, network, concurrency and retries for every rollout (its tasks/model keys are ignored)')
    .option('-o, --output <dir>', 'where the store and artifacts go', 'runs/service')
    .option('-c, --concurrency <n>', 'rollouts at once', toInt)
    .option('--extra-ca <file>', 'PEM bundle passed into image builds that fetch over https')
    .option(
      '--token-file <file>',
      'the bearer token every route but /health needs (its first line); without it one is generated, printed and written to <output>/service-token',
    )
    .option(
      '--tasks-root <dir>',
      "a folder requests' tasks must lie in (repeatable); without it only the --config's own tasks are allowed",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--allow-upstream <pattern>',
      `an upstream requests may name, * matching anything (repeatable; default: ${DEFAULT_ALLOWED_UPSTREAMS.join(' ')})`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--fresh', 'start a new service run even when the store holds one a killed service left (by default that one carries on)')
    .action(async (opts: ServeOptions) => {
      // loaded on use: `--help` needs none of it
      const [{ buildServiceApp }, { RolloutService }, { samplesForService }] = await Promise.all([
        import('../../service/server.js'),
        import('../../service/rollout-service.js'),
        import('../../service/samples.js'),
      ]);
      const loaded = opts.config
        ? loadRunConfig(opts.config, { concurrency: opts.concurrency })
        : resolveRunConfig({ tasks: '.', ...(opts.concurrency ? { concurrency: opts.concurrency } : {}) }, path.resolve('serve.yaml'));
      const { token, generated } = serviceToken(opts.tokenFile);
      const access: ServiceAccess = {
        token,
        tasksRoots: tasksRoots(opts.tasksRoot ?? (opts.config ? loaded.taskPaths : [])),
        allowUpstream: opts.allowUpstream ?? DEFAULT_ALLOWED_UPSTREAMS,
      };
      const service = await RolloutService.start({
        outputDir: path.resolve(opts.output),
        base: loaded.config,
        extraCaFile: opts.extraCa ?? process.env.OPENFORGE_EXTRA_CA,
        samples: samplesForService,
        fresh: opts.fresh,
      });
      const app = buildServiceApp(service, access);
      await app.listen({ host: opts.host, port: opts.port });
      const bound = app.server.address();
      const port = bound && typeof bound === 'object' ? bound.port : opts.port;
      process.stderr.write(
        `openforge serve: http://${opts.host}:${port} (run ${service.runId}, store ${path.resolve(opts.output)}) · API: GET /openapi.json · Prometheus: GET /metrics\n`,
      );
      if (generated) {
        const file = path.join(path.resolve(opts.output), 'service-token');
        writeFileSync(file, `${token}\n`, { mode: 0o600 });
        process.stderr.write(`openforge serve: token ${token} (also in ${file}); every route but /health needs Authorization: Bearer <token>\n`);
      }
      const { started } = service;
      if (started.resumed) {
        process.stderr.write(
          `openforge serve: carrying on run ${service.runId} a killed service left: ${started.ended} ended rollouts answered from the store, ${started.queued} queued, ${started.rerun} run again\n`,
        );
      }
      let closing = false;
      const shutdown = async () => {
        if (closing) process.exit(130);
        closing = true;
        await app.close();
        await service.close();
        process.exit(0);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    });
}
