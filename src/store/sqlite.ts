import sqlite3 from 'sqlite3';

/** Settings of each connection to a store (the page size and WAL mode belong to the file). */
export const CONNECTION_PRAGMAS = 'PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;';

/** A promise face over one sqlite3 connection. */
export class SqliteDb {
  /** Statements kept prepared for `runPrepared`, by SQL text. */
  private readonly prepared = new Map<string, sqlite3.Statement>();

  private constructor(private readonly db: sqlite3.Database) {}

  static open(file: string): Promise<SqliteDb> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(new SqliteDb(db))));
    });
  }

  run(sql: string, params: unknown[] = []): Promise<{ lastID: number; changes: number }> {
    return new Promise((resolve, reject) => {
      this.db.run(sql, params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve({ lastID: this.lastID, changes: this.changes });
      });
    });
  }

  /**
   * Like `run`, on a statement prepared once and kept: for the hot writes (the proxy's batched call
   * INSERTs), where compiling a long multi-row statement again for every batch would cost more than
   * running it.
   */
  runPrepared(sql: string, params: unknown[]): Promise<{ lastID: number; changes: number }> {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return new Promise((resolve, reject) => {
      (statement as sqlite3.Statement).run(params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve({ lastID: this.lastID, changes: this.changes });
      });
    });
  }

  get<T>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.db.get(sql, params, (err: Error | null, row: T) => (err ? reject(err) : resolve(row)));
    });
  }

  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.db.all(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
    });
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    await Promise.all([...this.prepared.values()].map((statement) => new Promise<void>((resolve) => statement.finalize(() => resolve()))));
    this.prepared.clear();
    return new Promise((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }
}
