/** Types of scripts/cli-build.mjs (the compiled CLI of a clone; docs/cli.md, "Start-up"). */

/** Where the compiled CLI lives, relative to the repository root. */
export declare const CLI_CACHE: string;

/** The compiled CLI's entry file when every source it was built from is unchanged, else why it is stale. */
export declare function freshCli(root: string): { entry: string } | { stale: string };

/** Compiles cli/main.ts into a new build folder, makes it current, and returns its entry file. */
export declare function buildCli(root: string): Promise<string>;
