import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DockerBackend } from '../../src/sandbox/docker/backend.js';
import { ImageBuilder } from '../../src/sandbox/docker/images.js';

/**
 * The desktop image's OSWorld metrics and getters, each on a wrong input (0) and a right one (1), with OSWorld's
 * semantics where they are easy to get wrong (options, sheet references, what a rule holds): Chromium's real
 * Preferences (written by a real headless run, kept across another), GIMP's config and exports, LibreOffice's user
 * profile and its docx export, documents, workbooks, csv and text files. The script runs inside the image, where
 * the evaluator runs (test/helpers/python/osworld_metrics_check.py).
 */
const SCRIPT = readFileSync(path.resolve('test/helpers/python/osworld_metrics_check.py'), 'utf8');
let scores: Record<string, { wrong: number; right: number } | number | boolean>;

beforeAll(async () => {
  const backend = new DockerBackend();
  await backend.check();
  const image = await new ImageBuilder(backend.docker, { extraCaFile: process.env.OPENFORGE_EXTRA_CA }).ensureDesktop();
  const res = spawnSync('docker', ['run', '--rm', '-i', '--network', 'none', '--shm-size', '512m', image, 'python3', '-'], {
    input: SCRIPT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (res.status !== 0) throw new Error(`the metrics script failed (${res.status}):\n${res.stderr}`);
  scores = JSON.parse(res.stdout.trim().split('\n').at(-1)!);
}, 900_000);

describe('osworld_eval metrics on real files', () => {
  it("compare_docx_files's fuzzy_match is OSWorld's fuzz.ratio: the normalised Indel similarity of the whole text", () => {
    // "Dublin Zoo It opened in 1831." against "… 1832.": one substitution is two Indel edits over 58 characters
    expect(scores['compare_docx_files/fuzzy_match']).toBeCloseTo(56 / 58, 10);
  });

  it('Chromium writes its Preferences where the Chrome getters read them', () => {
    expect(scores._chromium_wrote_preferences).toBe(true);
  });

  it.each([
    'exact_match/enable_do_not_track',
    'exact_match/profile_name',
    'match_in_list/default_search_engine',
    'check_font_size',
    'is_expected_bookmarks',
    'check_config_status',
    'check_image_size',
    'find_default_font',
    'compare_font_names',
    'compare_docx_files/ignore_blanks',
    'compare_docx_files/ignore_order',
    'compare_table/integer sheet index',
    'compare_csv/lines as written',
    'compare_subscript_contains',
    'literal_match',
    'check_direct_json_object',
    'check_direct_json_object/expect_in_result',
    'file_contains',
    'check_line_number',
    'check_moved_jpgs',
    'compare_table/two sheets of the result',
    'match_in_list',
    'is_in_list',
    'check_list',
    'postconfig download + check_include_exclude',
  ])('%s: 0 for the wrong file, 1 for the right one', (metric) => {
    expect(scores[metric], metric).toEqual({ wrong: 0, right: 1 });
  });
});
