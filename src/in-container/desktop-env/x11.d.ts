/** The part of the `x11` package (a pure-JavaScript X11 client, no types of its own) the desktop env uses. */
declare module 'x11' {
  import type { EventEmitter } from 'node:events';
  export interface XScreen {
    root: number;
    pixel_width: number;
    pixel_height: number;
    root_depth: number;
  }
  export interface XEvent {
    name?: string;
    type: number;
  }
  export interface XClient extends EventEmitter {
    AllocID(): number;
    GetImage(
      format: number,
      drawable: number,
      x: number,
      y: number,
      width: number,
      height: number,
      planeMask: number,
      cb: (err: Error | null, image: { depth: number; visualId: number; data: Buffer }) => void,
    ): void;
    InternAtom(onlyIfExists: boolean, name: string, cb: (err: Error | null, atom: number) => void): void;
    GetProperty(
      del: number,
      wid: number,
      name: number,
      type: number,
      longOffset: number,
      longLength: number,
      cb: (err: Error | null, prop: { type: number; format: number; data: Buffer }) => void,
    ): void;
    GetKeyboardMapping(startCode: number, count: number, cb: (err: Error | null, rows: number[][]) => void): void;
    ChangeKeyboardMapping(firstKeycode: number, keysymsPerKeycode: number, keysyms: number[]): void;
    require(name: 'damage', cb: (err: Error | null, ext: DamageExt) => void): void;
    terminate(): void;
  }
  export interface DamageExt {
    ReportLevel: { RawRectangles: 0; DeltaRectangles: 1; BoundingBox: 2; NonEmpty: 3 };
    Create(damage: number, drawable: number, level: number): void;
    Subtract(damage: number, repair: number, parts: number): void;
  }
  export interface XDisplay {
    client: XClient;
    min_keycode: number;
    max_keycode: number;
    screen: XScreen[];
  }
  export function createClient(options: { display?: string }, cb: (err: Error | null, display: XDisplay) => void): XClient;
}
