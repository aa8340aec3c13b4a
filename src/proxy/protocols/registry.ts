import { UserError } from '../../util/errors.js';
import { Registry } from '../../util/registry.js';
import { anthropicProtocol } from './anthropic/protocol.js';
import { chatProtocol } from './chat/protocol.js';
import { responsesProtocol } from './responses/protocol.js';
import type { Endpoint, Protocol, ProtocolRecords } from './types.js';

/** Every protocol the proxy serves, by name; a new one is a folder plus one entry here. */
const PROTOCOLS = new Registry<Protocol>('protocol', [chatProtocol, responsesProtocol, anthropicProtocol]);

/**
 * Adds a protocol (a plugin's, or a test's) to those a proxy started afterwards serves and every
 * reader of records knows. A name already taken is refused: a protocol's records must read one way.
 */
export const registerProtocol = (protocol: Protocol): void => PROTOCOLS.add(protocol);
export const protocols = (): Protocol[] => PROTOCOLS.all();

/** Every model-call route of every protocol. */
export function endpoints(): Endpoint[] {
  return protocols().flatMap((p) => p.endpoints);
}

/** How the named protocol's recorded calls read; a record of a protocol this process does not know is an error that names it. */
export function protocolRecords(name: string): ProtocolRecords {
  if (!PROTOCOLS.names().includes(name)) {
    throw new UserError(`a recorded call speaks protocol "${name}", which this build does not know`, `known protocols: ${PROTOCOLS.names().join(', ')}`);
  }
  return PROTOCOLS.get(name).records;
}
