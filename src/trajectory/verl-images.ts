import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { dataUrlBytes, sha256Hex } from './images.js';
import type { TrajectorySample } from './types.js';

/** How a veRL row carries its images: the bytes in the row (a base64 data URL), or a file written beside the export. */
export const IMAGE_MODES = ['inline', 'files'] as const;
export type ImageMode = (typeof IMAGE_MODES)[number];

/**
 * An image as a veRL row carries it. `image` is what verl's `process_image` (through qwen_vl_utils' `fetch_image`)
 * opens for the Qwen2.5-VL/Qwen3-VL processors: a `data:image/…;base64,` URL holding the bytes, a file path
 * (relative to the export file's folder), or the http(s) URL the harness sent. `sha256` is of the bytes (null for
 * a URL never fetched); `token_offset` is where the image's placeholder starts in `prompt_ids` followed by
 * `response_ids` (null when the tokenizer is not known). The images are in the order of their placeholders.
 */
export interface VerlImage {
  image: string;
  sha256: string | null;
  token_offset: number | null;
}

export interface VerlMultiModalData {
  image: VerlImage[];
}

/** A sample as a veRL row: every field of the sample, images in verl's form. */
export type VerlRow = Omit<TrajectorySample, 'multi_modal_data'> & { multi_modal_data: VerlMultiModalData | null };

/** Where a row's images go: inline, or (`files`) into `dir`, named in rows relative to `relativeTo`. */
export type ImageOutput = { mode: 'inline' } | { mode: 'files'; dir: string; relativeTo: string };

/** The folder `--images files` writes an export's images to: beside it, named after it (`verl.jsonl` → `verl.images/`). */
export function imagesFolderOf(exportFile: string): string {
  return path.join(path.dirname(exportFile), `${path.basename(exportFile, path.extname(exportFile))}.images`);
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/jpg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** Turns samples into veRL rows; with `files`, writes each distinct image once (named by its hash: screenshots repeat across samples). */
export class VerlImageWriter {
  private readonly written = new Set<string>();
  /** Distinct image files the rows of this writer name (`files`). */
  files = 0;

  constructor(readonly output: ImageOutput) {}

  row(sample: TrajectorySample): VerlRow {
    const mm = sample.multi_modal_data;
    // most samples show no image: the sample is its own row, no copy made
    if (!mm) return sample as Omit<TrajectorySample, 'multi_modal_data'> & { multi_modal_data: null };
    return { ...sample, multi_modal_data: { image: mm.images.map((image) => this.image(image.url, image.token_offset)) } };
  }

  private image(url: string, tokenOffset: number | null): VerlImage {
    const inline = dataUrlBytes(url);
    if (!inline) return { image: url, sha256: null, token_offset: tokenOffset };
    const sha256 = sha256Hex(inline.bytes);
    if (this.output.mode === 'inline') {
      const image = url.includes(';base64,') ? url : `data:${inline.mime};base64,${inline.bytes.toString('base64')}`;
      return { image, sha256, token_offset: tokenOffset };
    }
    const name = `${sha256}.${EXTENSIONS[inline.mime] ?? 'bin'}`;
    const file = path.join(this.output.dir, name);
    if (!this.written.has(name)) {
      if (!existsSync(file)) {
        mkdirSync(this.output.dir, { recursive: true });
        // written whole under another name first: a reader (or another export thread) never sees half an image
        const temp = path.join(this.output.dir, `.${name}.${process.pid}.${threadId}.partial`);
        writeFileSync(temp, inline.bytes);
        renameSync(temp, file);
      }
      this.written.add(name);
      this.files++;
    }
    return { image: path.relative(this.output.relativeTo, file).split(path.sep).join('/'), sha256, token_offset: tokenOffset };
  }
}
