/**
 * A benchmark's tasks brought into Harbor layout (`openforge tasks import --from <name> <source> --out DIR`).
 * A new one is a module implementing this plus one entry in ./registry.ts.
 */
export interface TaskImporter {
  readonly name: string;
  /** One line for `openforge tasks import --help`. */
  readonly description: string;
  /** What the source argument is: a task file, a checkout of the benchmark's repository, … */
  readonly source: string;
  /** The options it reads; the command refuses any other it is given, rather than ignore it. None when absent. */
  readonly takes?: readonly (keyof ImportOptions)[];
  /** Writes one task folder per task it can bring into `outDir`, and names each it cannot, with why. */
  import(source: string, outDir: string, options?: ImportOptions): Promise<ImportReport>;
}

export interface ImportOptions {
  /** Which dataset of a source that holds several (Harbor's registry.json): `name@version`. */
  dataset?: string;
  /** A local checkout of the repository the source's tasks live in (Harbor: a dataset's `git_url`). */
  checkout?: string;
  /** A folder holding files the tasks download (so that they run offline), for importers that take one. */
  cache?: string;
  /** A folder of reference actions written for the source's tasks (osworld: `<domain>/<id>.json`), carried as their solutions. */
  actions?: string;
}

export interface ImportReport {
  /** The task folders written. */
  written: string[];
  /** Tasks of the source left out, each with the reason (what it needs that the importer cannot provide). */
  skipped: { id: string; cause: string; category?: string }[];
}
