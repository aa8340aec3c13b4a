import zlib from 'node:zlib';
import x11 from 'x11';
import { ChangeClock } from './settle.js';
import type { Keymap } from './unicode-keys.js';

const Z_PIXMAP = 2;

/**
 * One connection to the X server: the screen as PNG (GetImage of the root window), and the X DAMAGE
 * extension on the root window, so that settling after an action waits for the screen to stop changing
 * instead of sleeping a fixed time.
 */
export class XDisplay implements Keymap {
  /** X damage on the root window: a source of change for settling (settle.ts). */
  readonly damage = new ChangeClock();

  private constructor(
    private readonly client: x11.XClient,
    readonly root: number,
    readonly width: number,
    readonly height: number,
    private readonly keycodes: { min: number; max: number },
  ) {}

  static connect(display = process.env.DISPLAY ?? ':99'): Promise<XDisplay> {
    return new Promise((resolve, reject) => {
      const client = x11.createClient({ display }, (err, dpy) => {
        if (err) return reject(err);
        const screen = dpy.screen[0]!;
        const x = new XDisplay(dpy.client, screen.root, screen.pixel_width, screen.pixel_height, { min: dpy.min_keycode, max: dpy.max_keycode });
        dpy.client.require('damage', (derr, damage) => {
          if (derr) return reject(new Error(`the X server has no DAMAGE extension: ${derr.message}`));
          const id = dpy.client.AllocID();
          damage.Create(id, screen.root, damage.ReportLevel.NonEmpty);
          dpy.client.on('event', (ev: x11.XEvent) => {
            if (ev.name !== 'DamageNotify') return;
            // NonEmpty reports once until repaired: repair at once so the next change reports again.
            damage.Subtract(id, 0, 0);
            x.damage.changed();
          });
          resolve(x);
        });
      });
      client.on('error', (err: Error) => reject(err));
    });
  }

  /**
   * connect(), tried again until the X server answers: the env server starts alongside Xvfb rather than after it,
   * so that its own start overlaps the display's. Fails with the last error once `timeoutMs` has passed.
   */
  static async connectWhenUp(display: string, timeoutMs: number, intervalMs = 20): Promise<XDisplay> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await XDisplay.connect(display);
      } catch (err) {
        if (Date.now() >= deadline)
          throw new Error(`the X server on ${display} did not answer within ${timeoutMs} ms: ${(err as Error).message}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  /** The root window's pixels (BGRX, 32 bits per pixel at depth 24). */
  raw(deadlineMs = 5000): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the X server sent no screen image within ${deadlineMs} ms`)), deadlineMs);
      this.client.GetImage(Z_PIXMAP, this.root, 0, 0, this.width, this.height, 0xffffffff, (err, image) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(image.data);
      });
    });
  }

  /** The window manager's client windows (EWMH _NET_CLIENT_LIST) with their titles, and which one has the focus. */
  async windows(): Promise<{ id: number; title: string; active: boolean }[]> {
    const [list, active] = await Promise.all([this.windowIds('_NET_CLIENT_LIST'), this.windowIds('_NET_ACTIVE_WINDOW')]);
    return Promise.all(list.map(async (id) => ({ id, title: await this.title(id), active: id === active[0] })));
  }

  private async windowIds(property: string): Promise<number[]> {
    const data = await this.property(this.root, property);
    const ids: number[] = [];
    for (let i = 0; i + 4 <= data.length; i += 4) ids.push(data.readUInt32LE(i));
    return ids.filter((id) => id !== 0);
  }

  private async title(id: number): Promise<string> {
    const utf8 = await this.property(id, '_NET_WM_NAME').catch(() => Buffer.alloc(0));
    if (utf8.length > 0) return utf8.toString('utf8');
    return (await this.property(id, 'WM_NAME').catch(() => Buffer.alloc(0))).toString('latin1');
  }

  private readonly atoms = new Map<string, number>();

  private async atom(name: string): Promise<number> {
    const known = this.atoms.get(name);
    if (known !== undefined) return known;
    const atom = await new Promise<number>((resolve, reject) => this.client.InternAtom(false, name, (err, a) => (err ? reject(err) : resolve(a))));
    this.atoms.set(name, atom);
    return atom;
  }

  private async property(window: number, name: string): Promise<Buffer> {
    const atom = await this.atom(name);
    return new Promise((resolve, reject) => this.client.GetProperty(0, window, atom, 0, 0, 1 << 16, (err, prop) => (err ? reject(err) : resolve(prop.data))));
  }

  async spareKeycodes(): Promise<number[]> {
    const rows = await this.keyboardMapping(this.keycodes.min, this.keycodes.max - this.keycodes.min + 1);
    return rows.flatMap((syms, i) => (syms.every((s) => s === 0) ? [this.keycodes.min + i] : []));
  }

  async bind(keycode: number, keysym: number): Promise<void> {
    this.client.ChangeKeyboardMapping(keycode, 2, [keysym, keysym]);
    // The reply comes after the change is applied: the next client to read the keymap sees the binding.
    const [row] = await this.keyboardMapping(keycode, 1);
    if (row?.[0] !== keysym) throw new Error(`the X server did not bind keysym 0x${keysym.toString(16)} to keycode ${keycode}`);
  }

  private keyboardMapping(first: number, count: number): Promise<number[][]> {
    return new Promise((resolve, reject) => this.client.GetKeyboardMapping(first, count, (err, rows) => (err ? reject(err) : resolve(rows))));
  }

  close(): void {
    this.client.terminate();
  }
}

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * BGRX (the X server's little-endian 32-bit pixels) → RGB PNG. Written here rather than with a PNG library:
 * a screenshot is encoded on every step, and one fixed filter (Sub, one pass) with zlib's fastest level
 * takes about half the time of pngjs's adaptive filtering for the same image (measured on a 1280×800 desktop).
 */
export function encodePng(bgrx: Buffer, width: number, height: number): Buffer {
  const stride = width * 3 + 1;
  const raw = Buffer.allocUnsafe(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    raw[row] = 1; // filter: Sub
    let src = y * width * 4;
    let pr = 0;
    let pg = 0;
    let pb = 0;
    for (let x = 0, d = row + 1; x < width; x++, src += 4, d += 3) {
      const r = bgrx[src + 2]!;
      const g = bgrx[src + 1]!;
      const b = bgrx[src]!;
      raw[d] = (r - pr) & 255;
      raw[d + 1] = (g - pg) & 255;
      raw[d + 2] = (b - pb) & 255;
      pr = r;
      pg = g;
      pb = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', zlib.deflateSync(raw, { level: 1 })), pngChunk('IEND', Buffer.alloc(0))]);
}
