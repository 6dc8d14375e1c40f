import type { LineageProgress } from '../shared/seal/lineage-progress';
import type { CliIo } from './io';

const BAR_WIDTH = 30;

/** A progress bar on stderr, drawn only when stderr is a terminal (never in pipes, logs or tests). */
export interface ProgressBar {
  readonly update: (progress: LineageProgress) => void;
  /** Ends the bar's line (when one was drawn). */
  readonly finish: () => void;
}

/**
 * A text progress bar (`label [#####-----] done/total`) redrawn in place with `\r`. No dependency:
 * the bar is one line of ASCII, which every terminal shows. `quiet` (a command's `--json`) draws
 * nothing, so machine output comes alone even on a terminal.
 */
export function progressBar(io: CliIo, label: string, options: { readonly quiet?: boolean } = {}): ProgressBar {
  let drawn = false;
  return {
    update: ({ done, total }) => {
      if (!io.stderrIsTty || options.quiet) return;
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * BAR_WIDTH);
      io.stderr(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total}`);
      drawn = true;
    },
    finish: () => {
      if (drawn) io.stderr('\n');
      drawn = false;
    },
  };
}
