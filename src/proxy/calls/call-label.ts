import type { CallLabel } from '../../records/call.js';

/**
 * The label a call is recorded with. A protocol's own label other than `policy` (Anthropic's
 * `count_tokens`) always stands. Otherwise, with a list of policy models, a call that asks for a
 * model outside it is a `helper` call (titles, summaries by a small/fast alias).
 */
export function callLabel(protocolLabel: CallLabel, requestedModel: string, policyModels: readonly string[] | undefined): CallLabel {
  if (protocolLabel !== 'policy' || policyModels === undefined) return protocolLabel;
  return policyModels.includes(requestedModel) ? 'policy' : 'helper';
}
