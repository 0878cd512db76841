/** The files of `files` (paths relative to the project root) the metadata-file pass of the suite runs. */
export function layoutTests(files: readonly string[]): string[];
