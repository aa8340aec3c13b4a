/**
 * Lines a grader prints when it reached for the internet and could not: a resolver or connect failure from
 * curl, apt, pip, uv or Go-style clients. Terminal-Bench's test.sh installs its test tools at test time
 * (apt curl, uv from astral.sh, pytest from PyPI), then writes reward 0 when pytest did not run at all.
 */
const NETWORK_FAILURE =
  /could not resolve host|temporary failure resolving|temporary failure in name resolution|name or service not known|no address associated with hostname|network is unreachable|failed to establish a new connection|could not connect to server|failed to connect to|dial tcp|getaddrinfo|connection timed out|no such host/i;

/** The first line of a grader's output that says it could not reach the network, or undefined. */
export function networkFailureIn(output: string): string | undefined {
  return output
    .split('\n')
    .map((line) => line.trim())
    .find((line) => NETWORK_FAILURE.test(line))
    ?.slice(0, 300);
}
