import { describe, expect, it } from 'vitest';
import { drawMarks } from '../../../src/in-container/desktop-env/marks.js';
import { encodePng } from '../../../src/in-container/desktop-env/x-display.js';
import { pixelAt } from '../../helpers/png.js';

describe('set-of-marks drawing', () => {
  it("outlines each mark's box in the mark colour and writes its number at the top-left, leaving the rest", () => {
    const width = 100;
    const height = 60;
    const grey = Buffer.alloc(width * height * 4, 128);
    drawMarks(grey, width, height, [
      { id: 7, role: 'push button', name: 'OK', x: 20, y: 10, width: 50, height: 30 },
      { id: 12, role: 'text', name: '', x: 90, y: 50, width: 40, height: 40 }, // runs off the screen: clipped
    ]);
    const png = encodePng(grey, width, height);
    expect(pixelAt(png, 69, 25)).toEqual([230, 30, 160]); // right edge
    expect(pixelAt(png, 45, 39)).toEqual([230, 30, 160]); // bottom edge
    expect(pixelAt(png, 45, 25)).toEqual([128, 128, 128]); // inside the box
    expect(pixelAt(png, 5, 5)).toEqual([128, 128, 128]); // outside every box
    // the label: "7" is a top bar then a right stroke, white on the mark colour (2 px per font pixel)
    expect(pixelAt(png, 20 + 2, 10 + 2)).toEqual([255, 255, 255]);
    expect(pixelAt(png, 20 + 6, 10 + 8)).toEqual([255, 255, 255]);
    expect(pixelAt(png, 20 + 2, 10 + 8)).toEqual([230, 30, 160]);
    expect(pixelAt(png, 90, 55)).toEqual([230, 30, 160]);
  });
});
