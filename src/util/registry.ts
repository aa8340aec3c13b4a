import { UserError } from './errors.js';

/**
 * Plugins of one kind by name (protocols, sandbox backends, export formats, task importers): the built-in
 * ones, plus any a program registers before it starts a run.
 */
export class Registry<T extends { readonly name: string }> {
  private readonly entries = new Map<string, T>();

  /** `what` names the kind in errors, e.g. "export format". */
  constructor(
    private readonly what: string,
    builtIn: readonly T[],
  ) {
    for (const entry of builtIn) this.add(entry);
  }

  /** Adds a plugin. A name already taken is refused: every reader of a name must find one plugin. */
  add(entry: T): void {
    if (this.entries.has(entry.name)) throw new UserError(`a ${this.what} named "${entry.name}" is already registered`);
    this.entries.set(entry.name, entry);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  all(): T[] {
    return [...this.entries.values()];
  }

  /** The plugin of that name; an unknown name is an error that lists the known ones. */
  get(name: string): T {
    const entry = this.entries.get(name);
    if (!entry) throw new UserError(`unknown ${this.what} "${name}"`, `use one of: ${this.names().join(', ')}`);
    return entry;
  }
}
