import { harnessNames } from '../harness/registry.js';

const HOLD_PROPERTIES = {
  mode: { enum: ['refuse', 'hold'], default: 'refuse', description: 'refuse new model calls with 429, or hold them (connections open) until the resume' },
  max_hold_sec: { type: 'number', minimum: 1, maximum: 3600, default: 300, description: 'hold mode: how long one call may be held' },
};

/** OpenAPI 3.1 description of the rollout service, served at GET /openapi.json. */
export const OPENAPI = {
  openapi: '3.1.0',
  security: [{ bearer: [] }],
  info: {
    title: 'OpenForge rollout service',
    version: '0.1.0',
    description:
      'Online RL: a trainer submits rollouts of tasks against its own inference server, polls them for rewards and token-level samples, and pauses the recording proxies around weight updates.',
  },
  paths: {
    '/v1/rollouts': {
      post: {
        summary: 'Queue n rollouts of each task',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RolloutRequest' } } } },
        responses: {
          '202': { description: 'Queued', content: { 'application/json': { schema: { $ref: '#/components/schemas/Submitted' } } } },
          '400': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/v1/rollouts/{id}': {
      get: {
        summary: 'A rollout: status, reward and (when finished) its training samples',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'wait',
            in: 'query',
            required: false,
            description: 'Long-poll: seconds to wait for the rollout to end (max 300)',
            schema: { type: 'number', minimum: 0, maximum: 300 },
          },
          {
            name: 'include_stale',
            in: 'query',
            required: false,
            description: 'Give the samples of a stale rollout too (left out by default)',
            schema: { type: 'string', enum: ['true', 'false', '1', '0'] },
          },
        ],
        responses: {
          '200': { description: 'The rollout', content: { 'application/json': { schema: { $ref: '#/components/schemas/Rollout' } } } },
          '404': { $ref: '#/components/responses/Error' },
        },
      },
      delete: {
        summary: 'Cancel a queued or running rollout: it ends cancelled, its container removed',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '202': { description: 'Cancelling: GET it (with wait) to see it end' },
          '404': { $ref: '#/components/responses/Error' },
          '409': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/v1/groups/{uid}': {
      get: {
        summary:
          'Every rollout of a group (one task of one request), and whether they have all ended; once ended, whether every graded one got the same reward',
        parameters: [
          { name: 'uid', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'wait',
            in: 'query',
            required: false,
            description: 'Long-poll: seconds to wait for every rollout of it to end (max 300)',
            schema: { type: 'number', minimum: 0, maximum: 300 },
          },
        ],
        responses: {
          '200': {
            description: 'The group',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    group: { type: 'string' },
                    ended: { type: 'boolean' },
                    uniform: { type: ['boolean', 'null'] },
                    rollouts: { type: 'array', items: { $ref: '#/components/schemas/Rollout' } },
                  },
                },
              },
            },
          },
          '404': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/v1/proxy/pause': {
      post: {
        summary: 'Refuse new model calls with 429 + Retry-After (before a weight update); calls in flight finish',
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { type: 'object', properties: { retry_after_sec: { type: 'number', minimum: 0 }, ...HOLD_PROPERTIES } } } },
        },
        responses: { '200': { description: 'Paused', content: { 'application/json': { schema: { $ref: '#/components/schemas/PauseState' } } } } },
      },
    },
    '/v1/proxy/drain': {
      post: {
        summary:
          'Pause (as /v1/proxy/pause), then wait until the model calls in flight have ended and are recorded: call it before a weight update so that no answer straddles two versions; /v1/proxy/resume after',
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  timeout_sec: { type: 'number', minimum: 0, maximum: 3600, default: 60, description: 'how long to wait for the calls in flight' },
                  retry_after_sec: { type: 'number', minimum: 0, maximum: 3600, description: 'the Retry-After harnesses are told meanwhile' },
                  ...HOLD_PROPERTIES,
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Drained: nothing in flight, every record written',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/DrainState' } } },
          },
          '400': { $ref: '#/components/responses/Error' },
          '409': {
            description: 'Calls still in flight at the timeout (the proxies stay paused); the body says how many, and `error.message` too',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/DrainState' } } },
          },
        },
      },
    },
    '/v1/proxy/resume': {
      post: {
        summary: 'Serve model calls again',
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  weight_version: {
                    type: ['string', 'number'],
                    description: 'the weights now loaded: recorded with every model call answered from now on; a sample never mixes two versions',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Resumed', content: { 'application/json': { schema: { $ref: '#/components/schemas/PauseState' } } } },
          '400': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/metrics': {
      get: {
        summary:
          'Prometheus metrics: rollouts by state and outcome, rewards, rollout durations, the warm pool, and the recording proxies’ (calls, latency, retries, replicas in routing), added up across proxies',
        responses: { '200': { description: 'The Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/health': {
      get: {
        security: [],
        summary: 'Liveness, and how many rollouts got a container the warm pool started while they were queued',
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    status: { type: 'string', enum: ['ok'] },
                    run_id: { type: 'string' },
                    warm_pool: {
                      type: 'object',
                      properties: {
                        warm: { type: 'integer', description: 'containers handed over started' },
                        cold: { type: 'integer', description: 'containers started on a rollout’s own path' },
                        unused: { type: 'integer', description: 'warm containers removed untaken' },
                        idle: { type: 'integer', description: 'warm containers started or starting, not yet taken' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'the token openforge serve printed, or its --token-file; every route but /health' },
    },
    schemas: {
      RolloutRequest: {
        type: 'object',
        required: ['tasks', 'upstream'],
        additionalProperties: false,
        properties: {
          tasks: { type: 'string', description: 'A task or suite folder on the service machine' },
          task_ids: { type: 'array', items: { type: 'string' } },
          // `custom` needs a custom_harness section, which a rollout request has no room for
          harness: { type: 'string', enum: harnessNames().filter((name) => name !== 'custom'), default: 'forge-agent' },
          upstream: { type: 'string', description: 'OpenAI-compatible base URL (…/v1) of the inference server, or sim:oracle | sim:noisy:<p>' },
          replicas: {
            type: 'array',
            items: { type: 'string' },
            minItems: 1,
            description: 'More servers of the same model (base URLs …/v1); each rollout sticks to one of them or upstream',
          },
          kind: { type: 'string', enum: ['vllm', 'sglang', 'openai-compatible'], default: 'vllm' },
          model: { type: 'string', default: 'policy' },
          sampling: {
            type: 'object',
            properties: {
              temperature: { type: 'number' },
              max_tokens: { type: 'integer' },
              top_p: { type: 'number' },
              top_k: { type: 'integer' },
              min_p: { type: 'number' },
              stop: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
              presence_penalty: { type: 'number' },
              frequency_penalty: { type: 'number' },
              repetition_penalty: { type: 'number' },
              seed: { type: 'integer' },
              logprobs: { type: 'integer', description: 'top logprobs per sampled token' },
            },
          },
          n: { type: 'integer', minimum: 1, maximum: 1024, default: 1 },
          weight_version: { type: ['string', 'integer'] },
          max_turns: { type: 'integer', minimum: 1 },
          max_staleness: {
            type: 'integer',
            minimum: 0,
            description: 'a rollout whose first model call is more than this many weight updates old when it ends is stale (default: run.yaml max_staleness)',
          },
        },
      },
      Submitted: {
        type: 'object',
        properties: { ids: { type: 'array', items: { type: 'string' } }, groups: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      Rollout: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          task_id: { type: 'string' },
          group: { type: 'string' },
          status: { type: 'string', enum: ['queued', 'running', 'finished', 'error', 'cancelled'] },
          reward: { type: ['number', 'null'] },
          error_type: { type: ['string', 'null'] },
          error_message: { type: ['string', 'null'] },
          attempts: { type: 'integer' },
          restarts: { type: 'integer', description: 'times the service was killed while it ran and its restart ran it again' },
          weight_version: { type: ['string', 'integer', 'null'] },
          staleness: { type: ['integer', 'null'], description: 'weight updates between its first model call and its end' },
          stale: { type: 'boolean', description: 'staleness above max_staleness: samples left out unless include_stale' },
          samples: {
            type: 'array',
            items: { type: 'object', description: 'veRL sample: prompt_ids, response_ids, response_mask, response_logprobs, reward_score, num_turns, uid, …' },
          },
        },
      },
      PauseState: { type: 'object', properties: { paused: { type: 'boolean' }, weight_version: { type: ['string', 'null'] } } },
      DrainState: {
        type: 'object',
        properties: {
          paused: { type: 'boolean' },
          drained: { type: 'boolean' },
          in_flight: { type: 'integer', description: 'model calls not yet answered' },
          pending_records: { type: 'integer', description: 'calls answered whose records are not yet written' },
          error: { type: 'object', properties: { message: { type: 'string' } } },
        },
      },
      Error: { type: 'object', properties: { error: { type: 'object', properties: { message: { type: 'string' } } } } },
    },
    responses: { Error: { description: 'Bad input or unknown rollout', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
  },
} as const;
