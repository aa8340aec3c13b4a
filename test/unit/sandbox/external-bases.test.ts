import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { externalBases, replaceBases } from '../../../src/sandbox/docker/external-bases.js';

const TB = path.resolve('test/fixtures/terminal-bench-2');

describe('external base images of a task Dockerfile', () => {
  it("finds Terminal-Bench's registry bases and swaps them, keeping the rest of the file byte for byte", () => {
    const dockerfile = readFileSync(path.join(TB, 'cancel-async-tasks/environment/Dockerfile'), 'utf8');
    expect(externalBases(dockerfile)).toEqual(['python:3.13-slim-bookworm']);
    const swapped = replaceBases(dockerfile, new Map([['python:3.13-slim-bookworm', 'openforge/workspace:abc']]));
    expect(swapped).toBe(dockerfile.replace('FROM python:3.13-slim-bookworm', 'FROM openforge/workspace:abc'));
    expect(externalBases(readFileSync(path.join(TB, 'regex-log/environment/Dockerfile'), 'utf8'))).toEqual(['ubuntu:24.04']);
  });

  it('leaves project images, earlier stages, scratch and ARG-built references alone', () => {
    const dockerfile = [
      'ARG BASE',
      'FROM --platform=linux/amd64 golang:1.22 AS build',
      'FROM ${BASE} AS other',
      'FROM openforge/workspace',
      'FROM build AS again',
      'FROM scratch',
      'from debian:bookworm-slim as final',
    ].join('\n');
    expect(externalBases(dockerfile)).toEqual(['golang:1.22', 'debian:bookworm-slim']);
    const swapped = replaceBases(
      dockerfile,
      new Map([
        ['golang:1.22', 'L1'],
        ['debian:bookworm-slim', 'L2'],
        ['build', 'WRONG'],
      ]),
    );
    expect(swapped.split('\n')).toEqual([
      'ARG BASE',
      'FROM --platform=linux/amd64 L1 AS build',
      'FROM ${BASE} AS other',
      'FROM openforge/workspace',
      'FROM build AS again',
      'FROM scratch',
      'from L2 as final',
    ]);
  });
});
