/** The `<run-dir>` argument of the commands that read a run's records (`locateStore` finds the store). */
export const RUN_DIR_ARGUMENT = '<run-dir>';
export const RUN_DIR_DESCRIPTION = "the run's output folder (holds openforge.db), the run's own folder inside it, or a store file (openforge proxy --db)";
