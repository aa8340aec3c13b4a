export { startProxy } from './server.js';
export type { CallSink, ForcedSampling, ProxyLogger, ProxyOptions, RetryPolicy, SessionResolver, UpstreamConfig, UpstreamKind } from './types.js';
export type { RunningProxy } from './server.js';
export type { Protocol, PreparedCall, SseEvent, StreamTranslator } from './protocols/types.js';
