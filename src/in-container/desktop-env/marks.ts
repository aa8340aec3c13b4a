import { execFile } from 'node:child_process';
import { A11Y_SCRIPT } from './a11y.js';

/**
 * Set-of-marks: the accessible elements a pointer or keyboard acts on, numbered, their boxes drawn on the
 * screenshot with their numbers, so a model can name an element by its mark and click the centre of its box.
 */
export interface Mark {
  /** The number drawn on the screenshot, from 1. */
  id: number;
  role: string;
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The marks of what is on screen now, read from AT-SPI (images/desktop/python/openforge_a11y.py --marks). */
export function a11yMarks(screen: { width: number; height: number }, timeoutMs: number): Promise<Mark[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'python3',
      [A11Y_SCRIPT, '--marks', String(screen.width), String(screen.height)],
      { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024, env: process.env },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`reading the marks from the accessibility tree failed: ${stderr.trim().split('\n').at(-1) || err.message}`));
        const found = JSON.parse(stdout) as Omit<Mark, 'id'>[];
        resolve(found.map((m, i) => ({ id: i + 1, ...m })));
      },
    );
  });
}

/** Digits 0-9 as 3×5 bitmaps, rows top to bottom, bit 2 the left column. */
const DIGITS = [
  [7, 5, 5, 5, 7],
  [2, 6, 2, 2, 7],
  [7, 1, 7, 4, 7],
  [7, 1, 7, 1, 7],
  [5, 5, 7, 1, 1],
  [7, 4, 7, 1, 7],
  [7, 4, 7, 5, 7],
  [7, 1, 1, 1, 1],
  [7, 5, 7, 5, 7],
  [7, 5, 7, 1, 7],
];
const SCALE = 2;
const MARK_COLOUR = [230, 30, 160] as const; // magenta: rare in application chrome
const WHITE = [255, 255, 255] as const;

/** Draws each mark's box outline and its number (white on the mark colour, at the box's top-left) into BGRX pixels. */
export function drawMarks(bgrx: Buffer, width: number, height: number, marks: readonly Mark[]): void {
  const put = (x: number, y: number, [r, g, b]: readonly [number, number, number]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    bgrx[i] = b;
    bgrx[i + 1] = g;
    bgrx[i + 2] = r;
  };
  const fill = (x0: number, y0: number, w: number, h: number, colour: readonly [number, number, number]) => {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) put(x, y, colour);
  };
  for (const m of marks) {
    const right = m.x + m.width - 1;
    const bottom = m.y + m.height - 1;
    for (let x = m.x; x <= right; x++) {
      put(x, m.y, MARK_COLOUR);
      put(x, bottom, MARK_COLOUR);
    }
    for (let y = m.y; y <= bottom; y++) {
      put(m.x, y, MARK_COLOUR);
      put(right, y, MARK_COLOUR);
    }
    const digits = String(m.id);
    const labelW = (digits.length * 4 + 1) * SCALE;
    const labelH = 7 * SCALE;
    fill(m.x, m.y, labelW, labelH, MARK_COLOUR);
    [...digits].forEach((d, k) => {
      const rows = DIGITS[Number(d)]!;
      rows.forEach((bits, row) => {
        for (let col = 0; col < 3; col++) {
          if (bits & (4 >> col)) fill(m.x + (1 + k * 4 + col) * SCALE, m.y + (1 + row) * SCALE, SCALE, SCALE, WHITE);
        }
      });
    });
  }
}
