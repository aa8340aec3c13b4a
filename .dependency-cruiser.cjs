// The layers of src/ as rules: `npm run lint:deps` (part of `npm test`) fails on any import that breaks one.
// docs/architecture.md draws the same layers; test/unit/layers.test.ts plants a violation of each rule.
/** A folder of src/ (or several), as a path pattern. */
const layer = (...names) => `^src/(${names.join('|')})/`;
/** Any folder of src/ but these. */
const outside = (...names) => `^src/(?!(${names.join('|')})/)`;

/** The orchestrator and what sits on it: nothing below may import them. */
const ORCHESTRATION = ['rollout', 'service', 'cli', 'inspector', 'standalone-proxy'];

/** npm packages the code that runs inside containers may use: bundled into the agents, or installed in the browser image. */
const CONTAINER_PACKAGES = ['eventsource-parser', 'fastify', 'playwright-core', 'zod', '@modelcontextprotocol/sdk', 'x11'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports has no bottom: no part of it can be read, tested or replaced alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'records-import-nothing',
      severity: 'error',
      comment: 'src/records holds the record types every layer agrees on; it imports nothing, so anything may import it.',
      from: { path: layer('records') },
      to: { pathNot: layer('records') },
    },
    {
      name: 'util-imports-only-util',
      severity: 'error',
      comment: 'src/util is the floor: Node-only helpers with no knowledge of the project, usable from any layer and inside containers.',
      from: { path: layer('util') },
      to: { path: outside('util') },
    },
    {
      name: 'engine-wire-imports-only-records',
      severity: 'error',
      comment: 'src/engine-wire reads and writes what crosses to the inference engine; it knows the records and nothing else of the project.',
      from: { path: layer('engine-wire') },
      to: { path: outside('engine-wire', 'records') },
    },
    {
      name: 'families-know-only-themselves',
      severity: 'error',
      comment: 'src/families holds model families (chat template, tokenizer, completion format): pure functions the sim, the proxy and training data share.',
      from: { path: layer('families') },
      to: { path: outside('families', 'records', 'util') },
    },
    {
      name: 'store-imports-only-records-and-engine-wire',
      severity: 'error',
      comment: 'src/store keeps records in SQLite; it may read engine answers (engine-wire) and use util, nothing above.',
      from: { path: layer('store') },
      to: { path: outside('store', 'records', 'engine-wire', 'util') },
    },
    {
      name: 'proxy-reaches-the-store-through-its-sink',
      severity: 'error',
      comment: 'The recording proxy hands finished calls to a CallSink (src/proxy/types.ts); whoever starts it passes the store in.',
      from: { path: layer('proxy') },
      to: { path: layer('store', 'sim', 'sandbox', 'harness', 'trajectory', 'analytics', ...ORCHESTRATION) },
    },
    {
      name: 'sandbox-knows-no-harness-nor-orchestrator',
      severity: 'error',
      comment: "A sandbox backend runs containers; which harness runs in them, and why, is the orchestrator's business.",
      from: { path: layer('sandbox') },
      to: { path: layer('harness', 'proxy', 'store', 'sim', 'trajectory', 'analytics', ...ORCHESTRATION) },
    },
    {
      name: 'harness-adapters-know-no-orchestrator',
      severity: 'error',
      comment: 'A harness adapter says how to run one harness; it does not run rollouts.',
      from: { path: layer('harness') },
      to: { path: layer('proxy', 'store', 'sim', 'trajectory', 'analytics', ...ORCHESTRATION) },
    },
    {
      name: 'training-data-knows-no-orchestrator',
      severity: 'error',
      comment: 'Training data (trajectory, export, stats) is built from the store alone, so it reads a run from any machine.',
      from: { path: layer('trajectory', 'analytics') },
      to: { path: layer('sandbox', 'harness', 'sim', ...ORCHESTRATION) },
    },
    {
      name: 'sim-knows-no-orchestrator',
      severity: 'error',
      comment: 'The simulated model is an upstream like any engine: it knows tasks and the engine wire, not who calls it.',
      from: { path: layer('sim') },
      to: { path: layer('proxy', 'store', 'sandbox', 'harness', 'trajectory', 'analytics', ...ORCHESTRATION) },
    },
    {
      name: 'config-knows-no-orchestrator',
      severity: 'error',
      comment: 'src/config validates run.yaml and task.toml; plugins (backends, the custom harness) lend it their sections.',
      from: { path: layer('config') },
      to: { path: layer('proxy', 'store', 'sim', 'trajectory', 'analytics', ...ORCHESTRATION) },
    },
    {
      name: 'in-container-code-stays-self-contained',
      severity: 'error',
      comment:
        "Code that runs inside rollout containers is copied there alone (bundled, or with the browser image's packages): it may use only itself, util, engine-wire and records.",
      from: { path: layer('in-container') },
      to: { path: outside('in-container', 'util', 'engine-wire', 'records') },
    },
    {
      name: 'in-container-code-uses-only-its-own-packages',
      severity: 'error',
      comment: `Inside a container only these npm packages exist: ${CONTAINER_PACKAGES.join(', ')}.`,
      from: { path: layer('in-container') },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: `node_modules/(${CONTAINER_PACKAGES.join('|')})/`,
      },
    },
    {
      name: 'only-the-cli-imports-the-inspector-and-service',
      severity: 'error',
      comment: 'The inspector, the rollout service and the standalone proxy are applications; only the command line starts them.',
      from: { path: '^src/', pathNot: layer('cli', 'inspector', 'service', 'standalone-proxy') },
      to: { path: layer('inspector', 'service', 'standalone-proxy') },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      comment: 'The command line is the top: it parses arguments and calls the layers below.',
      from: { path: '^src/', pathNot: layer('cli') },
      to: { path: layer('cli') },
    },
    {
      name: 'no-unresolvable-imports',
      severity: 'error',
      comment: 'An import that resolves to nothing fails at run time.',
      from: { path: '^src/' },
      // a type-only import of a package's declaration file (src/types.d.ts), which tsc resolves and Node never loads
      to: { couldNotResolve: true, pathNot: '^hyparquet-writer/src/types\\.js$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
