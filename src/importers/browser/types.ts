/** One live-site browser task read from a benchmark file, before it is written in Harbor layout. */
export interface ImportedTask {
  /** Folder name and [task] name: the source's id made safe for a path. */
  id: string;
  source: 'webvoyager' | 'mind2web';
  /** The user's request as the benchmark words it. */
  task: string;
  website: string;
  /** Where the browser starts (the site's home page). */
  startUrl: string;
  /** Fields kept as task metadata (level, reference_length, web_name, …). */
  metadata: Record<string, string | number>;
}

export type ImportSource = ImportedTask['source'];
